"""Whether a cited local file may be opened with the system's app without asking.

A citation's address is ``file://PATH#page=N``. Whatever the address says, the file that
would open is the one its path resolves to with every link followed; it opens without a
question only when that file is a regular file inside a current knowledge folder, of a kind
the index reads (:data:`~app.services.knowledge.walk.INDEXED_SUFFIXES`), and not a program.
Anything else is asked about, showing the real path.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from app.services.knowledge.walk import INDEXED_SUFFIXES

__all__ = ["CitedFile", "cited_file"]

_RUN_WHEN_OPENED = frozenset({".bat", ".cmd", ".com", ".exe", ".js", ".ps1", ".py", ".sh", ".vbs"})
"""On Windows, files the system's app runs rather than shows (by their suffix)."""

_PAGES_WITH_SCRIPTS = frozenset({".htm", ".html", ".xhtml"})
"""Web pages: a browser opening one runs the scripts it holds."""

_PAGE = re.compile(r"page=[0-9]{1,6}")
"""The only part after ``#`` kept: the page a PDF opens at."""


@dataclass(frozen=True)
class CitedFile:
    """The file a ``file://`` citation would open: its real ``path`` (links followed), the
    address to open (``url``: that path with the citation's page), ``doubt``: why to ask
    first, in sentences (``None``: it may open without a question), and whether it is
    ``missing``."""

    path: Path
    url: str
    doubt: str | None
    missing: bool = False


def _path_of(url: str) -> Path | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = unquote(parts.path)  # what urllib.request's url2pathname does on POSIX
    if not path or "\x00" in path:
        return None
    return Path(os.path.normpath(path)) if os.path.isabs(path) else None


def _runs(path: Path, mode: int) -> bool:
    """Whether opening ``path`` could run it as a program."""
    if mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH):
        return True
    return os.name == "nt" and path.suffix.lower() in _RUN_WHEN_OPENED


def _inside(path: Path, folders: Iterable[str]) -> bool:
    for folder in folders:
        try:
            root = Path(folder).resolve()
        except (OSError, RuntimeError):
            continue
        if path != root and path.is_relative_to(root):
            return True
    return False


def cited_file(url: str, folders: Iterable[str]) -> CitedFile | None:
    """What opening the ``file://`` address ``url`` would open, and whether to ask first
    (``folders``: the knowledge folders as they are now); ``None`` when ``url`` is not an
    address of a file on this computer."""
    path = _path_of(url)
    if path is None:
        return None
    try:
        real = path.resolve()
        mode = real.stat().st_mode
    except (OSError, RuntimeError):  # missing, a loop of links, unreadable
        return CitedFile(path, path.as_uri(), "It is not there any more.", missing=True)
    page = _PAGE.fullmatch(urlsplit(url).fragment)
    opened = real.as_uri() + (f"#{page.group(0)}" if page else "")
    doubts = []
    if not _inside(real, folders):
        doubts.append("It is not inside a knowledge folder.")
    if not stat.S_ISREG(mode):
        doubts.append("It is not a file.")
    elif real.suffix.lower() not in INDEXED_SUFFIXES:
        doubts.append("It is not a kind of file a knowledge folder indexes.")
    if stat.S_ISREG(mode) and _runs(real, mode):
        doubts.append("It is a program: opening it may run it.")
    elif real.suffix.lower() in _PAGES_WITH_SCRIPTS:
        doubts.append("It is a web page: your browser runs the scripts it may hold.")
    return CitedFile(real, opened, " ".join(doubts) or None)
