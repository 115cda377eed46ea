"""The folders the user granted, and the one door through which a file tool reaches a path.

Every path a model names is checked here before anything is opened: ``..`` is refused, ``~``
and relative paths are expanded, symlinks are resolved, and the real path must lie inside a
granted folder. Files are then opened without following a last-moment symlink and without
blocking on a FIFO, and must be regular files.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from app.core.tools import ToolError

__all__ = ["GrantedFolders"]


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


class GrantedFolders:
    """The folders file tools may use; none means the file tools refuse every path."""

    def __init__(self, granted: Sequence[Path | str]) -> None:
        self.roots: tuple[Path, ...] = tuple(
            dict.fromkeys(Path(g).expanduser().resolve() for g in granted)
        )

    def describe(self) -> str:
        """One sentence for a tool description: which folders, and where relative paths go."""
        if not self.roots:
            return "No folders are shared yet, so every path is refused."
        listed = ", ".join(str(r) for r in self.roots)
        return f"Folders you may use: {listed}. A relative path is inside {self.roots[0]}."

    def resolve(self, path: str) -> Path:
        """Return the real path ``path`` names, or raise :class:`ToolError` if it is not allowed.

        The path need not exist (``write_file`` creates files); its real location must be in a
        granted folder once every symlink on the way is followed.
        """
        if not self.roots:
            raise ToolError(
                "no folder is shared with Parley, so no file can be used; the user can share "
                "folders in the settings"
            )
        text = path.strip()
        if not text:
            raise ToolError("the path is empty; give a file or folder path")
        if "\x00" in text:
            raise ToolError("the path contains a NUL character")
        given = Path(text).expanduser()
        if ".." in given.parts:
            raise ToolError(
                f"the path {path!r} uses '..', which is not allowed; use a path inside "
                f"{self._names()}"
            )
        absolute = given if given.is_absolute() else self.roots[0] / given
        real = absolute.resolve()
        for root in self.roots:
            if real == root or real.is_relative_to(root):
                return real
        if real != absolute:
            raise ToolError(
                f"the path {path!r} leads through a link to {real}, which is outside the shared "
                f"folders ({self._names()})"
            )
        raise ToolError(f"the path {path!r} is outside the shared folders ({self._names()})")

    def shown(self, real: Path) -> str:
        """How to name ``real`` to the model: relative to its granted folder when possible."""
        for root in self.roots:
            if real.is_relative_to(root):
                rel = real.relative_to(root)
                return str(rel) if root == self.roots[0] and rel.parts else str(real)
        return str(real)

    def open_regular(self, real: Path, label: str) -> int:
        """Open ``real`` for reading and return the descriptor; refuse anything but a file.

        Opens with ``O_NONBLOCK`` (a FIFO must not hang the tool) and ``O_NOFOLLOW`` (a symlink
        swapped in after :meth:`resolve` is refused), then checks the opened file itself.
        """
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            st = os.stat(real, follow_symlinks=False)
        except FileNotFoundError:
            raise ToolError(f"{label!r} does not exist") from None
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"{label!r} is {_kind(st.st_mode)}, not a file that can be read")
        try:
            fd = os.open(real, flags)
        except OSError as exc:
            raise ToolError(f"{label!r} could not be opened ({exc.strerror or exc})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ToolError(f"{label!r} changed while being opened and is no longer a file")
        return fd

    def _names(self) -> str:
        return ", ".join(str(r) for r in self.roots)
