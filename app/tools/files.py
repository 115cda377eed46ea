"""File tools confined to the folders the user granted: list, read, search and write.

Build them with :func:`file_tools` from the granted folders (none by default, and then every
path is refused). Reading, listing and searching need the ``files:read`` permission;
``write_file`` needs ``files:write`` and the user's approval, whose request shows a unified
diff against the current file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from app.core.state import ContentBlock, TextBlock
from app.core.tools import ApprovalPreview, RuleSpec, Tool, ToolError, tool
from app.fs.openat import create_temp, stat_in
from app.tools._diff import write_preview
from app.tools._folders import GrantedFolders
from app.tools._reading import media_type, read_chunk
from app.tools._search import search_tree

__all__ = [
    "MAX_LIST_ENTRIES",
    "MAX_READ_CHARS",
    "MAX_WRITE_BYTES",
    "MediaIngest",
    "file_tools",
]

MAX_READ_CHARS = 100_000
"""At most this many bytes of text are read by one ``read_file`` call."""

MAX_LIST_ENTRIES = 500
"""``list_directory`` names at most this many entries."""

MAX_WRITE_BYTES = 5_000_000
"""``write_file`` refuses content larger than this."""

MediaIngest = Callable[[BinaryIO, str, str], Awaitable[Sequence[ContentBlock]]]
"""Turns an image or PDF into content blocks for the model, given the file already opened (read
it through its descriptor, never reopen it by name; it stays open until the ingest returns),
its name and its media type."""


def _size(n: int, digits: int = 1) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.{digits}f} {unit}"
        n = n / 1000  # type: ignore[assignment]
    return f"{n} bytes"


def _sizes(a: int, b: int) -> tuple[str, str]:
    """``a`` and ``b`` as sizes that read differently when they differ: more digits when they
    round alike, exact bytes when even three digits do not tell them apart."""
    for digits in (1, 2, 3):
        shown = _size(a, digits), _size(b, digits)
        if a == b or shown[0] != shown[1]:
            return shown
    return f"{a:,} bytes", f"{b:,} bytes"


def _list(folders: GrantedFolders, path: str) -> str:
    real = folders.resolve(path)
    try:
        st = real.stat()
    except FileNotFoundError:
        raise ToolError(f"the folder {path!r} does not exist") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ToolError(f"{path!r} is not a folder; use read_file to read a file")
    with folders.folder(real, path) as fd:
        try:
            entries = sorted(os.scandir(fd), key=lambda e: e.name.lower())
        except PermissionError:
            raise ToolError(f"the folder {path!r} cannot be read (permission denied)") from None
        return _listing(real, entries)


def _listing(real: Path, entries: list[os.DirEntry[str]]) -> str:
    count = "1 entry" if len(entries) == 1 else f"{len(entries)} entries"
    lines = [f"Folder {real} ({count}):"]
    for entry in entries[:MAX_LIST_ENTRIES]:
        try:
            if entry.is_symlink():
                lines.append(f"{entry.name} -> link")
            elif entry.is_dir(follow_symlinks=False):
                lines.append(f"{entry.name}/")
            elif entry.is_file(follow_symlinks=False):
                lines.append(f"{entry.name} ({_size(entry.stat(follow_symlinks=False).st_size)})")
            else:
                lines.append(f"{entry.name} (special file)")
        except OSError:
            lines.append(f"{entry.name} (unreadable)")
    if len(entries) > MAX_LIST_ENTRIES:
        lines.append(f"[... {len(entries) - MAX_LIST_ENTRIES} more entries not shown]")
    if not entries:
        lines.append("(empty)")
    return "\n".join(lines)


def _read(folders: GrantedFolders, path: str, offset: int) -> str | tuple[BinaryIO, str]:
    """The text to return, or ``(the opened file, media type)`` for an image or PDF."""
    real = folders.resolve(path)
    fd = folders.open_regular(real, path)
    try:
        mime = media_type(real, os.pread(fd, 16, 0))
        if mime is not None:
            handle = os.fdopen(fd, "rb")
            fd = -1
            return handle, mime
        chunk = read_chunk(fd, offset, MAX_READ_CHARS)
    finally:
        if fd >= 0:
            os.close(fd)
    if chunk.binary:
        raise ToolError(f"{path!r} is a binary file ({_size(chunk.size)}), not text")
    if offset >= chunk.size and chunk.size:
        raise ToolError(f"offset {offset} is past the end of {path!r} ({chunk.size} bytes)")
    text = chunk.text if chunk.size else "(the file is empty)"
    if chunk.cut:
        text += (
            f"\n[... cut at byte {chunk.end} of {chunk.size}; call read_file with "
            f"offset={chunk.end} to read on]"
        )
    return text


def _media_note(path: str, size: int, mime: str) -> str:
    kind = "a PDF document" if mime == "application/pdf" else f"an image ({mime})"
    return (
        f"{path!r} is {kind} of {_size(size)}. Its content cannot be shown as text; the user "
        "can attach it to a message instead."
    )


def _write_target(
    folders: GrantedFolders, path: str, data: bytes
) -> tuple[Path, os.stat_result | None]:
    """The real path to write and its current status (``None``: a new file), or a refusal."""
    if len(data) > MAX_WRITE_BYTES:
        size, most = _sizes(len(data), MAX_WRITE_BYTES)
        raise ToolError(f"the content is {size}; at most {most} may be written")
    real = folders.resolve(path)
    try:
        st = os.stat(real, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise ToolError(f"{path!r} is not a regular file, so it is not overwritten")
    if not real.parent.is_dir():
        raise ToolError(
            f"the folder {str(Path(path).parent)!r} does not exist; create files in an "
            "existing folder"
        )
    return real, st


def _write(folders: GrantedFolders, path: str, content: str) -> str:
    data = content.encode("utf-8")
    real, _ = _write_target(folders, path, data)
    # the folder is opened without following links, and everything happens inside it
    with folders.folder(real.parent, path) as folder:
        st = stat_in(folder, real.name)
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise ToolError(f"{path!r} is not a regular file, so it is not overwritten")
        # a whole new file, renamed over the old one: a failed write never leaves half a file
        try:
            fd, temp = create_temp(folder, real.name)
        except OSError as exc:
            raise ToolError(f"{path!r} could not be written ({exc.strerror or exc})") from None
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                os.fchmod(out.fileno(), stat.S_IMODE(st.st_mode) if st else 0o644)
            os.replace(temp, real.name, src_dir_fd=folder, dst_dir_fd=folder)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
            raise ToolError(f"{path!r} could not be written ({exc.strerror or exc})") from None
    verb = "replaced" if st is not None else "created"
    return f"{verb} {folders.shown(real)} ({_size(len(data))})"


def file_tools(
    granted: Sequence[Path | str], *, ingest: MediaIngest | None = None
) -> list[Tool[..., Any]]:
    """Build ``list_directory``, ``read_file``, ``search_files`` and ``write_file``.

    Every path must lie in one of ``granted`` (after ``~``, relative paths and symlinks are
    resolved); with none granted every call is refused with a sentence saying so. ``ingest``
    turns images and PDFs into content blocks; without it ``read_file`` describes them.
    """
    folders = GrantedFolders(granted)
    where = folders.describe()

    @tool(
        permissions=("files:read",),
        timeout=15,
        description=f"List the files and folders in a folder. {where}",
    )
    def list_directory(path: str = ".") -> str:
        """List a folder.

        Args:
            path: The folder to list; "." is the first shared folder.
        """
        return _list(folders, path)

    @tool(
        permissions=("files:read",),
        timeout=30,
        description=(
            f"Read a text file (up to {MAX_READ_CHARS} bytes per call; a longer file ends with "
            f"a note giving the offset to read on from). {where}"
        ),
    )
    async def read_file(path: str, offset: int = 0) -> str | list[ContentBlock]:
        """Read a file.

        Args:
            path: The file to read.
            offset: The byte to start reading at; 0 reads from the start.
        """
        if offset < 0:
            raise ToolError(f"offset must be 0 or more, not {offset}")
        read = await asyncio.to_thread(_read, folders, path, offset)
        if isinstance(read, str):
            return read
        handle, mime = read
        with handle:
            if ingest is None:
                return _media_note(path, os.fstat(handle.fileno()).st_size, mime)
            blocks = list(await ingest(handle, Path(path).name, mime))
        return [TextBlock(text=f"{path} ({mime}):"), *blocks]

    @tool(
        permissions=("files:read",),
        timeout=30,
        description=(
            "Find files whose name contains the text, or whose content contains it (ignoring "
            f"case). Shows at most 100 matches. {where}"
        ),
    )
    def search_files(text: str, path: str = ".", in_content: bool = True) -> str:
        """Search files by name and content.

        Args:
            text: The text to look for, e.g. "invoice" or "TODO".
            path: The folder to search in, with its subfolders.
            in_content: Also look inside text files, not only at names.
        """
        if not text.strip():
            raise ToolError("the search text is empty; give a word to look for")
        real = folders.resolve(path)
        if not real.is_dir():
            raise ToolError(f"{path!r} is not a folder; search in a folder")
        with folders.folder(real, path) as opened:
            return search_tree(real, opened, text, in_content=in_content, shown=folders.shown)

    def preview_write(args: Mapping[str, Any]) -> ApprovalPreview:
        content = str(args["content"])
        path = str(args["path"])
        real, st = _write_target(folders, path, content.encode("utf-8"))
        current = folders.open_regular(real, path) if st is not None else None
        return write_preview(current, folders.shown(real), content)

    @tool(
        permissions=("files:write",),
        requires_approval=True,
        timeout=30,
        approval_preview=preview_write,
        # the path decides what a call does: its content cannot write elsewhere
        rule=RuleSpec("path", "folder", verb="write", doing="writing"),
        description=(
            "Create a text file or replace a file's whole content (UTF-8). The user sees the "
            f"change and must approve it. {where}"
        ),
    )
    def write_file(path: str, content: str) -> str:
        """Write a file.

        Args:
            path: The file to write; its folder must exist.
            content: The complete new text of the file.
        """
        return _write(folders, path, content)

    return [list_directory, read_file, search_files, write_file]
