"""The network gate, against real sockets: every connection is recorded with its purpose,
and offline every one that is not to this computer is refused before a byte is sent
(127.0.0.2 stands in for a remote host), whichever library opens it."""

from __future__ import annotations

import asyncio
import select
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.core.netgate import GATE, Connection, OfflineRefusal, install, purpose


class Seen(list[Connection]):
    """What the gate reported, one entry per connection (its latest report: with byte
    counts once it closed), in the order they were opened; ``reports`` has every call."""

    def __init__(self) -> None:
        super().__init__()
        self.reports: list[Connection] = []

    def __call__(self, connection: Connection) -> None:
        self.reports.append(connection)
        for i, known in enumerate(self):
            if known.ref == connection.ref:
                self[i] = connection
                return
        self.append(connection)


@pytest.fixture
def gate() -> Iterator[Seen]:
    """The installed gate, online; what it records during the test."""
    install()
    seen = Seen()
    unsubscribe = GATE.subscribe(seen)
    try:
        yield seen
    finally:
        unsubscribe()
        GATE.offline = False


@pytest.fixture
def remote() -> Iterator[socket.socket]:
    """A listening socket on 127.0.0.2, a stand-in for another computer."""
    server = socket.create_server(("127.0.0.2", 0))
    try:
        yield server
    finally:
        server.close()


def _connections_waiting(server: socket.socket) -> bool:
    ready, _, _ = select.select([server], [], [], 0.2)
    return bool(ready)


def test_a_connection_is_recorded_with_its_purpose(gate: Seen, remote: socket.socket) -> None:
    port = remote.getsockname()[1]
    with purpose("the model openai:test"), socket.create_connection(("127.0.0.2", port)):
        pass
    (seen,) = gate
    assert (seen.host, seen.port, seen.purpose) == ("127.0.0.2", port, "the model openai:test")
    assert seen.outcome == "allowed" and seen.kind == "connect"
    assert not seen.local  # another loopback address counts as remote
    assert _connections_waiting(remote)
    assert GATE.session[-1] == seen


def test_offline_refuses_a_raw_socket_before_any_byte(gate: Seen, remote: socket.socket) -> None:
    port = remote.getsockname()[1]
    GATE.offline = True
    with pytest.raises(OfflineRefusal) as refused, purpose("a direct library call"):
        socket.create_connection(("127.0.0.2", port), timeout=2)
    assert str(refused.value) == (
        f"Parley is offline, so it did not connect to 127.0.0.2:{port} for a direct library "
        "call. To allow it, turn offline mode off (Settings > Network, or run without "
        "--offline and PARLEY_OFFLINE)."
    )
    assert not _connections_waiting(remote), "the remote host saw a connection"
    assert [(c.host, c.outcome) for c in gate] == [("127.0.0.2", "refused")]


def test_offline_refuses_httpx_and_asyncio_and_lets_local_through(
    gate: Seen, remote: socket.socket
) -> None:
    port = remote.getsockname()[1]
    local = socket.create_server(("127.0.0.1", 0))
    GATE.offline = True
    try:
        with pytest.raises(httpx.ConnectError, match="Parley is offline"):
            httpx.get(f"http://127.0.0.2:{port}/", timeout=2)

        async def both() -> None:
            with pytest.raises(OfflineRefusal):
                await asyncio.open_connection("127.0.0.2", port)
            _reader, writer = await asyncio.open_connection("127.0.0.1", local.getsockname()[1])
            writer.close()
            await writer.wait_closed()

        asyncio.run(both())
        assert not _connections_waiting(remote)
        assert _connections_waiting(local)
    finally:
        local.close()
    assert [(c.host, c.local, c.outcome) for c in gate] == [
        ("127.0.0.2", False, "refused"),
        ("127.0.0.2", False, "refused"),
        ("127.0.0.1", True, "allowed"),
    ]


def test_offline_refuses_looking_up_another_computer_but_not_localhost(
    gate: Seen,
) -> None:
    GATE.offline = True
    with pytest.raises(OfflineRefusal, match="did not connect to example.invalid:443"):
        socket.getaddrinfo("example.invalid", 443)
    assert socket.getaddrinfo("localhost", 80)
    assert [(c.host, c.kind, c.outcome) for c in gate] == [("example.invalid", "lookup", "refused")]


def test_a_local_socket_is_local_and_allowed_offline(gate: Seen, tmp_path: Path) -> None:
    path = str(tmp_path / "s")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()
    GATE.offline = True
    try:
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(path)
    finally:
        server.close()
    (seen,) = gate
    assert (seen.host, seen.local, seen.outcome) == (path, True, "allowed")


async def test_the_purpose_follows_into_worker_threads_and_tasks(
    gate: Seen, remote: socket.socket
) -> None:
    port = remote.getsockname()[1]

    def connect() -> None:
        socket.create_connection(("127.0.0.2", port)).close()

    with purpose("downloading tiny"):
        await asyncio.to_thread(connect)
        await asyncio.create_task(asyncio.to_thread(connect))
    await asyncio.to_thread(connect)
    assert [c.purpose for c in gate] == ["downloading tiny", "downloading tiny", "unlabelled"]


def test_a_closed_connection_is_counted_in_bytes(gate: Seen, remote: socket.socket) -> None:
    port = remote.getsockname()[1]
    client = socket.create_connection(("127.0.0.2", port))
    server_side, _ = remote.accept()
    client.sendall(b"x" * 3000)
    got = b""
    while len(got) < 3000:
        got += server_side.recv(65536)
    server_side.sendall(b"y" * 1234)
    received = b""
    while len(received) < 1234:
        received += client.recv(65536)
    client.close()
    server_side.close()
    opened, closed = gate.reports
    assert opened.ref == closed.ref and opened.sent is None
    assert (closed.sent, closed.received) == (3000, 1234)
    assert GATE.session[-1] == closed  # the session's entry has its counts too
