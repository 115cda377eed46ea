"""One settings store shared by every service and settings page, with its change on the bus."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from app.core.models import ScriptedChatModel
from app.core.netgate import GATE
from app.services.bus import EventBus
from app.services.events import KeysChanged, SettingsChanged, WorkspaceEvent
from app.services.settings.file import load_settings
from app.services.settings.preferences import Preferences
from app.services.settings.store import SettingsStore
from app.services.workspace import Workspace
from app.store import Store
from tests.services.memory_keyring import MemoryKeyring


async def test_a_settings_page_change_reaches_the_file_the_gate_and_every_service(
    tmp_path: Path,
) -> None:
    model = ScriptedChatModel([])
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: ""
    )
    changes: list[SettingsChanged] = []
    ws.events.subscribe(lambda e: changes.append(e) if isinstance(e, SettingsChanged) else None)
    try:
        await ws.preferences.set_offline(True)
        assert ws.network.offline
        folder = tmp_path / "work"
        folder.mkdir()
        await ws.tools.grant_folder(folder)
        assert ws.preferences.theme == "system"
        saved = json.loads((tmp_path / "settings.json").read_bytes())
    finally:
        await ws.preferences.set_offline(False)
        await ws.aclose()
        GATE.offline = False
    assert [(c.before.offline, c.after.offline) for c in changes] == [
        (False, True),
        (True, True),
        (True, False),
    ]
    assert changes[1].after.granted_folders == [str(folder.resolve())]
    assert saved["offline"] is True
    assert saved["granted_folders"] == [str(folder.resolve())]


async def test_the_settings_pages_service_needs_only_the_store_the_settings_and_the_bus(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    events = EventBus()
    seen: list[WorkspaceEvent] = []
    events.subscribe(seen.append)
    settings = SettingsStore(tmp_path, events)
    async with Store.open_data_dir(tmp_path) as store:
        preferences = Preferences(settings, store, None, events)
        await preferences.set_theme("dark")
        said = await preferences.set_key("anthropic/api-key", "sk-ant-test-0123456789")
    assert settings.current.theme == "dark"
    assert json.loads((tmp_path / "settings.json").read_bytes())["theme"] == "dark"
    assert said == "Key saved in the system keyring."
    assert memory_keyring.items[("parley", "anthropic/api-key")] == "sk-ant-test-0123456789"
    assert [type(e).__name__ for e in seen] == ["SettingsChanged", "KeysChanged"]
    assert seen[1] == KeysChanged("anthropic/api-key")


async def test_saves_made_together_leave_every_change_on_disk(tmp_path: Path) -> None:
    """A settings page saves each control as it changes; saves a moment apart write in turn
    and the file ends with all of them, never an older one written last."""
    for n in range(20):
        folder = tmp_path / str(n)
        store = SettingsStore(folder, EventBus())
        await asyncio.gather(
            store.update(read_aloud_speed=1.5),
            store.update(send_on_pause=True),
            store.update(offline=True),
        )
        saved = load_settings(folder)
        assert (saved.read_aloud_speed, saved.send_on_pause, saved.offline) == (1.5, True, True)
