"""A real HTTP server on a loopback address, in a thread, for the web tool tests."""

from __future__ import annotations

import contextlib
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = b"""<!doctype html><html><head><title>Tide  tables &amp; times</title>
<style>body { color: red }</style><script>var secret = "not text";</script></head>
<body><h1>High tide</h1><p>The next high tide is at <b>14:32</b>.
See <a href="/more">more tables</a>.</p><img src="wave.png" alt="a wave"></body></html>"""


@dataclass
class Served:
    """A running server: its base URL and every request it received (method, path, headers)."""

    host: str
    port: int
    redirect_to: str = ""
    seen: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:8123``."""
        return f"http://{self.host}:{self.port}"


class _Handler(BaseHTTPRequestHandler):
    served: Served

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        with contextlib.suppress(OSError):  # the client gave up (a timeout test)
            self.wfile.write(body)

    def _route(self) -> None:
        self.served.seen.append((self.command, self.path, dict(self.headers.items())))
        length = int(self.headers.get("Content-Length") or 0)
        sent = self.rfile.read(length) if length else b""
        path = self.path
        if path == "/page":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif path == "/latin1":
            self._send(200, "café crème".encode("latin-1"), "text/plain; charset=iso-8859-1")
        elif path == "/oddcharset":
            self._send(200, "naïve".encode(), "text/plain; charset=x-no-such-charset")
        elif path == "/big":
            self._send(200, b"0123456789" * 300_000, "text/plain")
        elif path == "/endless":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            try:
                for _ in range(10_000):
                    self.wfile.write(b"x" * 65536)
            except OSError:
                pass
        elif path == "/slow":
            time.sleep(3)
            self._send(200, b"late", "text/plain")
        elif path == "/image":
            self._send(200, b"\x89PNG\r\n\x1a\n" + bytes(200), "image/png")
        elif path == "/missing":
            self._send(404, b"no such page", "text/plain")
        elif path == "/redirect":
            self._send(302, b"", "text/plain", Location=self.served.redirect_to)
        elif path == "/echo":
            auth = self.headers.get("Authorization", "(none)")
            self._send(200, f"auth={auth} body={sent.decode()}".encode(), "text/plain")
        else:
            self._send(404, b"not found", "text/plain")

    do_GET = _route
    do_POST = _route


@contextmanager
def serve(host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> Iterator[Served]:
    """Serve on ``host`` (a free port) until the block ends; over TLS given a context."""
    served = Served(host, 0)
    handler = type("Handler", (_Handler,), {"served": served})
    server = ThreadingHTTPServer((host, 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    served.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
