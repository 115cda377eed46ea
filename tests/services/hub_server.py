"""A real HTTP server on 127.0.0.1 that serves model files the way the model hub does.

``/{repo}/resolve/{revision}/{file}`` answers ``302 Found`` to a content-server path, with the
file's SHA-256 in ``X-Linked-Etag`` and its size in ``X-Linked-Size``; the content path honours
``Range: bytes=N-`` with ``206 Partial Content``. Faults: drop the connection after some bytes
(for the next few requests), publish a wrong checksum, ignore ranges, send the body chunked
with no length, drip it a byte at a time, send malformed or other size headers, or redirect
somewhere else.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class HostedFile:
    """One file on the hub, and the faults to serve it with."""

    data: bytes
    published_sha256: str = ""
    drop_after: int | None = None
    """Close the connection after sending this many bytes of a reply ..."""
    drops: int = 0
    """... for this many replies."""
    honour_range: bool = True
    linked_size: str | None = None
    """The ``X-Linked-Size`` value ("" for none; default: the data's length)."""
    content_length: str | None = None
    """A ``Content-Length`` value sent instead of the body's length."""
    content_range: str | None = None
    """A ``Content-Range`` value sent instead of the true one ("" for none)."""
    chunked: bool = False
    """Send the body chunked, with no ``Content-Length``."""
    drip: float | None = None
    """Send the body one byte at a time, this many seconds apart."""
    redirect: str | None = None
    """Where the file's address redirects instead of the content path."""

    def __post_init__(self) -> None:
        self.published_sha256 = self.published_sha256 or hashlib.sha256(self.data).hexdigest()


@dataclass
class HubServer:
    """Start with :meth:`start`, stop with :meth:`stop`; ``requests`` logs (path, Range)."""

    files: dict[str, HostedFile] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The server's base address."""
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def host(self, repo: str, filename: str, file: HostedFile, revision: str = "main") -> None:
        """Serve ``file`` at ``/{repo}/resolve/{revision}/{filename}``."""
        self.files[f"/{repo}/resolve/{revision}/{filename}"] = file

    def start(self, address: str = "127.0.0.1") -> HubServer:
        """Listen on a free port on ``address``."""
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                pass

            def do_GET(self) -> None:
                hub.requests.append((self.path, self.headers.get("Range", "")))
                if self.path in hub.files:
                    f = hub.files[self.path]
                    self.send_response(302)
                    cdn = f"/cdn/{f.published_sha256}{self.path}"
                    self.send_header("Location", f.redirect or cdn)
                    self.send_header("X-Linked-Etag", f'"{f.published_sha256}"')
                    size = str(len(f.data)) if f.linked_size is None else f.linked_size
                    if size:
                        self.send_header("X-Linked-Size", size)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                match = re.fullmatch(r"/cdn/[0-9a-f]{64}(/.*)", self.path)
                if match is None or match.group(1) not in hub.files:
                    self.send_error(404, "Entry not found")
                    return
                self._serve(hub.files[match.group(1)])

            def _serve(self, f: HostedFile) -> None:
                start = 0
                wanted = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range", ""))
                if wanted and f.honour_range:
                    start = int(wanted.group(1))
                    if start >= len(f.data):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(f.data)}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    self.send_response(206)
                    whole = f"bytes {start}-{len(f.data) - 1}/{len(f.data)}"
                    if f.content_range != "":
                        self.send_header("Content-Range", f.content_range or whole)
                else:
                    self.send_response(200)
                body = f.data[start:]
                if f.chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                else:
                    self.send_header("Content-Length", f.content_length or str(len(body)))
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                if f.chunked:
                    self._chunked(body)
                    return
                if f.drip is not None:
                    self._drip(body, f.drip)
                    return
                if f.drops > 0 and f.drop_after is not None:
                    f.drops -= 1
                    self.wfile.write(body[: f.drop_after])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def _chunked(self, body: bytes) -> None:
                for i in range(0, len(body), 65536):
                    piece = body[i : i + 65536]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")

            def _drip(self, body: bytes, seconds: float) -> None:
                for i in range(len(body)):
                    self.wfile.write(body[i : i + 1])
                    self.wfile.flush()
                    time.sleep(seconds)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client hanging up mid-file is part of the tests

        self._server = Server((address, 0), Handler)
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def serving() -> Iterator[HubServer]:
    """A started hub, stopped when the generator is closed (a fixture's body)."""
    server = HubServer().start()
    try:
        yield server
    finally:
        server.stop()
