"""The folders the user granted, and the one door through which a file tool reaches a path.

Every path a model names is checked here before anything is opened: ``..`` is refused, ``~``
and relative paths are expanded, symlinks are resolved, and the real path must lie inside a
granted folder. The real path is then opened one component at a time without following any
link (:mod:`app.fs.openat`), so a folder swapped for a link meanwhile is refused; files are
opened without blocking on a FIFO, and must be regular files.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from app.core.tools import ToolError
from app.fs.kinds import file_kind
from app.fs.openat import FILE_FLAGS, LinkOnTheWay, open_folder, open_in, stat_in

__all__ = ["GrantedFolders"]


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
        try:
            real = absolute.resolve()
        except (OSError, RuntimeError):  # a link that loops, or one that changed as it was read
            raise ToolError(
                f"the path {path!r} could not be followed to a real file (a link on the way "
                "loops or changed while it was read)"
            ) from None
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

        Every folder on the way is opened without following links (a folder swapped for a link
        after :meth:`resolve` is refused), and the file with ``O_NOFOLLOW`` and ``O_NONBLOCK``
        (a FIFO must not hang the tool); it is checked before and after it is opened.
        """
        if real.parent == real:
            raise ToolError(f"{label!r} is a folder, not a file that can be read")
        with self.folder(real.parent, label) as folder:
            st = stat_in(folder, real.name)
            if st is None:
                raise ToolError(f"{label!r} does not exist")
            if not stat.S_ISREG(st.st_mode):
                raise ToolError(
                    f"{label!r} is {file_kind(st.st_mode)}, not a file that can be read"
                )
            with self._refusals(label):
                fd = open_in(folder, real.name, FILE_FLAGS)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ToolError(f"{label!r} changed while being opened and is no longer a file")
        return fd

    @contextmanager
    def folder(self, real: Path, label: str) -> Iterator[int]:
        """The opened folder ``real`` (from :meth:`resolve`), reached without following a link;
        a refusal naming ``label`` when it is missing, not a folder, or became a link."""
        with self._refusals(label):
            fd = open_folder(real)
        try:
            yield fd
        finally:
            os.close(fd)

    @contextmanager
    def _refusals(self, label: str) -> Iterator[None]:
        """Turn what opening ``label`` raised into the sentence the model reads."""
        try:
            yield
        except LinkOnTheWay:
            raise self._swapped(label) from None
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"{label!r} does not exist") from None
        except OSError as exc:
            raise ToolError(f"{label!r} could not be opened ({exc.strerror or exc})") from None

    def _swapped(self, label: str) -> ToolError:
        return ToolError(
            f"the path {label!r} changed while it was being opened (a folder or file on the way "
            "became a link), so it was not used"
        )

    def _names(self) -> str:
        return ", ".join(str(r) for r in self.roots)
