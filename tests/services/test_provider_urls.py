"""The providers' base URLs in settings are where models whose spec names no URL connect."""

from __future__ import annotations

from pathlib import Path

import keyring

from app.services.settings import AppSettings
from app.services.workspace import Workspace
from tests.providers.replay_server import ReplayServer, Reply, sse_events
from tests.services.memory_keyring import MemoryKeyring


async def test_a_chat_goes_to_the_openai_compatible_url_set_in_settings(tmp_path: Path) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    server = ReplayServer().start()
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    workspace = await Workspace.open(tmp_path)
    try:
        thread = await workspace.threads.create(model="openai:gpt-4o-mini")
        # first with the default URL: no key for the hosted service, nothing is sent anywhere
        state = await (await workspace.runs.send(thread.id, "Hi"))
        assert state is not None and "openai/api-key" in state.context[-1].text() + str(
            [getattr(b, "code", "") for b in state.context[-1].content]
        )
        assert server.requests == []

        settings = workspace.settings.current.model_copy(update={"openai_url": f"{server.url}/v1/"})
        await workspace.settings.save(settings)
        state = await (await workspace.runs.send(thread.id, "Hi again"))
        assert state is not None and state.context[-1].text() == "Hello, world!"
        assert [r["path"] for r in server.requests] == ["/v1/chat/completions"]
        assert (
            AppSettings.model_validate_json((tmp_path / "settings.json").read_text()).openai_url
            == f"{server.url}/v1/"
        )
    finally:
        await workspace.aclose()
        server.stop()
        keyring.set_keyring(previous)
