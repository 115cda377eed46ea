"""The stdio transport a server runs under, for servers whose output is not trusted.

It speaks the SDK's :class:`~mcp.client.Transport` protocol like the SDK's own
``stdio_client`` and shuts down the same way (close stdin, wait, then end the whole process
group), with two differences: a message on stdout is read only up to
:data:`MAX_MESSAGE_BYTES` (a bigger one is skipped, not held, and the request it answers gets
an error saying so), and stderr is read here, line by line, and handed to ``on_stderr``
(which takes the secrets out before anything is written), as is a line on stdout that is
not a message. The read stream closes only after
stderr has ended too, so a server's last words are in its log when its exit is noticed.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import anyio.lowlevel
import mcp.types as mcp_types
from anyio.abc import AsyncResource, Process
from mcp.client._transport import TransportStreams
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from app.tools.mcp._framing import Lines, Oversized, request_id

__all__ = ["ANSWER_TOO_BIG", "MAX_MESSAGE_BYTES", "megabytes", "stdio_client"]

MAX_MESSAGE_BYTES = 20_000_000
"""The largest message read from a server; a bigger answer fails its request."""

ANSWER_TOO_BIG = -32097
"""The error code of a request whose answer was bigger than :data:`MAX_MESSAGE_BYTES`."""

STDERR_LINE_BYTES = 1_000_000
"""A longer stderr line reaches ``on_stderr`` in pieces of this size (as big as a whole log,
so that a secret is cut in two only in a line no log could keep)."""

_GRACE = 2.0
_FLUSH = 0.5
_LAST_WORDS = 1.0
_PIPE_ERRORS = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    ConnectionError,
    OSError,
)


def megabytes(size: int) -> str:
    """``size`` bytes as a user reads it: ``20.0 MB``."""
    return f"{size / 1_000_000:.1f} MB"


def _message(line: bytes | Oversized, limit: int) -> SessionMessage | Exception | None:
    """The SDK's message for one stdout line (``None`` for a blank one)."""
    if isinstance(line, Oversized):
        said = (
            f"more than {megabytes(limit)} ({megabytes(line.size)}), so Parley stopped reading it"
        )
        answered = request_id(line)
        if answered is None:
            return ValueError(f"the server sent a message of {said}")
        error = mcp_types.ErrorData(code=ANSWER_TOO_BIG, message=said)
        return SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=answered, error=error))
    if not line.strip():
        return None
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _exited(process: Process, seconds: float) -> bool:
    """Whether the process has exited within ``seconds`` (polled: ``wait()`` also waits for
    pipes a child of the server may hold)."""
    with anyio.move_on_after(seconds):
        while process.returncode is None:  # noqa: ASYNC110 (nothing signals an exit)
            await anyio.sleep(0.01)
    return process.returncode is not None


async def _close(*resources: AsyncResource) -> None:
    for resource in resources:
        with contextlib.suppress(*_PIPE_ERRORS):
            await resource.aclose()


async def _stop(process: Process) -> None:
    """Close the server's stdin, give it a moment to exit, then end its process group."""
    assert process.stdin is not None
    await _close(process.stdin)
    if await _exited(process, _GRACE):
        return
    if sys.platform == "win32":  # pragma: no cover
        with contextlib.suppress(OSError):
            process.kill()
    else:
        await terminate_posix_process_tree(process, _GRACE)
    await _exited(process, _GRACE)


def _release(process: Process) -> None:
    """Close the asyncio side of the process (it would warn when collected otherwise)."""
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with contextlib.suppress(PermissionError):
            close()


@contextlib.asynccontextmanager
async def stdio_client(
    command: str,
    args: list[str],
    env: dict[str, str],
    cwd: str | Path | None,
    on_stderr: Callable[[str], None],
    limit: int = MAX_MESSAGE_BYTES,
) -> AsyncIterator[TransportStreams]:
    """Run ``command`` with ``args`` and ``env`` (over the SDK's default environment) and
    talk to it over its stdin and stdout; each line it writes to stderr goes to
    ``on_stderr``. Raises ``OSError`` when the command cannot be started."""
    process = await anyio.open_process(
        [command, *args],
        env=get_default_environment() | env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=True,
    )
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    assert stdin is not None
    assert stdout is not None
    assert stderr is not None
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    stderr_done, writer_done = anyio.Event(), anyio.Event()

    async def read_stderr() -> None:
        lines = Lines(STDERR_LINE_BYTES, cut_long=True)
        try:
            with contextlib.suppress(*_PIPE_ERRORS):
                async for chunk in stderr:
                    for line in lines.feed(chunk):
                        assert isinstance(line, bytes)
                        on_stderr(line.decode("utf-8", "replace"))
            rest = lines.rest()
            if rest:
                on_stderr(rest.decode("utf-8", "replace"))
        finally:
            stderr_done.set()

    async def read_stdout() -> None:
        lines = Lines(limit)
        listening = True
        async with to_session:
            with contextlib.suppress(*_PIPE_ERRORS):
                # read to the end even when nobody listens: a server blocked on a full pipe
                # could not exit
                async for chunk in stdout:
                    for line in lines.feed(chunk):
                        message = _message(line, limit)
                        if isinstance(message, ValueError) and isinstance(line, bytes):
                            # a server that prints to stdout by mistake: keep what it said
                            text = line[:STDERR_LINE_BYTES].decode("utf-8", "replace")
                            on_stderr(f"(on stdout, not a message) {text}")
                        if message is None or not listening:
                            continue
                        try:
                            await to_session.send(message)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            listening = False
            with anyio.move_on_after(_LAST_WORDS):
                await stderr_done.wait()

    async def write_stdin() -> None:
        try:
            async with from_session:
                async for outgoing in from_session:
                    data = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send((data + "\n").encode())
        except _PIPE_ERRORS:
            await to_session.aclose()  # the session must see the end, not wait forever
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(_FLUSH):
            await writer_done.wait()
        await _stop(process)
        with anyio.move_on_after(_FLUSH):
            await stderr_done.wait()
        await _close(stdout, stderr, read_stream, write_stream, to_session, from_session)
        _release(process)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stderr)
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await shutdown()
            tasks.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
