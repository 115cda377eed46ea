"""``parley serve`` inside the window's process: the same application under uvicorn, on the
window's event loop (the workspace's services live there), serving the window's workspace,
with an agent's calls that need approval asked in the window's dialog.

The entry hands :func:`serve_in_window` to the window, which binds it to its workspace and
its approval dialog (Settings > Server turns it on and off): the window may not import the
server, which sits beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from app.core.errors import UserError
from app.server.agents import WindowAsk
from app.server.models import WorkspaceModels
from app.server.run import ParleyServer, listen
from app.services.key_usage import KeyUsage
from app.services.local_server import RunningServer
from app.services.server_keys import ServerKeys
from app.services.workspace import Workspace

__all__ = ["serve_in_window"]

_STOP_WAIT = 10.0
"""How long stopping waits for the requests running to end before they are cut."""


class _Serving:
    """A server running as a task of the window's loop."""

    def __init__(
        self, server: ParleyServer, task: asyncio.Task[None], sock: socket.socket, address: str
    ) -> None:
        self._server, self._task, self._sock = server, task, sock
        self._address = address

    @property
    def address(self) -> str:
        """Where clients point: ``http://HOST:PORT/v1``."""
        return self._address

    async def stop(self) -> None:
        """Stop taking requests, let those running end (for a few seconds), close the
        socket."""
        self._server.stop()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), _STOP_WAIT)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        finally:
            self._sock.close()


async def serve_in_window(
    workspace: Workspace, host: str, port: int, ask: WindowAsk
) -> RunningServer:
    """Serve ``workspace`` on ``host`` and ``port`` from this loop, ``ask`` putting an agent's
    calls to the person; returns once it takes requests. :class:`UserError` with one
    sentence when it cannot listen there."""
    try:
        sock = await asyncio.to_thread(listen, host, port)
    except OSError as exc:
        raise UserError(
            f"cannot listen on {host} port {port}: {exc.strerror or exc}; choose another port"
        ) from None
    keys = ServerKeys(workspace.data_dir)
    server = ParleyServer(
        WorkspaceModels(workspace, ask),
        keys.check,
        network=workspace.network,
        limits=KeyUsage(workspace.data_dir, keys),
        own_signals=False,
    )
    task = asyncio.get_running_loop().create_task(server.serve(sock))
    while not server.started:  # uvicorn says when it takes requests; nothing else waits
        if task.done():
            sock.close()
            problem = task.exception() if not task.cancelled() else None
            raise UserError(f"the server did not start: {problem or 'it was stopped'}")
        await asyncio.sleep(0.02)
    bound, at = sock.getsockname()[:2]
    shown = f"[{bound}]" if ":" in bound else bound
    return _Serving(server, task, sock, f"http://{shown}:{at}/v1")
