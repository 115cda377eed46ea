"""The folders an agent file names, checked against this machine.

An agent file comes from anyone, so a folder it names — for an approval rule or as knowledge —
must lie inside the home folder, not be the home folder itself, and have no hidden folder
(``~/.ssh``, ``~/.config``, a shell's start-up file) or folder of the system's own application
data (``~/Library`` on macOS, ``~/AppData`` on Windows) anywhere on its way. Folders are
compared resolved: ``~`` expanded, ``..`` and symlinks followed.

:func:`file_knowledge` decides which knowledge folders of a file an import adds: never one that
breaks the rule above, and never one that already belongs to another agent or to every thread
(that one is named and left as it is). :func:`exportable_folder` is the same rule for what an
export writes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FileKnowledge", "exportable_folder", "file_knowledge", "folder_problem", "portable"]

_SYSTEM_DATA = {"darwin": "Library", "win32": "AppData"}
"""The folder of the home folder where the system keeps applications' data and start-up items."""


def home() -> Path:
    """The home folder, resolved."""
    return Path(os.path.realpath(Path.home()))


def portable(folder: str) -> str:
    """``folder`` as ``~/…`` when it lies inside the home folder (``~`` for the home folder)."""
    base, path = home(), Path(folder)
    if path == base:
        return "~"
    return "~/" + path.relative_to(base).as_posix() if path.is_relative_to(base) else folder


def folder_problem(real: Path) -> str | None:
    """Why the resolved folder ``real`` cannot come from an agent file, as the end of a
    sentence ("is outside your home folder"); ``None`` when it can."""
    base = home()
    if real == base:
        return "is your whole home folder"
    if not real.is_relative_to(base):
        return "is outside your home folder"
    parts = real.relative_to(base).parts
    hidden = next((p for p in parts if p.startswith(".")), None)
    if hidden is not None:
        return f"is a hidden folder or inside one ({hidden})"
    system = _SYSTEM_DATA.get(sys.platform)
    if system is not None and parts[0] == system:
        return f"is inside {system}, where applications keep their data"
    return None


def exportable_folder(folder: str) -> bool:
    """Whether an export may write ``folder`` (resolved already): an import here would take it."""
    return folder_problem(Path(folder)) is None


@dataclass(frozen=True, slots=True)
class FileKnowledge:
    """The knowledge folders of a file compared with this machine: ``folders`` are the ones
    an import adds (resolved), ``shown`` each asked folder as a person reads it (resolved,
    after what the file wrote when that differs), ``warnings`` a sentence for each one left
    out."""

    folders: tuple[str, ...]
    shown: tuple[str, ...]
    warnings: tuple[str, ...]


def _resolved(folder: str) -> Path | None:
    path = Path(folder).expanduser()
    if not path.is_absolute():
        return None
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return None


def file_knowledge(asked: Sequence[str], owners: Mapping[str, str | None]) -> FileKnowledge:
    """Which of the ``asked`` knowledge folders an import adds. ``owners`` are the knowledge
    folders here (resolved) with the name of the agent each belongs to (``None``: to every
    thread); such a folder is never taken from its owner."""
    folders: list[str] = []
    shown: list[str] = []
    warnings: list[str] = []
    absent: list[str] = []
    for folder in asked:
        real = _resolved(folder)
        if real is None:
            shown.append(folder)
            absent.append(folder)
            continue
        resolved = portable(str(real))
        display = resolved if resolved == folder else f"{folder} → {resolved}"
        shown.append(display)
        if (problem := folder_problem(real)) is not None:
            warnings.append(f"The knowledge folder {display} {problem}, so it is left out.")
        elif not real.is_dir():
            absent.append(folder)
        elif str(real) in owners:
            owner = owners[str(real)] or "every thread"
            warnings.append(
                f"{resolved} is already a knowledge folder of {owner}; it is left as it is."
            )
        elif str(real) not in folders:
            folders.append(str(real))
    if absent:
        warnings.append(
            "These knowledge folders do not exist here and are left out: " + ", ".join(absent) + "."
        )
    return FileKnowledge(tuple(folders), tuple(shown), tuple(warnings))
