"""A real HTTP server on 127.0.0.1 that replays recorded provider replies, faults included.

Queue replies per path; each request takes the next one (the last one repeats). A reply can
stream its body in chunks, stop mid-message by closing the socket, or wait before answering.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-reply is what several fault tests do on purpose: no
    traceback for it. Anything else is still reported."""

    replay: ReplayServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@dataclass
class Reply:
    """One scripted HTTP reply."""

    status: int = 200
    chunks: list[bytes] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"
    cut_after: int | None = None
    """Close the connection after this many chunks, without finishing the body."""
    delay: float = 0.0


def sse_events(name: str) -> list[bytes]:
    """A recorded SSE fixture split into its events (one chunk per event)."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [(e.strip("\n") + "\n\n").encode() for e in text.split("\n\n") if e.strip()]


def lines(name: str) -> list[bytes]:
    """A recorded NDJSON fixture, one chunk per line."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [(line + "\n").encode() for line in text.splitlines() if line.strip()]


def json_reply(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    """A whole JSON reply."""
    body = json.dumps(data).encode()
    return Reply(status, [body], headers or {}, "application/json")


class _ReplayHandler(BaseHTTPRequestHandler):
    """Answers each request with the next reply its :class:`ReplayServer` has queued."""

    protocol_version = "HTTP/1.1"
    server: _QuietServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        reply = self.server.replay.take(self.path.split("?")[0], self.headers.items(), raw)
        if reply.delay and self.server.replay.stopping.wait(reply.delay):
            return
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        """Write ``reply``'s status, headers and chunks, or cut the connection where it says."""
        self.send_response(reply.status)
        self.send_header("content-type", reply.content_type)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for i, piece in enumerate(reply.chunks):
            if reply.cut_after is not None and i >= reply.cut_after:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_GET = _serve
    do_POST = _serve


class ReplayServer:
    """Serves queued :class:`Reply` objects; records each request's path, headers and JSON."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.replies: dict[str, list[Reply]] = {}
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = _QuietServer((host, 0), _ReplayHandler)
        self._server.replay = self
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def take(self, path: str, headers: list[tuple[str, str]], raw: bytes) -> Reply:
        """Record a request to ``path`` and return the reply it gets: the next one queued
        for ``path`` (the last one repeats), or a 404."""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        with self._lock:
            self.requests.append(
                {
                    "path": path,
                    "headers": {k.lower(): v for k, v in headers},
                    "json": body,
                    "raw": raw,
                }
            )
            queue = self.replies.get(path) or [Reply(404, [b'{"error":"no route"}'])]
            return queue.pop(0) if len(queue) > 1 else queue[0]

    @property
    def url(self) -> str:
        """The server's base URL."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, path: str, *replies: Reply) -> None:
        """Queue replies for ``path``."""
        self.replies.setdefault(path, []).extend(replies)

    def start(self) -> ReplayServer:
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket."""
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def free_port() -> int:
    """A port nothing listens on (bound, read, released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
