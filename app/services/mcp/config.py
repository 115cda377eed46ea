"""The user's MCP servers, kept in ``mcp.json`` in the data directory.

The file has the ``{"mcpServers": {NAME: {...}}}`` shape other desktop chat apps use, so one
of theirs can be imported (:mod:`app.services.mcp.importing`), plus Parley's own keys per server
(see :class:`~app.tools.mcp.ServerConfig`). Changes are written atomically; keys Parley does
not know are kept; a file that cannot be read (not JSON, nested absurdly deep, far too big, a
server named twice) is reported and never overwritten.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from app.core.errors import ParleyError
from app.core.tools.secrets import SecretSource
from app.store.paths import resolve_data_dir
from app.tools.mcp.config import ServerConfig, ToolPolicy, valid_server_name

if TYPE_CHECKING:
    from app.tools.mcp.manager import McpManager

__all__ = [
    "CONFIG_NAME",
    "MAX_DEPTH",
    "MAX_SIZE",
    "McpConfig",
    "McpConfigError",
    "configured_mcp_tools",
    "mcp_log_dir",
    "parse_server",
    "repeated_names",
]

CONFIG_NAME = "mcp.json"
"""The file name of the server list inside the data directory."""

MAX_DEPTH = 64
"""How deeply a server list's values may nest (a real one nests four levels)."""

MAX_SIZE = 10 * 1024 * 1024
"""The largest server list read, in bytes (a real one is a few kilobytes)."""

_KEY = "mcpServers"
_FIELDS = set(ServerConfig.model_fields) - {"name"}


class _Repeated(dict[str, Any]):
    """A JSON object that names some of its keys more than once (the last value kept)."""

    counts: dict[str, int]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for key, value in pairs:
        counts[key] = counts.get(key, 0) + 1
        obj[key] = value
    if len(counts) == len(pairs):
        return obj
    repeated = _Repeated(obj)
    repeated.counts = {k: n for k, n in counts.items() if n > 1}
    return repeated


def repeated_names(obj: Any) -> dict[str, int]:
    """The keys a parsed JSON object names more than once, with how often."""
    return dict(obj.counts) if isinstance(obj, _Repeated) else {}


def _nested_repeat(value: Any) -> str | None:
    """The first key repeated anywhere inside ``value``, or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if repeated := repeated_names(item):
                return next(iter(repeated))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _too_deep(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return False


class McpConfigError(ParleyError, ValueError):
    """The server list cannot be read or the change asked for cannot be made."""


def mcp_log_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where each server's log (``NAME.log``) is kept: ``logs/mcp`` in the data directory."""
    return resolve_data_dir(data_dir) / "logs" / "mcp"


def _reason(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False)[:3]:
        loc = ".".join(str(p) for p in err["loc"])
        msg = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def parse_server(name: str, entry: Any) -> ServerConfig:
    """Read one ``mcpServers`` entry; raises :class:`McpConfigError` saying what is wrong."""
    problem = valid_server_name(name)
    if problem:
        raise McpConfigError(problem)
    if not isinstance(entry, Mapping):
        raise McpConfigError(f"server {name!r}: its entry is not a JSON object")
    repeated = _nested_repeat(entry)
    if repeated is not None:
        raise McpConfigError(
            f"server {name!r}: its entry names {repeated!r} more than once, so it is unclear "
            "which one is meant; keep one"
        )
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    if kind == "sse":
        raise McpConfigError(
            f"server {name!r} uses the older SSE transport, which Parley does not support; "
            "use the server's streamable-HTTP address instead"
        )
    try:
        return ServerConfig.model_validate({**entry, "name": name})
    except ValidationError as exc:
        raise McpConfigError(f"server {name!r}: {_reason(exc)}") from None


class McpConfig:
    """The server list in one ``mcp.json`` file (it need not exist yet)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @classmethod
    def for_data_dir(cls, data_dir: str | os.PathLike[str] | None = None) -> McpConfig:
        """The server list of the data directory (``--data-dir``, ``PARLEY_DATA_DIR``, ...)."""
        return cls(resolve_data_dir(data_dir) / CONFIG_NAME)

    # -------------------------------------------------------------------- file

    def _read(self, *, repeats: bool = False) -> dict[str, Any]:
        """The file's JSON (``{"mcpServers": {}}`` when there is none); with ``repeats`` a
        server named twice is left for the caller to find with :func:`repeated_names`."""
        unchanged = "fix it or move it away. Parley has not changed it"
        try:
            if self.path.stat().st_size > MAX_SIZE:
                raise McpConfigError(
                    f"{self.path} is larger than {MAX_SIZE // (1024 * 1024)} MB, far more than "
                    f"a server list; {unchanged}"
                )
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {_KEY: {}}
        except (OSError, UnicodeDecodeError) as exc:
            raise McpConfigError(f"{self.path} cannot be read ({exc})") from None
        too_deep = (
            f"{self.path} nests its values more than {MAX_DEPTH} levels deep, which no server "
            f"list does; {unchanged}"
        )
        try:
            data = json.loads(text, object_pairs_hook=_object) if text.strip() else {}
        except json.JSONDecodeError as exc:
            raise McpConfigError(
                f"{self.path} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                f"{exc.msg}); {unchanged}"
            ) from None
        except RecursionError:
            raise McpConfigError(too_deep) from None
        if _too_deep(data, MAX_DEPTH):
            raise McpConfigError(too_deep)
        if not isinstance(data, dict) or not isinstance(data.get(_KEY, {}), dict):
            raise McpConfigError(f'{self.path} should hold {{"{_KEY}": {{...}}}}; {unchanged}')
        if _KEY in repeated_names(data):
            raise McpConfigError(f'{self.path} holds "{_KEY}" more than once; {unchanged}')
        named_twice = repeated_names(data.get(_KEY))
        if named_twice and not repeats:
            name, count = next(iter(named_twice.items()))
            raise McpConfigError(
                f"{self.path} names the server {name!r} {count} times; keep one of them, or "
                "move the file away. Parley has not changed it"
            )
        data.setdefault(_KEY, {})
        return data

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".mcp-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2, ensure_ascii=False)
                out.write("\n")
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    # ------------------------------------------------------------------ reading

    def servers(self) -> list[ServerConfig]:
        """Every server that is configured correctly, in file order."""
        found = []
        for name, entry in self._read()[_KEY].items():
            try:
                found.append(parse_server(name, entry))
            except McpConfigError:
                continue
        return found

    def problems(self) -> dict[str, str]:
        """The entries that cannot be used, with the reason for each."""
        bad: dict[str, str] = {}
        for name, entry in self._read()[_KEY].items():
            try:
                parse_server(name, entry)
            except McpConfigError as exc:
                bad[name] = str(exc)
        return bad

    def get(self, name: str) -> ServerConfig:
        """The server ``name``; a clear error when there is none."""
        entries = self._read()[_KEY]
        if name not in entries:
            known = ", ".join(entries) or "none"
            raise McpConfigError(f"there is no MCP server named {name!r} (configured: {known})")
        return parse_server(name, entries[name])

    # ----------------------------------------------------------------- changing

    def add(self, server: ServerConfig, *, replace: bool = False) -> None:
        """Add ``server``; with ``replace`` an existing one of that name is replaced."""
        data = self._read()
        if server.name in data[_KEY] and not replace:
            raise McpConfigError(
                f"a server named {server.name!r} is already configured; remove it first or "
                "choose another name"
            )
        data[_KEY][server.name] = server.to_json()
        self._write(data)

    def edit(self, name: str, **changes: Any) -> ServerConfig:
        """Change fields of server ``name`` (e.g. ``policy="off"``); returns the new entry."""
        data = self._read()
        current = self.get(name)
        unknown = set(changes) - _FIELDS
        if unknown:
            raise McpConfigError(f"servers have no setting(s) {', '.join(sorted(unknown))}")
        try:
            updated = ServerConfig.model_validate({**current.model_dump(), **changes, "name": name})
        except ValidationError as exc:
            raise McpConfigError(f"server {name!r}: {_reason(exc)}") from None
        raw = data[_KEY][name]
        kept = {k: v for k, v in raw.items() if k not in _FIELDS} if isinstance(raw, dict) else {}
        data[_KEY][name] = {**kept, **updated.to_json()}
        self._write(data)
        return updated

    def set_policy(self, name: str, policy: ToolPolicy | None, tool: str | None = None) -> None:
        """Set the policy of every tool of server ``name``, or of its tool ``tool``."""
        server = self.get(name)
        if tool is None:
            self.edit(name, policy=policy)
            return
        tools = dict(server.tools)
        if policy is None:
            tools.pop(tool, None)
        else:
            tools[tool] = policy
        self.edit(name, tools=tools)

    def remove(self, name: str) -> None:
        """Remove server ``name``."""
        data = self._read()
        if name not in data[_KEY]:
            known = ", ".join(data[_KEY]) or "none"
            raise McpConfigError(f"there is no MCP server named {name!r} (configured: {known})")
        del data[_KEY][name]
        self._write(data)


@asynccontextmanager
async def configured_mcp_tools(
    data_dir: str | os.PathLike[str] | None,
    secret_resolver: SecretSource | None,
    *,
    start_timeout: float = 30.0,
    call_timeout: float = 120.0,
) -> AsyncIterator[McpManager]:
    """Start the servers configured in ``data_dir`` and yield their manager; stop them after.

    Offer ``manager.tools()`` to the agent and grant ``manager.permissions()`` in the run's
    ``tool_permissions``. Servers that failed to start offer no tools; their reasons are in
    ``manager.connections[name].reason``.
    """
    servers = McpConfig.for_data_dir(data_dir).servers()
    from app.tools.mcp.manager import mcp_tools

    async with mcp_tools(
        servers,
        secret_resolver,
        log_dir=mcp_log_dir(data_dir),
        start_timeout=start_timeout,
        call_timeout=call_timeout,
    ) as manager:
        yield manager
