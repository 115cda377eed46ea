"""Render the README's server screenshots: Settings > Server serving on this computer with two
keys (one with a daily limit, partly used), and the approval dialog an agent's call asked
through the API opens, offscreen on a data directory seeded with a scripted model (keys kept
in an in-memory keyring, as no keyring may run here).

Run: ``.venv/bin/python packaging/server_shot.py OUT_DIR [--all]`` (``--all``: dark too).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = [
    {
        "tool_calls": [
            {
                "name": "write_file",
                "args": {
                    "path": "~/notes/tides.md",
                    "content": "# Tides this week\n\nHigh water at 06:12 and 18:40.\n",
                },
                "id": "c1",
            }
        ]
    },
    {"text": "I could not write the tide table: it was not approved."},
]


_KEYS: dict[str, str] = {}
"""The keys made while seeding, by name (the window shows a key only when it makes it)."""


def _memory_keyring() -> None:
    import keyring
    from keyring.backend import KeyringBackend

    class InMemory(KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.items: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.items.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.items[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.items.pop((service, username), None)

    keyring.set_keyring(InMemory())


async def _seed(data: Path, script: Path) -> str:
    from app.services.agents import Agent
    from app.services.key_usage import KeyUsage
    from app.services.server_keys import ServerKeys
    from app.services.workspace import Workspace

    _memory_keyring()
    notes = Path.home() / "notes"
    notes.mkdir(parents=True, exist_ok=True)
    ws = await Workspace.open(data)
    spec = f"scripted:{script}"
    await ws.settings.save(ws.settings.current.model_copy(update={"default_model": spec}))
    await ws.tools.grant_folder(notes)
    await ws.agents.add(
        Agent(name="Researcher", instructions="Keep the notes.", tools=("write_file",))
    )
    thread = await ws.threads.create(title="Tide tables")
    await ws.aclose()
    keys = ServerKeys(data)
    _KEYS["ci-bot"] = keys.add("ci-bot", 50_000)
    keys.add("my-editor")
    KeyUsage(data, keys).spend("ci-bot", 12_840)
    KeyUsage(data, keys).spend("my-editor", 3_215)
    return thread.id


def _ask(address: str, key: str) -> None:
    import openai

    with openai.OpenAI(base_url=address, api_key=key, max_retries=0, timeout=60) as client:
        client.chat.completions.create(
            model="agent:Researcher",
            messages=[{"role": "user", "content": "Write this week's tide table to my notes."}],
        )


async def _shoot(out: Path, data: Path, thread_id: str, every: bool) -> None:
    from PySide6.QtWidgets import QApplication, QDialog

    from app.server.in_window import serve_in_window
    from app.ui.app import close_window, open_window
    from app.ui.settings.page import PageId
    from app.ui.theme import apply_theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    window = await open_window(str(data), thread_id=thread_id, preload=False, serve=serve_in_window)
    assert window is not None
    window.resize(1180, 760)
    try:
        for theme in ("light", "dark") if every else ("light",):
            suffix = "" if theme == "light" else "-dark"
            apply_theme(app, theme)
            dialog = window.open_settings()
            dialog.resize(1040, 640)
            page = await dialog.show_page(PageId.SERVER)
            if window.server.address is None:
                page.port.setValue(8765)
                await page.set_serving(True)
                if window.server.address is None:  # 8765 is taken here: any free port
                    page.port.setValue(0)
                    await page.set_serving(True)
            page.message.setText("")
            await page.load()
            await asyncio.sleep(0.3)
            dialog.grab().save(str(out / f"server-page{suffix}.png"))
            dialog.close()
            address = window.server.address
            assert address is not None
            asked = asyncio.get_running_loop().run_in_executor(None, _ask, address, _KEYS["ci-bot"])
            for _ in range(200):
                shown = [
                    d for d in window.findChildren(QDialog, "toolApprovalDialog") if d.isVisible()
                ]
                if shown:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            shown[0].grab().save(str(out / f"server-approval{suffix}.png"))
            shown[0].reject()
            await asyncio.wait_for(asked, 30)
    finally:
        await close_window(window)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "packaging"))
    from _shots import run_shots

    every = "--all" in sys.argv
    raise SystemExit(run_shots(SCRIPT, _seed, _shoot, Path(sys.argv[1]), every, home=True))
