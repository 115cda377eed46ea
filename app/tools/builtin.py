"""Built-in tools Parley can offer a model.

:func:`builtin_tools` builds the full set from the user's settings: file tools confined to the
granted folders, the web tools, the calculator, the time and (given the store's search) the
user's own history. :data:`BUILTIN_TOOLS` is the older set the terminal offers: the time and
two text-file tools that reach any path, each call waiting for approval.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.tools import RuleSpec, Tool, ToolError, tool
from app.fs.kinds import file_kind
from app.net.guard import NetworkPolicy
from app.tools.threads import ThreadSearch, search_threads_tool

if TYPE_CHECKING:  # the file, web and calculator tools load when the tools are first built
    from app.tools.files import MediaIngest

__all__ = [
    "BUILTIN_PERMISSIONS",
    "BUILTIN_TOOLS",
    "builtin_tools",
    "current_time",
    "permissions_of",
    "read_text_file",
    "write_text_file",
]

MAX_READ_BYTES = 200_000


@tool(timeout=5)
def current_time() -> str:
    """Return the current local date and time in ISO 8601 format."""
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


@tool(
    permissions=("files:read",),
    requires_approval=True,
    timeout=10,
    rule=RuleSpec("path", "folder", verb="read", doing="reading"),
)
def read_text_file(path: str) -> str:
    """Read a UTF-8 text file from the user's disk.

    Args:
        path: The file's path; ``~`` means the user's home folder.
    """
    target = Path(path).expanduser()
    # not blocking on a FIFO nobody writes to: it, and every other non-file, is refused
    fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ToolError(f"{str(target)!r} is {file_kind(mode)}, not a file that can be read")
        data = handle.read(MAX_READ_BYTES + 1)
    text = data[:MAX_READ_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_READ_BYTES:
        text += f"\n[... cut at {MAX_READ_BYTES} bytes]"
    return text


@tool(
    permissions=("files:write",),
    requires_approval=True,
    timeout=10,
    # the path decides where it writes: the content and overwrite cannot write elsewhere
    rule=RuleSpec("path", "folder", verb="write", doing="writing"),
)
def write_text_file(path: str, content: str, overwrite: bool = False) -> str:
    """Write text to a file on the user's disk.

    Args:
        path: The file's path; ``~`` means the user's home folder.
        content: The text to write (UTF-8).
        overwrite: Replace the file if it exists; otherwise an existing file is an error.
    """
    target = Path(path).expanduser()
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target} exists; pass overwrite=true to replace it")
    target.write_text(content, encoding="utf-8")
    return f"wrote {len(content.encode('utf-8'))} bytes to {target}"


BUILTIN_TOOLS: tuple[Tool[..., str], ...] = (current_time, read_text_file, write_text_file)
"""The terminal's tools: the time and two unscoped text-file tools that ask before each call."""

BUILTIN_PERMISSIONS: tuple[str, ...] = ("files:read", "files:write")
"""The permissions :data:`BUILTIN_TOOLS` need."""


def builtin_tools(
    granted_folders: Sequence[Path | str] = (),
    allow_private_network: bool = False,
    search: ThreadSearch | None = None,
    *,
    allowed_networks: Iterable[str] = (),
    ingest: MediaIngest | None = None,
) -> list[Tool[..., Any]]:
    """Every built-in tool, set up from the user's settings.

    ``granted_folders``: where the file tools may look and write (none: every path refused).
    ``allow_private_network``: let ``fetch_url`` and ``http_request`` reach this computer and
    the local network; ``allowed_networks`` (e.g. ``"192.168.1.0/24"``) allows only those.
    ``search``: the store's full-text search, for ``search_threads`` (left out without it).
    ``ingest``: turns images and PDFs read by ``read_file`` into content blocks.
    """
    from app.tools.calculator import calculator
    from app.tools.files import file_tools
    from app.tools.web import fetch_tool, http_request_tool

    network = NetworkPolicy.of(allow_private_network, allowed_networks)
    tools: list[Tool[..., Any]] = [
        current_time,
        calculator,
        *file_tools(granted_folders, ingest=ingest),
        fetch_tool(network),
        http_request_tool(network),
    ]
    if search is not None:
        tools.append(search_threads_tool(search))
    return tools


def permissions_of(tools: Iterable[Tool[..., Any]]) -> tuple[str, ...]:
    """Every permission ``tools`` need, once each, in order: what a run must grant to use them."""
    return tuple(dict.fromkeys(p for t in tools for p in t.permissions))
