"""The knowledge index's reads and writes, each run on the index's own thread with its
connection. A file's passages and its row are written in one transaction; a big file's in
batches of :data:`SAVE_BATCH` (see :func:`begin_file`), so a search is never kept waiting
long behind it."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from app.knowledge import Passage
from app.store.knowledge.records import FileRow, FolderRecord, PassageHit, Skipped

__all__ = [
    "SAVE_BATCH",
    "add_folder",
    "add_passages",
    "begin_file",
    "delete_files",
    "drop_passages",
    "file_rows",
    "finish_file",
    "list_folders",
    "match_query",
    "move_file",
    "passage_count",
    "remove_folder",
    "save_file",
    "save_skipped",
    "search",
    "set_synced",
    "touch_file",
]

SAVE_BATCH = 500
"""Passages written (or forgotten) in one transaction when a big file is saved."""

_WORD = re.compile(r"\w+", re.UNICODE)
_MAX_TERMS = 32
_COMMON = frozenset(
    (
        "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "had",
        "has", "have", "how", "i", "if", "in", "is", "it", "its", "me", "my", "of", "on", "or",
        "our", "so", "that", "the", "their", "them", "then", "there", "these", "this", "to", "was",
        "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "you",
        "your",
    )
)  # fmt: skip
"""Words too common to find anything by; a question made only of them still searches them."""


def _tx(conn: sqlite3.Connection) -> _Tx:
    return _Tx(conn)


class _Tx:
    """``with _Tx(conn):`` runs the block in one ``BEGIN IMMEDIATE`` transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: object, *_: object) -> None:
        self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")


def add_folder(conn: sqlite3.Connection, path: str, agent: str | None) -> tuple[int, bool]:
    """Add ``path`` (a resolved folder); returns its id and whether it was new."""
    row = conn.execute("SELECT id FROM folders WHERE path = ?", (path,)).fetchone()
    if row is not None:
        return int(row[0]), False
    with _tx(conn):
        cur = conn.execute(
            "INSERT INTO folders (path, agent, added_at) VALUES (?, ?, ?)",
            (path, agent, time.time()),
        )
    return int(cur.lastrowid or 0), True


def set_folder_agent(conn: sqlite3.Connection, folder_id: int, agent: str | None) -> None:
    """Make the folder belong to ``agent`` (``None``: to no agent, so to every thread)."""
    with _tx(conn):
        conn.execute("UPDATE folders SET agent = ? WHERE id = ?", (agent, folder_id))


def remove_folder(conn: sqlite3.Connection, folder_id: int) -> None:
    """Forget a folder, its files and their passages (the folder itself is untouched)."""
    with _tx(conn):
        conn.execute(
            "DELETE FROM passages WHERE file_id IN (SELECT id FROM files WHERE folder_id = ?)",
            (folder_id,),
        )
        conn.execute("DELETE FROM files WHERE folder_id = ?", (folder_id,))
        conn.execute("DELETE FROM folders WHERE id = ?", (folder_id,))


def list_folders(conn: sqlite3.Connection) -> list[FolderRecord]:
    """Every folder with its counts and its skipped files, in the order they were added."""
    out = []
    for fid, path, agent, added, synced in conn.execute(
        "SELECT id, path, agent, added_at, last_sync FROM folders ORDER BY id"
    ).fetchall():
        files, size = conn.execute(
            "SELECT count(*), coalesce(sum(size), 0) FROM files "
            "WHERE folder_id = ? AND status = 'indexed'",
            (fid,),
        ).fetchone()
        passages = conn.execute(
            "SELECT count(*) FROM passages JOIN files ON files.id = passages.file_id "
            "WHERE files.folder_id = ?",
            (fid,),
        ).fetchone()[0]
        skipped = tuple(
            Skipped(rel, reason or "")
            for rel, reason in conn.execute(
                "SELECT rel, reason FROM files WHERE folder_id = ? AND status = 'skipped' "
                "AND reason IS NOT NULL ORDER BY rel",
                (fid,),
            )
        )
        vectors = conn.execute(
            "SELECT count(*) FROM passage_vectors v JOIN passages p ON p.id = v.passage_id "
            "JOIN files f ON f.id = p.file_id WHERE f.folder_id = ?",
            (fid,),
        ).fetchone()[0]
        out.append(
            FolderRecord(fid, path, agent, added, synced, files, size, passages, skipped, vectors)
        )
    return out


def file_rows(conn: sqlite3.Connection, folder_id: int) -> dict[str, FileRow]:
    """The files the index holds for a folder, by their path inside it."""
    return {
        row[1]: FileRow(*row)
        for row in conn.execute(
            "SELECT id, rel, size, mtime_ns, sha256, status, reason FROM files WHERE folder_id = ?",
            (folder_id,),
        )
    }


def _replace_row(
    conn: sqlite3.Connection,
    folder_id: int,
    rel: str,
    size: int,
    mtime_ns: int,
    sha256: str,
    status: str,
    reason: str | None,
) -> int:
    conn.execute(
        "DELETE FROM passages WHERE file_id IN "
        "(SELECT id FROM files WHERE folder_id = ? AND rel = ?)",
        (folder_id, rel),
    )
    conn.execute("DELETE FROM files WHERE folder_id = ? AND rel = ?", (folder_id, rel))
    cur = conn.execute(
        "INSERT INTO files (folder_id, rel, size, mtime_ns, sha256, status, reason, indexed_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (folder_id, rel, size, mtime_ns, sha256, status, reason, time.time()),
    )
    return int(cur.lastrowid or 0)


def save_file(
    conn: sqlite3.Connection,
    folder_id: int,
    rel: str,
    size: int,
    mtime_ns: int,
    sha256: str,
    passages: Sequence[Passage],
) -> None:
    """Save a file read in full and its passages, replacing what the index had for it: all
    in one transaction, so a kill leaves either the old file or the new one."""
    with _tx(conn):
        file_id = _replace_row(conn, folder_id, rel, size, mtime_ns, sha256, "indexed", None)
        conn.executemany(
            'INSERT INTO passages (file_id, page, heading, start, "end", text) '
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((file_id, p.page, p.heading, p.start, p.end, p.text) for p in passages),
        )


def drop_passages(conn: sqlite3.Connection, folder_id: int, rel: str, limit: int) -> int:
    """Forget up to ``limit`` of the passages the index holds for ``rel``; how many."""
    with _tx(conn):
        cur = conn.execute(
            "DELETE FROM passages WHERE id IN (SELECT p.id FROM passages p JOIN files f "
            "ON f.id = p.file_id WHERE f.folder_id = ? AND f.rel = ? LIMIT ?)",
            (folder_id, rel, limit),
        )
    return cur.rowcount


def begin_file(conn: sqlite3.Connection, folder_id: int, rel: str) -> int:
    """Start saving a big file in batches: its row replaces the old one as not yet read
    (size -1 and no reason: not listed, not searched, and read again by a sync that is
    killed before :func:`finish_file`); returns the row's id."""
    with _tx(conn):
        return _replace_row(conn, folder_id, rel, -1, 0, "", "skipped", None)


def add_passages(conn: sqlite3.Connection, file_id: int, passages: Sequence[Passage]) -> None:
    """Add a batch of a file's passages (nothing when its row is gone: its folder was
    removed meanwhile)."""
    with _tx(conn):
        if conn.execute("SELECT 1 FROM files WHERE id = ?", (file_id,)).fetchone() is None:
            return
        conn.executemany(
            'INSERT INTO passages (file_id, page, heading, start, "end", text) '
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((file_id, p.page, p.heading, p.start, p.end, p.text) for p in passages),
        )


def finish_file(
    conn: sqlite3.Connection, file_id: int, size: int, mtime_ns: int, sha256: str
) -> None:
    """Mark a file saved in batches as read in full: from now on it is listed and searched."""
    with _tx(conn):
        conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ?, sha256 = ?, status = 'indexed', "
            "reason = NULL, indexed_at = ? WHERE id = ?",
            (size, mtime_ns, sha256, time.time(), file_id),
        )


def save_skipped(
    conn: sqlite3.Connection,
    folder_id: int,
    rel: str,
    size: int,
    mtime_ns: int,
    sha256: str,
    reason: str,
) -> None:
    """Record that a file could not be read, and why (until it changes it is not tried again)."""
    with _tx(conn):
        _replace_row(conn, folder_id, rel, size, mtime_ns, sha256, "skipped", reason)


def move_file(conn: sqlite3.Connection, file_id: int, rel: str, mtime_ns: int) -> None:
    """A file was renamed (same content): keep its passages under its new path."""
    with _tx(conn):
        conn.execute(
            "DELETE FROM passages WHERE file_id IN (SELECT b.id FROM files a JOIN files b "
            "ON a.folder_id = b.folder_id WHERE a.id = ? AND b.rel = ? AND b.id != a.id)",
            (file_id, rel),
        )
        conn.execute(
            "DELETE FROM files WHERE id IN (SELECT b.id FROM files a JOIN files b "
            "ON a.folder_id = b.folder_id WHERE a.id = ? AND b.rel = ? AND b.id != a.id)",
            (file_id, rel),
        )
        conn.execute(
            "UPDATE files SET rel = ?, mtime_ns = ? WHERE id = ?", (rel, mtime_ns, file_id)
        )


def touch_file(conn: sqlite3.Connection, file_id: int, mtime_ns: int) -> None:
    """A file's time changed but its content did not."""
    with _tx(conn):
        conn.execute("UPDATE files SET mtime_ns = ? WHERE id = ?", (mtime_ns, file_id))


def delete_files(conn: sqlite3.Connection, file_ids: Iterable[int]) -> None:
    """Forget files that are gone, with their passages."""
    ids = [(i,) for i in file_ids]
    if not ids:
        return
    with _tx(conn):
        conn.executemany("DELETE FROM passages WHERE file_id = ?", ids)
        conn.executemany("DELETE FROM files WHERE id = ?", ids)


def set_synced(conn: sqlite3.Connection, folder_id: int, when: float) -> None:
    """Note when a folder's sync last finished."""
    with _tx(conn):
        conn.execute("UPDATE folders SET last_sync = ? WHERE id = ?", (when, folder_id))


def passage_count(conn: sqlite3.Connection) -> int:
    """How many passages the index holds in all."""
    return int(conn.execute("SELECT count(*) FROM passages").fetchone()[0])


def match_query(text: str) -> str | None:
    """``text``'s words as an FTS5 query any of which may match (each quoted, so nothing
    the user types is read as query syntax); ``None`` when it has no word."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    if not words:
        return None
    words = [w for w in words if w not in _COMMON][:_MAX_TERMS] or words[:_MAX_TERMS]
    return " OR ".join(f'"{w}"' for w in words)


def search(conn: sqlite3.Connection, text: str, limit: int, agent: str | None) -> list[PassageHit]:
    """The best passages for ``text`` by BM25 (text weighs more than headings), over the
    folders of every thread and those of ``agent``."""
    query = match_query(text)
    if query is None:
        return []
    rows = conn.execute(
        'SELECT p.id, d.path, f.rel, p.page, p.heading, p.start, p."end", p.text, '
        "bm25(passages_fts, 1.0, 0.5) AS score "
        "FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid "
        "JOIN files f ON f.id = p.file_id JOIN folders d ON d.id = f.folder_id "
        "WHERE passages_fts MATCH ? AND f.status = 'indexed' "
        "AND (d.agent IS NULL OR d.agent IS ?) "
        "ORDER BY score LIMIT ?",
        (query, agent, limit),
    ).fetchall()
    return [
        PassageHit(
            pid, folder, rel, str(Path(folder) / rel), page, heading, start, end, body, -score
        )
        for pid, folder, rel, page, heading, start, end, body, score in rows
    ]
