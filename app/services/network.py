"""The network ledger and offline mode, for the window and the terminal.

The gate itself (:mod:`app.core.netgate`) sees every connection the process opens; this
service turns offline mode on or off (the user's setting, ``--offline`` or
``PARLEY_OFFLINE=1``) and saves what the gate saw into the store's ledger, in batches and off
the event loop, so a connection costs the turn that opens it nothing but a list append.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import os
import threading
from collections.abc import Callable, Mapping

from app.core.netgate import GATE, Connection, NetworkGate, install
from app.core.userinfo import without_userinfo
from app.services.events import SettingsChanged, WorkspaceEvent
from app.store import Store
from app.text.sizes import human_size

__all__ = [
    "ENV_VAR",
    "NetworkLedger",
    "address_of",
    "byte_counts",
    "describe_connection",
    "forced_offline",
    "outcome_of",
    "saved_connections",
]

log = logging.getLogger(__name__)

ENV_VAR = "PARLEY_OFFLINE"
"""Set to 1 to start offline whatever the settings say."""

FLUSH_SECONDS = 2.0
"""How often the connections seen are written to the ledger."""


def forced_offline(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``PARLEY_OFFLINE`` asks for offline mode."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    return value.strip().lower() in ("1", "true", "yes", "on")


def address_of(connection: Connection) -> str:
    """``host:port``, or the path of a local socket."""
    if connection.port is None:
        return connection.host
    return f"{connection.host}:{connection.port}"


def outcome_of(connection: Connection) -> str:
    """What happened: ``connected``, ``no answer`` (nothing took the connection),
    ``looked up``, ``received`` (a request to ``parley serve``) or ``refused (offline)``."""
    if connection.outcome == "refused":
        return "refused (offline)"
    if connection.outcome == "unanswered":
        return "no answer"
    return {"lookup": "looked up", "request": "received"}.get(connection.kind, "connected")


def describe_connection(connection: Connection) -> str:
    """One line for a person: when, where, what for, and what happened."""
    when = datetime.datetime.fromtimestamp(connection.time).strftime("%Y-%m-%d %H:%M:%S")
    where, verb = address_of(connection), outcome_of(connection)
    place = "local" if connection.local else "remote"
    counted = byte_counts(connection)
    what = without_userinfo(connection.purpose)
    return f"{when}  {place:<6}  {where}  {what}  {verb}" + (f"  ({counted})" if counted else "")


def byte_counts(connection: Connection) -> str:
    """``1.2 kB sent, 45.0 kB received`` once the connection closed, else ``""``."""
    if connection.sent is None or connection.received is None or connection.outcome != "allowed":
        return ""
    return f"{human_size(connection.sent)} sent, {human_size(connection.received)} received"


async def saved_connections(
    data_dir: str | os.PathLike[str] | None, limit: int = 200
) -> list[Connection]:
    """The ledger's newest ``limit`` connections (at least one), newest first, read from the
    database in ``data_dir`` (``--data-dir``, ``PARLEY_DATA_DIR`` or the user data directory)
    without a workspace and without writing: a read-only or full disk still shows them."""
    async with Store.open_data_dir(data_dir, reading_is_enough=True) as store:
        return await store.list_connections(limit=max(1, limit))


class NetworkLedger:
    """Offline mode and the ledger of one store; :meth:`start` begins recording."""

    def __init__(self, store: Store, gate: NetworkGate = GATE) -> None:
        self._store = store
        self._gate = gate
        self._pending: list[Connection] = []
        self._lock = threading.Lock()
        self._unsubscribe: Callable[[], None] | None = None
        self._task: asyncio.Task[None] | None = None
        self.started_count = gate.count
        """The gate's count when this workspace opened: the session's connections are the
        ones after it."""

    @property
    def offline(self) -> bool:
        """Whether connections to other computers are refused."""
        return self._gate.offline

    def set_offline(self, offline: bool) -> None:
        """Turn offline mode on or off for the whole process, at once."""
        self._gate.offline = offline

    def follow_settings(self, event: WorkspaceEvent) -> None:
        """Subscribed to the bus: follow the offline setting when it changes (``PARLEY_OFFLINE``
        keeps Parley offline whatever it says)."""
        if isinstance(event, SettingsChanged) and event.before.offline != event.after.offline:
            self.set_offline(event.after.offline or forced_offline())

    @property
    def session_count(self) -> int:
        """Connections made or refused since this workspace opened."""
        return self._gate.count - self.started_count

    def session(self) -> list[Connection]:
        """This session's latest connections, newest first."""
        count = min(self.session_count, len(self._gate.session))
        return list(reversed(list(self._gate.session)[len(self._gate.session) - count :]))

    def start(self) -> None:
        """Install the gate and record what it sees from now on."""
        install()
        if self._unsubscribe is None:
            self._unsubscribe = self._gate.subscribe(self._seen)
        with contextlib.suppress(RuntimeError):  # no running loop: flushed on close only
            if self._task is None:
                self._task = asyncio.get_running_loop().create_task(
                    self._flush_every(FLUSH_SECONDS), name="network ledger"
                )

    def note(self, connection: Connection) -> None:
        """Keep ``connection`` (a request ``parley serve`` received) in the ledger with the
        next batch; quick, from any thread."""
        self._seen(connection)

    def _seen(self, connection: Connection) -> None:
        with self._lock:
            self._pending.append(connection)

    async def flush(self) -> None:
        """Write what the gate saw since the last flush into the ledger."""
        with self._lock:
            batch, self._pending = self._pending, []
        if not batch or self._store.read_only is not None:
            return
        try:
            await self._store.record_connections(batch)
        except Exception:  # the ledger must not break a turn; the next flush tries again
            log.warning("the network ledger could not be written", exc_info=True)
            with self._lock:
                self._pending[:0] = batch

    async def _flush_every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            await self.flush()

    async def recent(self, limit: int = 200) -> list[Connection]:
        """The ledger's newest connections (saved ones and those not yet saved)."""
        await self.flush()
        return await self._store.list_connections(limit=limit)

    async def aclose(self) -> None:
        """Stop recording and save what is left."""
        unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.flush()
        self._gate.offline = forced_offline()  # what this workspace's settings asked ends
