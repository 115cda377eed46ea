"""What kind of file a mode names, for a refusal that says why a path is not read."""

from __future__ import annotations

import stat

__all__ = ["file_kind"]


def file_kind(mode: int) -> str:
    """What a file of ``mode`` is, for a refusal: "a folder", "a named pipe (FIFO)", ..."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
