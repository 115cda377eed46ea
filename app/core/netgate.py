"""One gate for every connection this process opens: it records each and, offline, refuses
every one that is not to this computer.

The gate is a Python audit hook (:func:`sys.addaudithook`): CPython raises the
``socket.connect``, ``socket.sendto``, ``socket.sendmsg`` and lookup events
(``getaddrinfo``, ``gethostbyname``, ``gethostbyaddr``, ``getnameinfo``) inside the socket
module itself, so every library that opens a socket from Python (the provider SDKs, httpx,
asyncio, a raw ``socket.create_connection``) passes through it, and nothing can go around it
from inside the process. A hook cannot be removed once installed, so :func:`install` is
called once and the gate's state (offline or not, who listens) is changed through
:data:`GATE`.

CPython looks up a host name given straight to ``connect``, ``connect_ex``, ``sendto``,
``sendmsg`` or ``bind`` before it raises the event, so offline those methods of
:class:`socket.socket` (and so of every subclass, ``ssl``'s and asyncio's sockets included)
first refuse a name other than ``localhost`` without looking it up; and offline an internet
socket cannot be made from ``_socket`` directly, around :class:`socket.socket`.

What a connection is for comes from :func:`purpose`, a context variable the code opening it
sets ("the model openai:gpt-4o-mini", "downloading qwen2.5-1.5b"); a connection opened with
none is recorded as ``unlabelled``. Only the address, the purpose and the outcome are
recorded: never what is sent, never a key.

Local means ``127.0.0.1``, ``::1`` and local (Unix) sockets. Every other address, other
loopback addresses such as ``127.0.0.2`` included, counts as remote.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import ipaddress
import os
import socket
import struct
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "GATE",
    "Connection",
    "NetworkGate",
    "OfflineRefusal",
    "install",
    "is_local_host",
    "purpose",
    "refusal_in",
]

LOCAL_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
"""Hosts that are this computer (``localhost`` only as a name to look up)."""

_purpose: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "parley_network_purpose", default=None
)

Outcome = Literal["allowed", "refused", "unanswered"]
"""``unanswered``: allowed, but the other end never took the connection (nothing listens there,
or it did not answer), as found when its socket closed."""


@dataclass(frozen=True)
class Connection:
    """One connection the gate saw (or one name it was asked to look up and refused)."""

    time: float
    """When (``time.time()``)."""
    host: str
    """The address connected to (a path for a local socket)."""
    port: int | None
    purpose: str
    """What it was for, as the code that opened it said (``unlabelled`` when it did not)."""
    local: bool
    """To this computer (``127.0.0.1``, ``::1`` or a local socket)."""
    outcome: Outcome
    kind: Literal["connect", "lookup", "request"] = "connect"
    """``request``: a request a client sent to ``parley serve`` (``host`` and ``port`` are
    the client's; ``purpose`` says the key, the model, the tokens and the outcome)."""
    ref: str = ""
    """Unique to this connection (process and number): a later byte count names it."""
    sent: int | None = None
    """Bytes sent (acknowledged by the other end), once the connection closed; ``None``
    while open or where the system does not say."""
    received: int | None = None
    """Bytes received, likewise."""


class OfflineRefusal(ConnectionRefusedError):
    """Offline, a connection to another computer was refused before any byte was sent.

    A :class:`ConnectionRefusedError` (an :class:`OSError`), so every library reports it as
    the connection failure it is; its text is the sentence a person reads.
    """


def refusal_in(exc: BaseException | None) -> OfflineRefusal | None:
    """The offline refusal behind ``exc`` (itself, its causes, or inside an exception group,
    as libraries wrap a failed connect), or ``None``."""
    stack, seen = [exc], set()
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, OfflineRefusal):
            return item
        stack += [item.__cause__, item.__context__]
        if isinstance(item, BaseExceptionGroup):
            stack += list(item.exceptions)
    return None


def is_local_host(host: str) -> bool:
    """Whether ``host`` (an address, or ``localhost``) is this computer."""
    return host.strip("[]").lower() in LOCAL_HOSTS


class purpose:  # used as a function: ``with purpose("..."):``
    """Connections opened inside the block (in this task or thread, and in tasks and
    ``asyncio.to_thread`` calls started from it) are recorded as being for ``label``.

    A class rather than a generator: every tool call enters one, and this costs a third."""

    __slots__ = ("_label", "_token")

    def __init__(self, label: str) -> None:
        self._label = label

    def __enter__(self) -> None:
        self._token = _purpose.set(self._label)

    def __exit__(self, *exc: object) -> None:
        _purpose.reset(self._token)


Listener = Callable[[Connection], None]


class NetworkGate:
    """The gate's state: offline or not, the connections of this session, and listeners."""

    def __init__(self, keep: int = 1000) -> None:
        self.offline = False
        self.session: deque[Connection] = deque(maxlen=keep)
        """The latest connections of this process, oldest first."""
        self.count = 0
        """How many connections this process has made or tried (refused ones included)."""
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._open: dict[int, tuple[weakref.ref[Any], Connection]] = {}
        self._serial = 0
        self._started = int(time.time())

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with each connection from now on (on the thread that opens it;
        it must be quick and must not raise), and again, with its byte counts and the same
        :attr:`Connection.ref`, when it closes; returns the unsubscribe call."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def refusal(
        self, host: str, port: int | None, label: str | None, verb: str = "connect to"
    ) -> OfflineRefusal:
        """The error an offline refusal raises, in one sentence."""
        where = f"{host}:{port}" if port is not None else host
        why = f" for {label}" if label else ""
        return OfflineRefusal(
            f"Parley is offline, so it did not {verb} {where}{why}. To allow it, turn "
            f"offline mode off (Settings > Network, or run without --offline and "
            f"PARLEY_OFFLINE)."
        )

    def _record(self, connection: Connection) -> None:
        with self._lock:
            self.session.append(connection)
            self.count += 1
        self._notify(connection)

    def _notify(self, connection: Connection) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            with contextlib.suppress(Exception):  # a listener must never break a connect
                listener(connection)

    def on_connect(self, address: Any, family: int | None, sock: Any = None) -> None:
        """Record (and offline, refuse) a connection to ``address``; a TCP connection that
        is let through is counted in bytes when ``sock`` closes."""
        label = _purpose.get()
        host, port, local = _where(address, family)
        refused = self.offline and not local
        connection = Connection(
            time.time(),
            host,
            port,
            label or "unlabelled",
            local,
            "refused" if refused else "allowed",
            ref=self._next_ref(),
        )
        self._record(connection)
        if refused:
            raise self.refusal(host, port, label)
        if sock is not None and port is not None and _counts_bytes(sock):
            with self._lock:
                self._open[id(sock)] = (weakref.ref(sock), connection)

    def on_send(self, address: Any, family: int | None) -> None:
        """Offline, refuse sending a datagram to another computer (recorded as refused);
        datagrams let through are not recorded one by one."""
        if not self.offline or address is None:
            return
        host, port, local = _where(address, family)
        if local:
            return
        label = _purpose.get()
        self._record(
            Connection(
                time.time(),
                host,
                port,
                label or "unlabelled",
                False,
                "refused",
                ref=self._next_ref(),
            )
        )
        raise self.refusal(host, port, label, "send to")

    def on_name(self, sock: Any, address: Any) -> Any:
        """The address to give ``sock``'s ``connect``, ``sendto``, ``sendmsg`` or ``bind``:
        online, ``address`` itself; offline, a host name other than ``localhost`` is refused
        before the system looks it up (which it would do before any audit event), and
        ``localhost`` is looked up here, through the gate, so the address that is checked is
        the one connected to."""
        if not self.offline or not _named(sock, address):
            return address
        host = address[0].decode() if isinstance(address[0], bytes) else str(address[0])
        if host.lower() != "localhost":
            self.on_lookup(host, address[1])  # refuses, recorded as a refused lookup
            return address
        found = socket.getaddrinfo(host, address[1], sock.family, sock.type)
        return found[0][4]

    def _next_ref(self) -> str:
        with self._lock:
            self._serial += 1
            return f"{os.getpid()}:{self._started}:{self._serial}"

    def on_close(self, sock: Any) -> None:
        """Count the bytes of a recorded connection as its socket closes."""
        with self._lock:
            entry = self._open.pop(id(sock), None)
        if entry is None or entry[0]() is not sock:
            return
        counted = _tcp_bytes(sock)
        if counted is not None:
            sent, received, answered = counted
            outcome = entry[1].outcome if answered else "unanswered"
            done = dataclasses.replace(entry[1], sent=sent, received=received, outcome=outcome)
            self._updated(done)

    def _updated(self, connection: Connection) -> None:
        with self._lock:
            for i in range(len(self.session) - 1, -1, -1):
                if self.session[i].ref == connection.ref:
                    self.session[i] = connection
                    break
        self._notify(connection)

    def on_lookup(self, host: Any, port: Any) -> None:
        """Offline, refuse looking up the address of another computer (the question itself
        would leave the computer); lookups are not recorded otherwise."""
        if not self.offline or host is None:
            return
        name = host.decode(errors="replace") if isinstance(host, bytes) else str(host)
        if is_local_host(name) or not name:
            return
        label = _purpose.get()
        number = port if isinstance(port, int) else None
        self._record(
            Connection(time.time(), name, number, label or "unlabelled", False, "refused", "lookup")
        )
        raise self.refusal(name, number, label)


GATE = NetworkGate()
"""The process's gate."""


def _where(address: Any, family: int | None) -> tuple[str, int | None, bool]:
    """The host, port and whether it is this computer, of a socket address."""
    if family == getattr(socket, "AF_UNIX", None) or isinstance(address, str | bytes):
        path = address.decode(errors="replace") if isinstance(address, bytes) else address
        return str(path) or "(unnamed local socket)", None, True
    if family == getattr(socket, "AF_NETLINK", None):
        return f"the system's kernel ({address!r})", None, True
    if isinstance(address, tuple) and len(address) >= 2:
        host, port = str(address[0]), int(address[1])
        return host, port, is_local_host(host) and host != "localhost"
    return repr(address), None, False


_INTERNET = (socket.AF_INET, socket.AF_INET6)


def _named(sock: Any, address: Any) -> bool:
    """Whether ``address`` names its host (the system would look the name up) on the
    internet socket ``sock``, rather than giving an address."""
    if getattr(sock, "family", None) not in _INTERNET or not isinstance(address, tuple):
        return False
    if len(address) < 2 or not isinstance(address[0], str | bytes | bytearray):
        return False
    host = address[0].decode(errors="replace") if not isinstance(address[0], str) else address[0]
    if host in ("", "<broadcast>"):  # the system's own words for any and broadcast
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return True
    return False


_installed = False
_install_lock = threading.Lock()


def _counts_bytes(sock: Any) -> bool:
    return getattr(sock, "type", None) == socket.SOCK_STREAM and getattr(sock, "family", None) in (
        socket.AF_INET,
        socket.AF_INET6,
    )


_TCP_INFO = getattr(socket, "TCP_INFO", None)
_BYTES = struct.Struct("=QQ")  # tcpi_bytes_acked, tcpi_bytes_received (Linux's tcp_info)
_BYTES_AT = 120


def _tcp_bytes(sock: Any) -> tuple[int, int, bool] | None:
    """Bytes sent (acknowledged) and received on ``sock``, and whether the other end ever
    took the connection (acknowledged its opening), where the system says."""
    if _TCP_INFO is None:
        return None
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 256)
    except OSError:
        return None
    if len(info) < _BYTES_AT + _BYTES.size:
        return None
    acked, received = _BYTES.unpack_from(info, _BYTES_AT)
    # the SYN counts as one byte acked: none acked, and the connection was never made
    return max(int(acked) - 1, 0), int(received), int(acked) > 0


_real_close = socket.socket.close


def _close(self: socket.socket) -> None:
    # a recorded connection is counted in bytes as it closes (close is Python code, so this
    # is the one place every library's socket passes on its way out)
    if GATE._open:
        GATE.on_close(self)
    _real_close(self)


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_sendto = socket.socket.sendto
_real_sendmsg = socket.socket.sendmsg
_real_bind = socket.socket.bind


def _connect(self: socket.socket, address: Any) -> None:
    _real_connect(self, GATE.on_name(self, address))


def _connect_ex(self: socket.socket, address: Any) -> int:
    return _real_connect_ex(self, GATE.on_name(self, address))


def _sendto(self: socket.socket, data: Any, *args: Any) -> int:
    # sendto(data, address) or sendto(data, flags, address)
    if args:
        args = (*args[:-1], GATE.on_name(self, args[-1]))
    return _real_sendto(self, data, *args)


def _sendmsg(self: socket.socket, buffers: Any, *args: Any) -> int:
    # sendmsg(buffers[, ancdata[, flags[, address]]])
    if len(args) >= 3 and args[2] is not None:
        args = (*args[:2], GATE.on_name(self, args[2]), *args[3:])
    return _real_sendmsg(self, buffers, *args)


def _bind(self: socket.socket, address: Any) -> None:
    _real_bind(self, GATE.on_name(self, address))


def _on_new(args: tuple[Any, ...]) -> None:
    """Offline, refuse an internet socket made from ``_socket`` around :class:`socket.socket`
    (where a name given to ``connect`` would be looked up before the gate sees it)."""
    sock, family = args[0], args[1]
    if GATE.offline and not isinstance(sock, socket.socket) and family in (*_INTERNET, -1):
        raise OfflineRefusal(
            "Parley is offline, so it did not make a network socket outside Python's socket "
            "module. To allow it, turn offline mode off (Settings > Network, or run without "
            "--offline and PARLEY_OFFLINE)."
        )


def _on_event(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.connect":
        sock, address = args
        GATE.on_connect(address, getattr(sock, "family", None), sock)
    elif event == "socket.getaddrinfo":
        GATE.on_lookup(args[0], args[1])
    elif event in ("socket.sendto", "socket.sendmsg"):
        sock, address = args
        GATE.on_send(address, getattr(sock, "family", None))
    elif event in ("socket.gethostbyname", "socket.gethostbyaddr"):
        GATE.on_lookup(args[0], None)
    elif event == "socket.getnameinfo":
        where = args[0]
        GATE.on_lookup(where[0] if isinstance(where, tuple) and where else where, None)
    elif event == "socket.__new__":
        _on_new(args)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    # called for every audit event in the process: keep the common path to one comparison
    if event.startswith("socket."):
        _on_event(event, args)


def install() -> NetworkGate:
    """Install the gate's audit hook (once per process) and return the gate."""
    global _installed
    with _install_lock:
        if not _installed:
            sys.addaudithook(_hook)
            socket.socket.close = _close  # type: ignore[method-assign,assignment]
            socket.socket.connect = _connect  # type: ignore[method-assign,assignment]
            socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign,assignment]
            socket.socket.sendto = _sendto  # type: ignore[method-assign,assignment]
            socket.socket.sendmsg = _sendmsg  # type: ignore[method-assign,assignment]
            socket.socket.bind = _bind  # type: ignore[method-assign,assignment]
            _installed = True
    return GATE
