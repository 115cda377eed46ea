"""Built-in tools Parley can offer a model: the time, and reading and writing text files.

File tools touch the user's disk, so each call waits for approval.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from app.core.tools import Tool, tool

__all__ = [
    "BUILTIN_PERMISSIONS",
    "BUILTIN_TOOLS",
    "current_time",
    "read_text_file",
    "write_text_file",
]

MAX_READ_BYTES = 200_000


@tool(timeout=5)
def current_time() -> str:
    """Return the current local date and time in ISO 8601 format."""
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


@tool(permissions=("files:read",), requires_approval=True, timeout=10)
def read_text_file(path: str) -> str:
    """Read a UTF-8 text file from the user's disk.

    Args:
        path: The file's path; ``~`` means the user's home folder.
    """
    target = Path(path).expanduser()
    data = target.read_bytes()[: MAX_READ_BYTES + 1]
    text = data[:MAX_READ_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_READ_BYTES:
        text += f"\n[... cut at {MAX_READ_BYTES} bytes]"
    return text


@tool(permissions=("files:write",), requires_approval=True, timeout=10)
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
"""Every built-in tool."""

BUILTIN_PERMISSIONS: tuple[str, ...] = ("files:read", "files:write")
"""The permissions the built-in tools need."""
