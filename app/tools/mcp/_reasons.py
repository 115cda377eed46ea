"""One sentence for why a server failed to start or stopped, from what the SDK raised."""

from __future__ import annotations

from pathlib import Path

import httpx2
from mcp import MCPError
from mcp.types import CONNECTION_CLOSED

from app.core.netgate import refusal_in
from app.tools.mcp._transport import redact_url
from app.tools.mcp.config import ServerConfig

__all__ = ["describe_failure", "log_tail", "root_cause"]

_TAIL_BYTES = 4096

_HTTP_HINTS = {
    401: "it wants credentials: check the server's headers (e.g. its token)",
    403: "it refused the credentials: check the server's headers (e.g. its token)",
    404: "there is no MCP endpoint at that address: check the URL (often it ends in /mcp)",
}


def root_cause(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, GeneratorExit)]
        if not inner:
            break
        exc = inner[0]
    return exc


def log_tail(path: Path, start: int) -> str:
    """The last line a server wrote to its log since offset ``start`` (its stderr), or ''."""
    try:
        with path.open("rb") as log:
            size = log.seek(0, 2)
            log.seek(max(start, size - _TAIL_BYTES))
            data = log.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in data.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not ln.startswith("[parley ")]
    return lines[-1][:300] if lines else ""


def describe_failure(
    config: ServerConfig,
    exc: BaseException,
    tail: str,
    http_status: int | None,
    *,
    starting: bool,
) -> str:
    """Say in one sentence why server ``config`` could not start (or stopped)."""
    name = config.name
    cause = root_cause(exc)
    verb = "could not start" if starting else "stopped"
    if (refusal := refusal_in(exc)) is not None:  # offline: a server on another computer
        return f"server {name!r} {verb}: {str(refusal).rstrip('.')}"
    last = f" (last words: {tail})" if tail else ""
    if isinstance(cause, FileNotFoundError) and config.command is not None:
        return (
            f"server {name!r} could not start: the command {config.command!r} was not found; "
            "check that it is installed and on PATH"
        )
    if isinstance(cause, PermissionError) and config.command is not None:
        return f"server {name!r} could not start: the command {config.command!r} may not be run"
    if isinstance(cause, OSError) and config.command is not None:
        return f"server {name!r} could not start: {cause.strerror or cause}"
    url = redact_url(config.url or "")
    if http_status is not None:
        hint = _HTTP_HINTS.get(http_status, "see the server's own log")
        return f"server {name!r} at {url} answered HTTP {http_status}; {hint}"
    if isinstance(cause, httpx2.ConnectError):
        return f"server {name!r} {verb}: nothing answers at {url} ({cause or 'refused'})"
    if isinstance(cause, httpx2.TimeoutException):
        return f"server {name!r} {verb}: {url} did not answer in time"
    if isinstance(cause, httpx2.TransportError):
        said = str(cause).rstrip(".") or type(cause).__name__
        return f"server {name!r} at {url} dropped the connection ({said})"
    if isinstance(cause, httpx2.HTTPError):
        return f"server {name!r} {verb}: {type(cause).__name__}: {cause}"
    if isinstance(cause, MCPError) and cause.code == CONNECTION_CLOSED:
        if starting:
            return f"server {name!r} exited before it answered{last}"
        return f"server {name!r} stopped unexpectedly{last}"
    detail = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
    return f"server {name!r} {verb}: {detail}{last}"
