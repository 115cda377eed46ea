"""A bounded walk of a folder for ``search_files``: names and text content, no symlinks."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from app.fs.openat import FILE_FLAGS

__all__ = ["MAX_MATCHES", "MAX_SCANNED_FILES", "search_tree"]

MAX_MATCHES = 100
"""A search stops after this many matches."""

MAX_SCANNED_FILES = 5_000
"""A search looks at no more than this many files."""

MAX_CONTENT_BYTES = 1_000_000
"""Only this much of each file is searched for the text."""

MAX_TOTAL_BYTES = 50_000_000
"""A search reads no more than this much content in all."""

_TOO_MANY = f"[stopped after {MAX_MATCHES} matches; search a smaller folder or a longer text]"
_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})


def _line_matches(folder: int, name: str, needle: str, budget: list[int]) -> list[tuple[int, str]]:
    """The lines of ``name`` in ``folder`` holding ``needle``; ``budget[0]`` (bytes left) is
    spent."""
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=folder)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        data = os.pread(fd, min(MAX_CONTENT_BYTES, budget[0]), 0)
    finally:
        os.close(fd)
    budget[0] -= len(data)
    if b"\x00" in data[:8192]:
        return []
    found = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if needle in line.lower():
            found.append((number, line.strip()[:200]))
    return found


def search_tree(
    root: Path, opened: int, text: str, *, in_content: bool, shown: Callable[[Path], str]
) -> str:
    """Return one line per match under ``root`` (opened as ``opened``): ``path`` for a name,
    ``path:line: text`` for content. The walk goes through opened folders and never follows a
    link (a folder swapped for one midway is skipped), skips special files, and is bounded."""
    needle = text.lower()
    matches: list[str] = []
    scanned = 0
    stopped = ""
    budget = [MAX_TOTAL_BYTES]
    for folder, dirs, files, folder_fd in os.fwalk(".", dir_fd=opened, follow_symlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        base = root / os.path.normpath(folder)
        for name in sorted(files):
            if len(matches) >= MAX_MATCHES:
                stopped = _TOO_MANY
                break
            if scanned >= MAX_SCANNED_FILES:
                stopped = (
                    f"[stopped after looking at {MAX_SCANNED_FILES} files; search a smaller folder]"
                )
                break
            real = base / name
            try:
                mode = os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode
            except OSError:
                continue
            if not stat.S_ISREG(mode):
                continue
            scanned += 1
            if needle in name.lower():
                matches.append(f"{shown(real)} (name matches)")
            if in_content and budget[0] <= 0:
                stopped = "[stopped after reading 50 MB; search a smaller folder]"
                break
            if in_content:
                for number, line in _line_matches(folder_fd, name, needle, budget):
                    matches.append(f"{shown(real)}:{number}: {line}")
        if stopped:
            break
    if len(matches) > MAX_MATCHES and not stopped:
        stopped = _TOO_MANY
    header = f"Searched {scanned} files under {root} for {text!r}:"
    if not matches:
        return f"{header}\nno matches."
    return "\n".join([header, *matches[:MAX_MATCHES], *([stopped] if stopped else [])])
