"""What the knowledge index hands back: folders with their status, files, passages found."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["FileRow", "FolderRecord", "PassageHit", "Skipped"]


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file of a folder that could not be read, and why (one sentence)."""

    rel: str
    reason: str


@dataclass(frozen=True, slots=True)
class FolderRecord:
    """A knowledge folder and how it stands: files indexed, their bytes, passages, the last
    finished sync (UNIX time, ``None`` before the first), the files skipped with reasons and
    the passages that have a vector.
    ``agent`` is the agent it belongs to, ``None`` for every thread."""

    id: int
    path: str
    agent: str | None
    added_at: float
    last_sync: float | None
    files: int = 0
    bytes: int = 0
    passages: int = 0
    skipped: tuple[Skipped, ...] = field(default_factory=tuple)
    vectors: int = 0
    """How many of its passages have a vector (search by meaning)."""


@dataclass(frozen=True, slots=True)
class FileRow:
    """A file as the index last saw it: ``status`` is ``indexed`` or ``skipped``."""

    id: int
    rel: str
    size: int
    mtime_ns: int
    sha256: str
    status: str
    reason: str | None


@dataclass(frozen=True, slots=True)
class PassageHit:
    """A passage that matched a search, with its source: the folder, the file's path inside
    it and its full path, the page (PDF) or headings, the character range, its score (higher
    is better) and how close it is to the question (``relevance``, 0 to 1: by words, the
    share of the question's rare words it holds; by meaning, the vectors' cosine)."""

    passage_id: int
    folder: str
    rel: str
    path: str
    page: int | None
    heading: str | None
    start: int
    end: int
    text: str
    score: float
    relevance: float = 1.0
