"""The network gate, against real sockets: every connection is recorded with its purpose,
and offline every one that is not to this computer is refused before a byte is sent
(127.0.0.2 stands in for a remote host), whichever library opens it."""

from __future__ import annotations

import asyncio
import select
import socket
import ssl
from collections.abc import Callable, Iterator
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


def test_a_connection_nothing_took_closes_as_unanswered(gate: Seen) -> None:
    spare = socket.create_server(("127.0.0.2", 0))
    port = spare.getsockname()[1]
    spare.close()  # nothing listens there now
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.2", port), timeout=5)
    opened, closed = gate.reports
    assert opened.outcome == "allowed" and closed.outcome == "unanswered"
    assert (closed.sent, closed.received) == (0, 0)
    assert GATE.session[-1] == closed


@pytest.fixture
def remote_udp() -> Iterator[socket.socket]:
    """A UDP socket listening on 127.0.0.2, a stand-in for another computer."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.2", 0))
    try:
        yield server
    finally:
        server.close()


def test_offline_refuses_datagrams_to_another_computer_before_one_leaves(
    gate: Seen, remote_udp: socket.socket
) -> None:
    where = remote_udp.getsockname()
    local = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    local.bind(("127.0.0.1", 0))
    GATE.offline = True
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, local:
        sends: dict[str, Callable[[], object]] = {
            "sendto": lambda: udp.sendto(b"leak", where),
            "sendto with flags": lambda: udp.sendto(b"leak", 0, where),
            "sendmsg": lambda: udp.sendmsg([b"leak"], [], 0, where),
            "a documentation address": lambda: udp.sendto(b"leak", ("192.0.2.1", 9)),
            "connect": lambda: udp.connect(where),
        }
        for what, send in sends.items():
            with pytest.raises(OfflineRefusal, match="Parley is offline, so it did not"):
                send()
            assert not _connections_waiting(remote_udp), f"{what} reached the other computer"
        udp.sendto(b"here", local.getsockname())  # this computer stays reachable
        assert local.recv(16) == b"here"
        assert str(_refusal(lambda: udp.sendto(b"x", ("192.0.2.1", 9)))).startswith(
            "Parley is offline, so it did not send to 192.0.2.1:9. To allow it,"
        )
    assert [c.outcome for c in gate] == ["refused"] * 6


def _refusal(call: Callable[[], object]) -> OfflineRefusal:
    with pytest.raises(OfflineRefusal) as refused:
        call()
    return refused.value


def test_offline_refuses_a_name_given_straight_to_a_socket_without_looking_it_up(
    gate: Seen,
) -> None:
    local = socket.create_server(("127.0.0.1", 0))
    port = local.getsockname()[1]

    class Subclassed(socket.socket):
        """A library's own socket class."""

    GATE.offline = True
    tls = ssl.create_default_context().wrap_socket(socket.socket(), server_hostname="x.invalid")
    with (
        local,
        tls,
        Subclassed() as subclassed,
        socket.socket() as tcp,
        socket.socket(type=socket.SOCK_DGRAM) as udp,
    ):
        named = ("leak.invalid", 9)
        calls: dict[str, Callable[[], object]] = {
            "connect": lambda: tcp.connect(named),
            "connect_ex": lambda: tcp.connect_ex(named),
            "bind": lambda: udp.bind(named),
            "sendto": lambda: udp.sendto(b"x", named),
            "sendmsg": lambda: udp.sendmsg([b"x"], [], 0, named),
            "a subclass": lambda: subclassed.connect(named),
            "ssl": lambda: tls.connect(named),
            "create_connection": lambda: socket.create_connection(named, timeout=2),
        }
        for what, call in calls.items():
            refused = _refusal(call)  # a lookup would fail with socket.gaierror instead
            assert "did not connect to leak.invalid:9" in str(refused), what
        with socket.socket() as by_name:  # localhost is this computer, by name too
            by_name.connect(("localhost", port))
            assert by_name.getpeername() == ("127.0.0.1", port)
    assert [(c.host, c.outcome) for c in gate][-1] == ("127.0.0.1", "allowed")
    assert {(c.host, c.outcome) for c in gate[:-1]} == {("leak.invalid", "refused")}


def test_offline_refuses_every_way_of_looking_up_a_name_or_an_address(gate: Seen) -> None:
    GATE.offline = True
    lookups: dict[str, Callable[[], object]] = {
        "getaddrinfo": lambda: socket.getaddrinfo("leak.invalid", 443),
        "gethostbyname": lambda: socket.gethostbyname("leak.invalid"),
        "gethostbyname_ex": lambda: socket.gethostbyname_ex("leak.invalid"),
        "gethostbyaddr": lambda: socket.gethostbyaddr("192.0.2.1"),
        "getnameinfo": lambda: socket.getnameinfo(("192.0.2.1", 80), 0),
        "getfqdn": lambda: socket.gethostbyaddr(socket.getfqdn("192.0.2.1")),
    }
    for what, lookup in lookups.items():
        assert "Parley is offline" in str(_refusal(lookup)), what
    assert socket.gethostbyname("localhost") == "127.0.0.1"
    assert {c.kind for c in gate} == {"lookup"}


def test_offline_refuses_asyncio_s_ways_out(gate: Seen, remote_udp: socket.socket) -> None:
    where = remote_udp.getsockname()
    errors: list[Exception] = []

    class Datagrams(asyncio.DatagramProtocol):
        def error_received(self, exc: Exception) -> None:
            errors.append(exc)

    async def ways_out() -> None:
        loop = asyncio.get_running_loop()
        with pytest.raises(OfflineRefusal):
            await loop.create_connection(asyncio.Protocol, "leak.invalid", 9)
        with pytest.raises(OfflineRefusal):
            await loop.getaddrinfo("leak.invalid", 9)
        with pytest.raises(OfflineRefusal):
            await loop.create_datagram_endpoint(Datagrams, remote_addr=where)
        with pytest.raises(OfflineRefusal), socket.socket() as sock:
            sock.setblocking(False)
            await loop.sock_connect(sock, ("leak.invalid", 9))
        transport, _ = await loop.create_datagram_endpoint(Datagrams, local_addr=("127.0.0.1", 0))
        transport.sendto(b"leak", where)
        transport.sendto(b"leak", ("leak.invalid", 9))
        transport.close()

    GATE.offline = True
    asyncio.run(ways_out())
    assert [type(e) for e in errors] == [OfflineRefusal, OfflineRefusal]
    assert not _connections_waiting(remote_udp)


def test_offline_an_internet_socket_cannot_be_made_around_the_socket_module(gate: Seen) -> None:
    import _socket

    GATE.offline = True
    assert "outside Python's socket module" in str(_refusal(lambda: _socket.socket()))
    with socket.socket(socket.AF_UNIX) as unix:  # a local socket is fine either way
        assert unix.family == socket.AF_UNIX
    GATE.offline = False
    _socket.socket().close()
