"""Walking a knowledge folder and opening its files without ever leaving it.

The folder is opened once, and every folder below it is reached through the one before it,
links never followed, as the file tools reach theirs (:mod:`app.fs.openat`): a
link is not followed, so a link that loops cannot hang the walk and one pointing outside is
listed with its reason, never read. The walk keeps a list of the folders still to visit, not a
call per level, and holds open only the folders on the way down to the one it lists, so a very
deep tree cannot exhaust the stack or the descriptors; folders more than :data:`MAX_DEPTH` levels
down are listed with their reason and not entered. A file is opened later component by
component without following a link, non-blocking, and must be a regular file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.fs.kinds import file_kind
from app.fs.openat import DIR_FLAGS, FILE_FLAGS, LinkOnTheWay, open_folder, open_in
from app.text.sizes import human_size

__all__ = [
    "INDEXED_SUFFIXES",
    "MAX_DEPTH",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "Found",
    "Walk",
    "open_relative",
    "read_opened",
    "walk_folder",
]

INDEXED_SUFFIXES = frozenset(
    {
        ".pdf", ".docx", ".md", ".markdown", ".mdown", ".txt", ".text", ".rst", ".org",
        ".tex", ".csv", ".tsv", ".json", ".toml", ".yaml", ".yml", ".ini", ".cfg", ".log",
        ".py", ".js", ".ts", ".tsx", ".jsx", ".c", ".h", ".cc", ".cpp", ".hpp", ".rs",
        ".go", ".java", ".kt", ".swift", ".rb", ".php", ".cs", ".sh", ".sql", ".lua", ".r",
        ".html", ".htm", ".xhtml",
    }
)  # fmt: skip
"""The files a knowledge folder's index reads: documents, web pages, text and code."""

MAX_FILE_BYTES = 64 * 1000 * 1000
"""A bigger file is listed as too big and not read."""

MAX_FILES = 100_000
"""A folder's walk stops after this many files (the rest are listed as one reason)."""

MAX_DEPTH = 64
"""Folders this many levels below the knowledge folder are walked; deeper ones are listed."""

_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv"})


@dataclass(frozen=True, slots=True)
class Found:
    """A regular file to index: its path inside the folder, size and modification time."""

    rel: str
    size: int
    mtime_ns: int


@dataclass
class Walk:
    """What a walk found: files to index, files refused with the reason (by path), and the
    folders it went through (``.`` first), none of them reached through a link."""

    found: list[Found] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    folders: list[str] = field(default_factory=list)


def _link_reason(root: Path, where: Path) -> str | None:
    """Why the link at ``where`` is listed, or ``None`` for one that stays in the folder
    (what it points to is indexed under its own name)."""
    try:
        target = where.resolve(strict=True)
    except RuntimeError:
        return "it is a link that loops back on itself, so it is not followed"
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            return "it is a link that loops back on itself, so it is not followed"
        return f"it is a link to {os.readlink(where)}, which does not exist"
    if target == root or target.is_relative_to(root):
        return None
    return "it is a link to a place outside the folder, which Parley does not read"


def walk_folder(root: Path, stopped: Callable[[], bool] = lambda: False) -> Walk:
    """Every file of ``root`` (a resolved, link-free folder) that the index reads, and the
    refusals. Hidden files and folders, ``node_modules`` and the like are left out, and
    folders deeper than :data:`MAX_DEPTH` are listed, not entered. Raises ``OSError`` when
    the folder itself cannot be opened."""
    out = Walk()
    top = open_folder(root)
    # the folders open now, each inside the one before: the way down to the one visited
    way: list[tuple[Path, int]] = [(Path("."), top)]
    try:
        pending: list[tuple[Path, int]] = [(Path("."), 0)]  # folders to visit, last first
        while pending and not stopped():
            base, depth = pending.pop()
            while len(way) > 1 and way[-1][0] != base.parent:
                os.close(way.pop()[1])
            if depth:
                try:
                    way.append((base, open_in(way[-1][1], base.name, DIR_FLAGS)))
                except LinkOnTheWay:
                    out.refused[base.as_posix()] = (
                        "a link now stands on its way, so it was not read"
                    )
                    continue
                except OSError:
                    continue  # gone (or unreadable) since it was listed
            if not _visit(out, root, base, depth, way[-1][1], pending):
                break
    finally:
        for _, fd in way:
            os.close(fd)
    return out


def _visit(
    out: Walk, root: Path, base: Path, depth: int, fd: int, pending: list[tuple[Path, int]]
) -> bool:
    """List the opened folder ``base``: its files into ``out``, its folders onto
    ``pending`` (in name order); ``False`` once the walk holds :data:`MAX_FILES` files."""
    out.folders.append(base.as_posix())
    dirs: list[str] = []
    files: list[str] = []
    with os.scandir(fd) as entries:
        for entry in entries:
            try:
                (dirs if entry.is_dir() else files).append(entry.name)
            except OSError:
                files.append(entry.name)
    kept = []
    for name in sorted(dirs):
        if name.startswith(".") or name in _SKIPPED_DIRS:
            continue
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            continue  # gone since it was listed
        if stat.S_ISLNK(st.st_mode):
            _refuse_link(out, root, base / name)
        elif depth >= MAX_DEPTH:
            out.refused[(base / name).as_posix()] = (
                f"it lies more than {MAX_DEPTH} folders deep in the knowledge folder, so "
                "Parley does not look inside it"
            )
        else:
            kept.append(name)
    pending.extend((base / name, depth + 1) for name in reversed(kept))
    for name in sorted(files):
        if name.startswith("."):
            continue
        if len(out.found) >= MAX_FILES:
            out.refused[str(base)] = f"the folder holds over {MAX_FILES:,} files"
            return False
        _look(out, root, base / name, fd, name)
    return True


def _refuse_link(out: Walk, root: Path, rel: Path) -> None:
    why = _link_reason(root, root / rel)
    if why is not None:
        out.refused[rel.as_posix()] = why


def _look(out: Walk, root: Path, rel: Path, folder_fd: int, name: str) -> None:
    try:
        st = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except OSError:
        return  # gone since it was listed
    key = rel.as_posix()
    if stat.S_ISLNK(st.st_mode):
        _refuse_link(out, root, rel)
        return
    if not stat.S_ISREG(st.st_mode):
        out.refused[key] = f"it is {file_kind(st.st_mode)}, not a regular file"
        return
    if rel.suffix.lower() not in INDEXED_SUFFIXES:
        return
    if st.st_size > MAX_FILE_BYTES:
        out.refused[key] = (
            f"it is {human_size(st.st_size)}, over the {human_size(MAX_FILE_BYTES)} Parley indexes"
        )
        return
    out.found.append(Found(key, st.st_size, st.st_mtime_ns))


def open_relative(root: Path, rel: str) -> int:
    """Open the file ``rel`` inside ``root`` for reading, every folder on the way without
    following a link (``LinkOnTheWay`` when one stands there now)."""
    parts = Path(rel).parts
    if not parts or ".." in parts or Path(rel).is_absolute():
        raise FileNotFoundError(rel)
    fd = open_folder(root)
    try:
        for part in parts[:-1]:
            inner = open_in(fd, part, DIR_FLAGS)
            os.close(fd)
            fd = inner
        return open_in(fd, parts[-1], FILE_FLAGS)
    finally:
        os.close(fd)


def read_opened(fd: int, limit: int = MAX_FILE_BYTES) -> bytes:
    """The whole of the opened regular file ``fd`` (``ValueError`` when it is not one, or
    grew past ``limit``)."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"it is {file_kind(st.st_mode)}, not a regular file")
    parts = []
    total = 0
    while True:
        chunk = os.pread(fd, 4 * 1024 * 1024, total)
        if not chunk:
            break
        total += len(chunk)
        if total > limit:
            raise ValueError(f"it grew past the {human_size(limit)} Parley indexes")
        parts.append(chunk)
    return b"".join(parts)
