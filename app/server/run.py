"""Running the server: the workspace's models opened, a socket bound, and uvicorn serving
the application on it until it is stopped (Ctrl+C, or :meth:`ParleyServer.stop`)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from app.core.netgate import Connection, is_local_host
from app.server.app import MAX_BODY, WRITE_DEADLINE_S, KeyCheck, KeyLimits, make_app
from app.server.ledger import Inbound, Record
from app.server.models import ServedModels, WorkspaceModels
from app.server.queue import WAITING
from app.services.keys import open_keyring
from app.services.network import NetworkLedger
from app.services.workspace import Workspace

__all__ = [
    "ParleyServer",
    "ServedWorkspace",
    "is_loopback",
    "ledger_record",
    "listen",
    "workspace_models",
]


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this computer only (``localhost``, ``127.0.0.1``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host`` and ``port`` (0: a free one), listening; an
    :class:`OSError` when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except BaseException:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


@dataclass(frozen=True, slots=True)
class ServedWorkspace:
    """What the server takes from a workspace: its models, and its network ledger (where
    each request is kept, and whether Parley is offline)."""

    models: WorkspaceModels
    network: NetworkLedger


def ledger_record(network: NetworkLedger) -> Record:
    """Each request noted in ``network``'s ledger as a ``request`` row: when, the client's
    address, and as its purpose the key's name, the model, the tokens and the outcome."""

    def record(inbound: Inbound) -> None:
        network.note(
            Connection(
                inbound.time,
                inbound.host or "(unknown client)",
                inbound.port,
                inbound.describe(),
                is_local_host(inbound.host),
                "refused" if inbound.status == 403 else "allowed",
                "request",
            )
        )

    return record


@asynccontextmanager
async def workspace_models(
    data_dir: str | Path | None, model: str | None
) -> AsyncIterator[ServedWorkspace]:
    """The models and ledger of the workspace in ``data_dir`` (opened with the keyring's API
    keys, closed at the end), ``model`` served as ``parley`` when given."""
    workspace = await Workspace.open(data_dir, secret_resolver=await open_keyring())
    try:
        if model:
            current = workspace.settings.current
            workspace.settings.use(current.model_copy(update={"default_model": model}))
        models = WorkspaceModels(workspace)
        yield ServedWorkspace(models, workspace.network)
    finally:
        await workspace.aclose()


class _QuietServer(uvicorn.Server):
    """uvicorn leaving the process's signals alone: Ctrl+C and the window's quitting stay
    the window's when it serves inside it."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class ParleyServer:
    """uvicorn serving the application for ``models`` and ``keys`` on a bound socket, each
    request kept in ``network``'s ledger (and only this computer answered while offline),
    each key's tokens counted against its daily limit in ``limits``. Without
    ``own_signals`` (inside the window) it takes no signal handler of the process."""

    def __init__(
        self,
        models: ServedModels,
        keys: KeyCheck,
        *,
        network: NetworkLedger | None = None,
        max_body: int = MAX_BODY,
        waiting: int = WAITING,
        limits: KeyLimits | None = None,
        own_signals: bool = True,
        write_deadline: float = WRITE_DEADLINE_S,
    ) -> None:
        offline: Callable[[], bool] = (
            (lambda: False) if network is None else (lambda: network.offline)
        )
        application = make_app(
            models,
            keys,
            max_body=max_body,
            waiting=waiting,
            record=None if network is None else ledger_record(network),
            offline=offline,
            limits=limits,
            embeddings=models.meaning if isinstance(models, WorkspaceModels) else None,
            write_deadline=write_deadline,
        )
        config = uvicorn.Config(
            application,
            lifespan="off",
            ws="none",  # no websockets are served
            log_config=None,  # Parley's own logging (its log file, secrets redacted) is kept
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=5,
        )
        self._server = uvicorn.Server(config) if own_signals else _QuietServer(config)

    async def serve(self, sock: socket.socket) -> None:
        """Serve on ``sock`` until stopped."""
        await self._server.serve(sockets=[sock])

    @property
    def started(self) -> bool:
        """Whether it takes requests."""
        return self._server.started

    def stop(self) -> None:
        """Stop taking requests and end :meth:`serve` (from any thread)."""
        self._server.should_exit = True
