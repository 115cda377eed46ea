"""Parts of the window asking for the model list at once share one look: a real server on
127.0.0.1 standing in for Ollama says how often it was asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.services.settings import AppSettings
from app.services.workspace import Workspace
from tests.services.models_server import models_server


async def test_the_model_list_asked_at_once_asks_ollama_once(tmp_path: Path) -> None:
    ws = await Workspace.open(
        tmp_path,
        secret_resolver=lambda _r: "",
    )
    try:
        asked: list[str] = []
        with models_server(asked=asked) as url:
            ws.settings.use(AppSettings(default_model="scripted:a", ollama_url=url))
            lists = await asyncio.gather(*(ws.models.choices() for _ in range(3)))
            spec = f"ollama:llama3@{url}"
            assert all(spec in [c.spec for c in listed] for listed in lists)
            assert asked == ["/api/tags"]

            await ws.preferences.set_url("ollama", url + "/")  # a change looks again
            again = await ws.models.choices()
            assert spec in [c.spec for c in again]
            assert asked == ["/api/tags", "/api/tags"]
    finally:
        await ws.aclose()
