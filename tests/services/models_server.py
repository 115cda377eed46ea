"""A real HTTP server on 127.0.0.1 that lists models the way Ollama, OpenAI-compatible servers
and Anthropic do, and refuses requests without the expected key when one is required."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def models_server(key: str | None = None, *, asked: list[str] | None = None) -> Iterator[str]:
    """Serve ``/api/tags``, ``/models``, ``/v1/models``; yield the base URL. Each path asked
    for is added to ``asked`` when given."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            headers = dict(self.headers.items())
            seen.append(headers)
            if asked is not None:
                asked.append(self.path)
            given = headers.get("x-api-key") or headers.get("Authorization", "").removeprefix(
                "Bearer "
            )
            body: dict[str, Any] | None = {
                "/api/tags": {"models": [{"name": "llama3"}, {"name": "qwen"}]},
                "/models": {"data": [{"id": "gpt-x"}]},
                "/v1/models": {"data": [{"id": "claude-x"}, {"id": "claude-y"}, {"id": "z"}]},
            }.get(self.path)
            if body and key is not None and self.path != "/api/tags" and given != key:
                self._send(401, {"error": "invalid key"})
                return
            self._send(200 if body else 404, body or {"error": "not found"})

        def _send(self, code: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
