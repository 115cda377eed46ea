"""``ServerSwitch``: Settings > Server's service — ``parley serve`` run inside the window's
process while the window is open, and the keys its clients send.

The server itself lives in ``app/server`` (beside the window, which may not import it): the
entry hands the window a :data:`StartServer` bound to the window's workspace and its
approvals, and the switch starts and stops it. Loopback by default; another address is
served only once a key exists, as ``parley serve --host`` allows it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.core.errors import UserError
from app.core.netgate import is_local_host
from app.core.tools import ApprovalDecision, ApprovalRequest
from app.services.key_usage import KeyUsage
from app.services.server_keys import ServerKeys

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "ApiAsk",
    "KeyShown",
    "RunningServer",
    "ServeWorkspace",
    "ServerSwitch",
    "StartServer",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765

ApiAsk = Callable[[str, str, Sequence[ApprovalRequest]], Awaitable[list[ApprovalDecision]]]
"""``ask(agent name, key name, requests)``: the window's decisions on calls an agent run
through the API wants to make; raises :class:`~app.core.tools.DecisionPostponed` when the
dialog is closed undecided."""


class RunningServer(Protocol):
    """A server serving the window's workspace."""

    @property
    def address(self) -> str:
        """Where clients point: ``http://HOST:PORT/v1``."""
        ...

    async def stop(self) -> None:
        """Stop taking requests and end those running."""
        ...


StartServer = Callable[[str, int], Awaitable[RunningServer]]
"""``start(host, port)``: the server started on the window's loop; :class:`UserError` with
one sentence when it cannot listen there."""


ServeWorkspace = Callable[[Any, str, int, ApiAsk], Awaitable[RunningServer]]
"""``serve(workspace, host, port, ask)``: the server of ``workspace`` (a
:class:`~app.services.workspace.Workspace`, which this module does not import: the window's
parts may import it) started on this loop, ``ask`` putting an agent's calls to the person;
what the entry hands the window."""


@dataclass(frozen=True, slots=True)
class KeyShown:
    """A key as the page lists it: its name, its daily token limit, today's tokens and
    whether its agents' runs are kept as threads."""

    name: str
    daily_tokens: int | None
    used_today: int
    keep_threads: bool = True


class ServerSwitch:
    """The server of one window (``start``; ``None`` where none can run) and the keys of
    ``data_dir``; see the module docstring."""

    def __init__(
        self, data_dir: str | os.PathLike[str] | None, start: StartServer | None = None
    ) -> None:
        self._start = start
        self.keys = ServerKeys(data_dir)
        self._usage = KeyUsage(data_dir, self.keys)
        self._running: RunningServer | None = None
        self._lock = asyncio.Lock()

    @property
    def available(self) -> bool:
        """Whether this window can run the server."""
        return self._start is not None

    @property
    def address(self) -> str | None:
        """Where the running server answers (``None``: it is off)."""
        return self._running.address if self._running is not None else None

    async def turn_on(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str:
        """Start serving on ``host`` and ``port`` (once); its address. :class:`UserError`
        with one sentence when another address than this computer's is named with no key
        yet, or it cannot listen there."""
        async with self._lock:
            if self._running is not None:
                return self._running.address
            if self._start is None:
                raise UserError("the server cannot run in this window; use parley serve")
            host = host.strip() or DEFAULT_HOST
            if not is_local_host(host) and not await asyncio.to_thread(self.keys.listed):
                raise UserError(
                    f"serving on {host} lets other computers connect, so it needs a key first: "
                    "add one below"
                )
            self._running = await self._start(host, port)
            return self._running.address

    async def turn_off(self) -> None:
        """Stop serving (nothing when it is off)."""
        async with self._lock:
            running, self._running = self._running, None
            if running is not None:
                await running.stop()

    async def listed(self) -> list[KeyShown]:
        """The keys by name, with their limits and today's tokens."""

        def read() -> list[KeyShown]:
            today = self._usage.today()
            return [
                KeyShown(k.name, k.daily_tokens, today.get(k.name, 0), k.keep_threads)
                for k in self.keys.listed()
            ]

        return await asyncio.to_thread(read)

    async def add_key(
        self, name: str, daily_tokens: int | None = None, keep_threads: bool = True
    ) -> str:
        """Make a key called ``name`` (with a daily token limit when given; its agents' runs
        kept as threads unless not ``keep_threads``); the key, to be shown once.
        :class:`UserError` when the name is taken or not a name."""
        return await asyncio.to_thread(self.keys.add, name, daily_tokens, keep_threads)

    async def remove_key(self, name: str) -> bool:
        """Remove the key ``name`` (it stops working at once); whether it was there."""
        return await asyncio.to_thread(self.keys.remove, name)
