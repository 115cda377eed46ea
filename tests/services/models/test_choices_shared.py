"""Parts of the window asking for the model list at once share one look: a real server on
127.0.0.1 standing in for Ollama counts how often it is asked."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from app.services.settings import AppSettings
from app.services.workspace import Workspace


@contextmanager
def counting_ollama() -> Iterator[tuple[str, list[str]]]:
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            data = json.dumps({"models": [{"name": "llama3"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


async def test_the_model_list_asked_at_once_asks_ollama_once(tmp_path: Path) -> None:
    ws = await Workspace.open(
        tmp_path,
        secret_resolver=lambda _r: "",
    )
    try:
        with counting_ollama() as (url, asked):
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
