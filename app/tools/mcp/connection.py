"""One MCP server's life: started when first needed, restarted after a crash, stopped on quit.

Everything is async and bounded by a timeout, so a server that hangs never holds up the event
loop: starting gives up after ``start_timeout``, a call after its ``timeout``, and stopping
kills what does not exit. A stdio server's stderr, and every start, stop and crash, go to a
log file the user can open (:attr:`McpConnection.log_path`), readable by the user alone.

Every secret resolved for the server is taken out, in each encoding the engine's redaction
knows, of what the server says before it is kept or shown: its stderr in the log, the
reasons it failed, its errors and its results (see :meth:`McpConnection.redact`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NoReturn, TextIO, TypeVar

import mcp.types as mcp_types
from mcp import Client, MCPError
from mcp.shared.dispatcher import ProgressFnT
from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

from app.core.errors import ParleyError
from app.core.netgate import purpose
from app.core.private_files import open_private, private_folder
from app.core.tools import Redactor
from app.core.tools.secrets import SecretError, SecretSource
from app.tools.mcp._reasons import describe_failure, log_tail
from app.tools.mcp._transport import (
    WatchedTransport,
    http_transport,
    redact_url,
    resolve_values,
    stdio_transport,
    too_big,
)
from app.tools.mcp.config import ServerConfig

__all__ = ["Backoff", "McpConnection", "McpServerError", "ServerState"]

ServerState = Literal["stopped", "starting", "running", "crashed", "failed"]
"""Where a server is: not started, starting, answering, gone (a restart is due), given up."""

T = TypeVar("T")

CLIENT_INFO = mcp_types.Implementation(name="parley", version="0.1.0")
STOP_TIMEOUT = 10.0
LOG_LIMIT = 1_000_000
"""A log bigger than this (bytes) is moved to ``NAME.log.1`` when the server next starts."""
MAX_PAGES = 100


class McpServerError(ParleyError, RuntimeError):
    """A server could not start, went away, or did not answer in time; the message says which."""


@dataclass(frozen=True)
class Backoff:
    """How long to wait before restarting a server that crashed, and when to give up.

    The n-th restart in a row waits ``first * factor**(n-1)`` seconds (at most ``longest``);
    after ``attempts`` failures in a row the server is left stopped until it is needed again.
    A server that ran for ``stable_after`` seconds before crashing starts the count afresh.
    """

    first: float = 0.5
    factor: float = 2.0
    longest: float = 30.0
    attempts: int = 5
    stable_after: float = 30.0

    def delay(self, failures: int) -> float:
        """Seconds to wait before the next attempt after ``failures`` failures in a row."""
        return float(min(self.longest, self.first * self.factor ** max(0, failures - 1)))


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a future's outcome as seen (a start given up on may still fail later)."""
    if not future.cancelled():
        future.exception()


@dataclass(eq=False)
class _Run:
    """One start of the server: the task holding the client, and how to end it."""

    ready: asyncio.Future[Client]
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    stopping: bool = False
    task: asyncio.Task[None] | None = None


class McpConnection:
    """A connection to one configured MCP server, through the official SDK's ``Client``.

    ``secret_resolver`` turns the ``{keyring:REF}`` parts of the env and headers into values
    just before each start; the values are handed to the transport and kept nowhere else
    but in the redaction that takes them out of what the server says.
    """

    def __init__(
        self,
        config: ServerConfig,
        *,
        log_dir: str | Path,
        secret_resolver: SecretSource | None = None,
        start_timeout: float = 30.0,
        call_timeout: float = 120.0,
        backoff: Backoff | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self.log_path = Path(log_dir) / f"{config.name}.log"
        self.secret_resolver = secret_resolver
        self.start_timeout = start_timeout
        self.call_timeout = config.timeout or call_timeout
        self.backoff = backoff or Backoff()
        self.state: ServerState = "stopped"
        self.reason: str | None = None
        self.tools: list[mcp_types.Tool] = []
        self.starts = 0
        self._client: Client | None = None
        self._run: _Run | None = None
        self._lock = asyncio.Lock()
        self._failures = 0
        self._not_before = 0.0
        self._started_at = 0.0
        self._restart: asyncio.Task[None] | None = None
        self._log_start = 0
        self._http_status: int | None = None
        self._reaping: set[asyncio.Task[None]] = set()
        self._closed = False
        self._redactor = Redactor()

    # ---------------------------------------------------------------- redaction

    def redact(self, text: str) -> str:
        """``text`` with every secret resolved for this server replaced, in any encoding."""
        return self._redactor.text(text)

    def redact_value(self, value: T) -> T:
        """``value`` (blocks, JSON) with the server's secrets replaced in every string."""
        cleaned: T = self._redactor.value(value)
        return cleaned

    def _error(self, message: str) -> McpServerError:
        return McpServerError(self.redact(message))

    # ----------------------------------------------------------------------- log

    def _open_log(self) -> TextIO:
        private_folder(self.log_path.parent)
        return open_private(self.log_path)

    def _log(self, line: str) -> None:
        stamp = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        with self._open_log() as log:
            log.write(f"[parley {stamp}] {self.redact(line)}\n")

    def _rotate_log(self) -> None:
        with contextlib.suppress(OSError):
            if self.log_path.stat().st_size > LOG_LIMIT:
                self.log_path.replace(self.log_path.with_name(self.log_path.name + ".1"))

    def _refused(self, status: int) -> None:
        self._http_status = status

    def _hint(self) -> str:
        return f"; its log is {self.log_path}"

    # ----------------------------------------------------------------- starting

    async def ensure_started(self) -> Client:
        """Return a running client, starting (or restarting) the server if needed."""
        client = self._client
        if client is not None and self.state == "running":
            return client
        if self._closed:
            raise self._error(f"server {self.name!r} has been shut down with Parley")
        async with self._lock:
            client = self._client
            if client is not None and self.state == "running":
                return client
            wait = self._not_before - asyncio.get_running_loop().time()
            if wait > self.start_timeout:
                raise self._error(
                    f"server {self.name!r} failed {self._failures} times in a row "
                    f"({self.reason}); it will be tried again in {wait:.0f} s{self._hint()}"
                )
            if wait > 0:
                await asyncio.sleep(wait)
            return await self._start()

    async def _start(self) -> Client:
        loop = asyncio.get_running_loop()
        run = _Run(ready=loop.create_future())
        run.ready.add_done_callback(_retrieved)
        self.state, self.reason = "starting", None
        self._rotate_log()
        self._log(f"starting: {self._described()}")
        self._log_start = self.log_path.stat().st_size
        self._http_status = None
        with purpose(f"the MCP server {self.name}"):  # its connections, in the ledger
            run.task = asyncio.create_task(self._serve(run), name=f"mcp:{self.name}")
        self._run = run
        try:
            async with asyncio.timeout(self.start_timeout):
                client = await asyncio.shield(run.ready)
                tools = await self._list_tools(client)
        except asyncio.CancelledError:
            self._abandon_start()
            raise
        except TimeoutError:
            self._abandon_start()
            self._failed(
                f"server {self.name!r} did not answer within {self.start_timeout:g} s of starting"
            )
        except (SecretError, McpServerError) as exc:
            await self._stop_runner()
            self._failed(f"server {self.name!r} could not start: {exc}")
        except Exception as exc:
            await self._stop_runner()
            tail = log_tail(self.log_path, self._log_start)
            self._failed(describe_failure(self.config, exc, tail, self._http_status, starting=True))
        self.tools = tools
        self.state, self.reason = "running", None
        self.starts += 1
        self._started_at = loop.time()
        self._log(f"running, {len(tools)} tools")
        return client

    def _failed(self, reason: str) -> NoReturn:
        reason = self.redact(reason)
        self.state, self.reason = "failed", reason
        self._failures += 1
        delay = self.backoff.delay(self._failures)
        self._not_before = asyncio.get_running_loop().time() + delay
        self._log(f"failed: {reason}")
        if self.starts and self._failures <= self.backoff.attempts:
            self._schedule_restart(delay)
        raise McpServerError(reason + self._hint())

    def _described(self) -> str:
        if self.config.command is not None:
            return self.config.describe()
        return redact_url(self.config.url or "")

    async def _list_tools(self, client: Client) -> list[mcp_types.Tool]:
        tools: list[mcp_types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def _serve(self, run: _Run) -> None:
        """Hold the SDK client open in one task (its task groups live here) until woken."""
        error: BaseException | None = None
        client: Client | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                secrets, redactor = self.secret_resolver, self._redactor
                if self.config.command is not None:
                    env = await resolve_values(self.config.env, secrets, redactor)
                    numbered = {str(i): a for i, a in enumerate(self.config.args)}
                    args = list((await resolve_values(numbered, secrets, redactor)).values())
                    log = stack.enter_context(self._open_log())
                    inner = stdio_transport(self.config, args, env, self._stderr_to(log))
                else:
                    headers = await resolve_values(self.config.headers, secrets, redactor)
                    inner, http = http_transport(self.config, headers, self._refused)
                    await stack.enter_async_context(http)
                opened = Client(
                    WatchedTransport(inner, run.wake.set), client_info=CLIENT_INFO, cache=None
                )
                await stack.enter_async_context(opened)
                client = opened
                if self._run is run:
                    self._client = client
                if not run.ready.done():
                    run.ready.set_result(client)
                await run.wake.wait()
        except asyncio.CancelledError:
            run.ready.cancel()
            raise
        except BaseException as exc:
            error = exc
        finally:
            if client is not None and self._client is client:
                self._client = None
            if not run.ready.done():
                run.ready.set_exception(error or McpServerError("the connection closed"))
            elif not run.stopping and self._run is run:
                self._run = None
                self._crashed(error)

    def _stderr_to(self, log: TextIO) -> Callable[[str], None]:
        """Where the server's stderr goes: each line, redacted, into its log."""

        def write(line: str) -> None:
            with contextlib.suppress(OSError, ValueError):  # a full disk, a closed log
                log.write(self.redact(line) + "\n")
                log.flush()

        return write

    # ------------------------------------------------------------------ crashes

    def _crashed(self, error: BaseException | None) -> None:
        loop = asyncio.get_running_loop()
        if loop.time() - self._started_at >= self.backoff.stable_after:
            self._failures = 0
        self._failures += 1
        tail = log_tail(self.log_path, self._log_start)
        if error is not None:
            reason = describe_failure(self.config, error, tail, self._http_status, starting=False)
        else:
            last = f" (last words: {tail})" if tail else ""
            reason = f"server {self.name!r} stopped unexpectedly{last}"
        reason = self.redact(reason)
        self.state, self.reason = "crashed", reason
        self._log(f"crashed: {reason}")
        if self._failures > self.backoff.attempts:
            self.state = "failed"
            self.reason = f"{reason}; gave up restarting it after {self._failures - 1} attempts"
            return
        delay = self.backoff.delay(self._failures)
        self._not_before = loop.time() + delay
        self._schedule_restart(delay)

    def _schedule_restart(self, delay: float) -> None:
        if self._restart is not None and not self._restart.done():
            return

        async def later() -> None:
            await asyncio.sleep(delay)
            with contextlib.suppress(McpServerError):
                await self.ensure_started()

        self._restart = asyncio.create_task(later(), name=f"mcp:{self.name}:restart")

    # ------------------------------------------------------------------- calls

    async def _request(self, what: str, limit: float, send: Callable[[Client], Awaitable[T]]) -> T:
        client = await self.ensure_started()
        try:
            async with asyncio.timeout(limit + 1):
                return await send(client)
        except TimeoutError:
            raise self._timed_out(what, limit) from None
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise self._timed_out(what, limit) from None
            said = too_big(exc)
            if said is not None:
                raise self._error(
                    f"server {self.name!r} answered {what} with {said}; ask it for less at a time"
                ) from None
            if exc.code == CONNECTION_CLOSED:
                await self._settle()
                gone = self.reason or f"server {self.name!r} went away"
                raise self._error(
                    f"{gone}, during {what}; it will be restarted{self._hint()}"
                ) from None
            raise self._error(f"server {self.name!r} refused {what}: {exc.message}") from None

    def _timed_out(self, what: str, timeout: float) -> McpServerError:
        self._log(f"{what} timed out after {timeout:g} s")
        return self._error(
            f"server {self.name!r} did not answer {what} within {timeout:g} s; the call was "
            f"given up{self._hint()}"
        )

    async def _settle(self) -> None:
        """Give the runner a moment to record why the connection ended."""
        runner = self._run.task if self._run is not None else None
        if runner is not None and not runner.done():
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(runner), 1.0)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        seconds: float | None = None,
        progress: ProgressFnT | None = None,
    ) -> mcp_types.CallToolResult:
        """Call the server's tool ``name``; raises :class:`McpServerError` with the reason.

        ``seconds`` overrides the call timeout; ``progress`` hears the server's progress
        reports for this call.
        """
        limit = seconds or self.call_timeout
        return await self._request(
            f"the call to {name!r}",
            limit,
            lambda c: c.call_tool(
                name, arguments, read_timeout_seconds=limit, progress_callback=progress
            ),
        )

    async def list_resources(self) -> list[mcp_types.Resource]:
        """The resources the server offers (empty when it offers none)."""
        client = await self.ensure_started()
        if client.server_capabilities.resources is None:
            return []
        result = await self._request(
            "the list of resources", self.call_timeout, lambda c: c.list_resources()
        )
        return list(result.resources)

    async def read_resource(self, uri: str) -> mcp_types.ReadResourceResult:
        """Read the resource at ``uri``."""
        return await self._request(
            f"reading {uri!r}", self.call_timeout, lambda c: c.read_resource(uri)
        )

    async def list_prompts(self) -> list[mcp_types.Prompt]:
        """The prompts the server offers (empty when it offers none)."""
        client = await self.ensure_started()
        if client.server_capabilities.prompts is None:
            return []
        result = await self._request(
            "the list of prompts", self.call_timeout, lambda c: c.list_prompts()
        )
        return list(result.prompts)

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None = None
    ) -> mcp_types.GetPromptResult:
        """Fill in the prompt ``name`` with ``arguments``."""
        return await self._request(
            f"the prompt {name!r}", self.call_timeout, lambda c: c.get_prompt(name, arguments)
        )

    # ------------------------------------------------------------------ stopping

    async def _stop_runner(self) -> None:
        """Let the runner close the client (the SDK stops the process); bounded."""
        run, self._run = self._run, None
        if run is None or run.task is None:
            return
        run.stopping = True
        run.wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(run.task), STOP_TIMEOUT)
        except TimeoutError:
            await _cancelled(run.task)
        except Exception:
            pass

    def _abandon_start(self) -> None:
        """Cancel a start that is stuck; the SDK's shutdown then runs in the background."""
        run, self._run = self._run, None
        if run is not None and run.task is not None:
            run.stopping = True
            run.task.cancel()
            self._reaping.add(run.task)
            run.task.add_done_callback(self._reaping.discard)

    async def stop(self) -> None:
        """Stop the server (its process too) and any restart that was due."""
        restart, self._restart = self._restart, None
        if restart is not None and restart is not asyncio.current_task():
            restart.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await restart
        async with self._lock:
            was_running = self._run is not None
            await self._stop_runner()
            for task in list(self._reaping):
                await _cancelled(task)
            self.state = "stopped"
            if was_running:
                self._log("stopped")

    async def close(self) -> None:
        """Stop the server for good: nothing starts it again (Parley is quitting)."""
        self._closed = True
        await self.stop()


async def _cancelled(task: asyncio.Task[None]) -> None:
    """Cancel ``task`` and wait for it to finish, whatever it raises."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
