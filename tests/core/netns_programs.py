"""The two programs of the private-network test, run as ``python netns_programs.py MODE``.

``listen LOG``: another computer (192.0.2.1 and 10.231.0.2, in its own network namespace)
listening for DNS and datagrams on UDP 53 and 9 and for connections on TCP 53 and 9; it
writes one line per packet or connection to ``LOG`` and prints ``ready`` once listening.

``probe``: Parley's gate, offline, asked to reach that computer every way there is; it prints
one JSON object: each way's exception (class and text), and then, online again, the control
packets that show the other computer is reachable from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import selectors
import socket
import sys
from collections.abc import Callable
from pathlib import Path

OTHER = "192.0.2.1"
"""The other computer's address (a documentation address, given to it in its namespace)."""


def listen(log: Path) -> None:
    """Log every datagram and connection that arrives, until killed."""
    chooser = selectors.DefaultSelector()
    for port in (53, 9):
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("0.0.0.0", port))
        chooser.register(udp, selectors.EVENT_READ, f"udp {port}")
        tcp = socket.create_server(("0.0.0.0", port))
        chooser.register(tcp, selectors.EVENT_READ, f"tcp {port}")
    print("ready", flush=True)
    while True:
        for key, _ in chooser.select():
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            if sock.type == socket.SOCK_DGRAM:
                data, sender = sock.recvfrom(65536)
                line = f"{key.data} from {sender[0]}: {data!r}"
            else:
                conn, sender = sock.accept()
                conn.close()
                line = f"{key.data} connection from {sender[0]}"
            with log.open("a") as out:
                out.write(line + "\n")


def _ways(udp: socket.socket, tcp: socket.socket) -> dict[str, Callable[[], object]]:
    class Subclassed(socket.socket):
        """A library's own socket class."""

    return {
        "sendto": lambda: udp.sendto(b"leak sendto", (OTHER, 9)),
        "sendto by name": lambda: udp.sendto(b"leak sendto", ("sendto.leak.example", 9)),
        "sendmsg": lambda: udp.sendmsg([b"leak sendmsg"], [], 0, (OTHER, 9)),
        "sendmsg by name": lambda: udp.sendmsg([b"leak"], [], 0, ("sendmsg.leak.example", 9)),
        "udp connect": lambda: udp.connect((OTHER, 9)),
        "connect by name": lambda: tcp.connect(("connect.leak.example", 9)),
        "connect_ex by name": lambda: tcp.connect_ex(("connectex.leak.example", 9)),
        "subclass connect by name": lambda: Subclassed().connect(("sub.leak.example", 9)),
        "tcp connect": lambda: socket.create_connection((OTHER, 9), timeout=3),
        "create_connection by name": lambda: socket.create_connection(("cc.leak.example", 9)),
        "gethostbyname": lambda: socket.gethostbyname("ghbn.leak.example"),
        "gethostbyname_ex": lambda: socket.gethostbyname_ex("ghbnex.leak.example"),
        "gethostbyaddr": lambda: socket.gethostbyaddr(OTHER),
        "getnameinfo": lambda: socket.getnameinfo((OTHER, 9), 0),
        "getaddrinfo": lambda: socket.getaddrinfo("gai.leak.example", 9),
        "asyncio": lambda: asyncio.run(_asyncio_ways()),
    }


async def _asyncio_ways() -> None:
    loop = asyncio.get_running_loop()
    errors: list[Exception] = []

    class Datagrams(asyncio.DatagramProtocol):
        def error_received(self, exc: Exception) -> None:
            errors.append(exc)

    for opening in (
        lambda: loop.create_connection(asyncio.Protocol, "aio.leak.example", 9),
        lambda: loop.create_datagram_endpoint(Datagrams, remote_addr=(OTHER, 9)),
        lambda: loop.getaddrinfo("aiogai.leak.example", 9),
    ):
        try:
            await opening()
        except OSError as exc:
            errors.append(exc)
    transport, _ = await loop.create_datagram_endpoint(Datagrams, local_addr=("127.0.0.1", 0))
    transport.sendto(b"leak asyncio", (OTHER, 9))
    transport.sendto(b"leak asyncio", ("aiosend.leak.example", 9))
    transport.close()
    kinds = {type(e).__name__ for e in errors}
    if len(errors) != 5 or kinds != {"OfflineRefusal"}:
        raise AssertionError(f"asyncio: {[repr(e) for e in errors]}")
    raise errors[0]


def probe() -> None:
    """Try every way out offline, then send the controls online."""
    from app.core.netgate import GATE, install

    install()
    GATE.offline = True
    outcome: dict[str, list[str]] = {}
    with (
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp,
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp,
    ):
        tcp.settimeout(3)
        for what, way in _ways(udp, tcp).items():
            try:
                way()
                outcome[what] = ["nothing", "it went through"]
            except BaseException as exc:
                outcome[what] = [type(exc).__name__, str(exc)]
    GATE.offline = False
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.sendto(b"control", (OTHER, 9))
    with contextlib.suppress(OSError):  # the other computer does not answer, it only notes
        socket.gethostbyname("control.example")
    print(json.dumps(outcome))


if __name__ == "__main__":
    if sys.argv[1] == "listen":
        listen(Path(sys.argv[2]))
    else:
        probe()
