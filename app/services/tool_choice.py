"""Which tools each thread offers its model: a small JSON file beside the database.

A thread starts with no tools; the composer's tools menu switches them on and off, and the
choice is kept per thread so reopening the window brings it back. The file maps a thread id to
the tool names switched on (built-in names, and ``SERVER__TOOL`` for MCP tools), and under
:data:`NO_AUTO_PASSAGES` lists the threads whose questions get no knowledge passages put before
them, and under :data:`INCOGNITO` the incognito threads (no memory used or kept in them);
it is written atomically, and a damaged file is set aside, never lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

__all__ = ["FILE_NAME", "INCOGNITO", "NO_AUTO_PASSAGES", "ThreadToolChoices"]

FILE_NAME = "thread_tools.json"

NO_AUTO_PASSAGES = "#no-auto-passages"
"""The file's key for the threads that switched the automatic knowledge passages off (no
thread id starts with ``#``)."""

INCOGNITO = "#incognito"
"""The file's key for the incognito threads: no memory goes before their questions and
nothing is remembered from them."""


class ThreadToolChoices:
    """The tools switched on in each thread, kept in ``thread_tools.json`` in ``data_dir``."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / FILE_NAME
        self._choices: dict[str, list[str]] | None = None
        self._no_passages: set[str] = set()
        self._incognito: set[str] = set()

    def _load(self) -> dict[str, list[str]]:
        if self._choices is not None:
            return self._choices
        choices: dict[str, list[str]] = {}
        try:
            raw = json.loads(self.path.read_bytes())
            if not isinstance(raw, dict):
                raise ValueError("not an object")
            off = raw.pop(NO_AUTO_PASSAGES, [])
            self._no_passages = {str(t) for t in off} if isinstance(off, list) else set()
            hidden = raw.pop(INCOGNITO, [])
            self._incognito = {str(t) for t in hidden} if isinstance(hidden, list) else set()
            for thread_id, names in raw.items():
                if isinstance(names, list):
                    choices[str(thread_id)] = [str(n) for n in names]
        except FileNotFoundError:
            pass
        except (OSError, ValueError):
            aside = self.path.with_name(f"{FILE_NAME}.damaged-{int(time.time())}")
            with contextlib.suppress(OSError):
                self.path.rename(aside)
        self._choices = choices
        return choices

    def enabled(self, thread_id: str) -> list[str]:
        """The tool names switched on in ``thread_id`` (none for a thread never set)."""
        return list(self._load().get(thread_id, []))

    def set_enabled(self, thread_id: str, names: Iterable[str]) -> list[str]:
        """Switch on exactly ``names`` in ``thread_id`` and write the file; returns them."""
        chosen = list(dict.fromkeys(names))
        choices = self._load()
        if chosen:
            choices[thread_id] = chosen
        else:
            choices.pop(thread_id, None)
        self._write(choices)
        return chosen

    def auto_passages(self, thread_id: str) -> bool:
        """Whether ``thread_id``'s questions get knowledge passages put before them when the
        model is not offered ``search_knowledge`` (on unless switched off)."""
        self._load()
        return thread_id not in self._no_passages

    def set_auto_passages(self, thread_id: str, on: bool) -> bool:
        """Switch the automatic passages of ``thread_id`` on or off and write the file."""
        choices = self._load()
        if on:
            self._no_passages.discard(thread_id)
        else:
            self._no_passages.add(thread_id)
        self._write(choices)
        return on

    def incognito(self, thread_id: str) -> bool:
        """Whether ``thread_id`` is incognito: no memory is used or kept in it."""
        self._load()
        return thread_id in self._incognito

    def set_incognito(self, thread_id: str, on: bool) -> bool:
        """Make ``thread_id`` incognito or not and write the file."""
        choices = self._load()
        if on:
            self._incognito.add(thread_id)
        else:
            self._incognito.discard(thread_id)
        self._write(choices)
        return on

    def forget(self, thread_id: str) -> None:
        """Drop the choice of a deleted thread."""
        choices = self._load()
        dropped = choices.pop(thread_id, None) is not None
        for flagged in (self._no_passages, self._incognito):
            if thread_id in flagged:
                flagged.discard(thread_id)
                dropped = True
        if dropped:
            self._write(choices)

    def _write(self, choices: dict[str, list[str]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".thread-tools-", dir=self.path.parent)
        try:
            kept: dict[str, list[str]] = dict(choices)
            if self._no_passages:
                kept[NO_AUTO_PASSAGES] = sorted(self._no_passages)
            if self._incognito:
                kept[INCOGNITO] = sorted(self._incognito)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(kept, out, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
