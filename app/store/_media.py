"""Content-addressed media blobs and their links to threads (run on the store thread)."""

from __future__ import annotations

import hashlib
import sqlite3
import time

import sqlite_utils

from app.core.errors import UserError
from app.store._db import write_tx
from app.store._valid import check_text
from app.store.models import MediaBlob

__all__ = ["collect_unused", "get", "link", "store"]


def _check_sha(sha256: str) -> str:
    key = sha256.lower()
    if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        raise UserError(f"{sha256!r} is not a SHA-256 hex digest")
    return key


def store(db: sqlite_utils.Database, data: bytes, mime_type: str, thread_id: str | None) -> str:
    """Save ``data`` once (by its SHA-256), link it to ``thread_id`` if given, return the hash."""
    check_text(mime_type, "the media's MIME type")
    sha = hashlib.sha256(data).hexdigest()
    with write_tx(db) as conn:
        conn.execute(
            "INSERT OR IGNORE INTO media (sha256, mime_type, size, created_at, data) "
            "VALUES (?, ?, ?, ?, ?)",
            (sha, mime_type, len(data), time.time(), sqlite3.Binary(data)),
        )
        if thread_id is not None:
            _link(conn, thread_id, sha)
        # threads whose messages named this blob before it was stored now hold it too
        conn.execute(
            "INSERT OR IGNORE INTO thread_media (thread_id, sha256) "
            "SELECT thread_id, sha256 FROM media_wanted WHERE sha256 = ?",
            (sha,),
        )
        conn.execute("DELETE FROM media_wanted WHERE sha256 = ?", (sha,))
    return sha


def _link(conn: sqlite3.Connection, thread_id: str, sha256: str) -> None:
    if not conn.execute("SELECT 1 FROM threads WHERE id = ?", (thread_id,)).fetchone():
        raise UserError(f"there is no thread {thread_id!r} to attach media to")
    conn.execute(
        "INSERT OR IGNORE INTO thread_media (thread_id, sha256) VALUES (?, ?)",
        (thread_id, sha256),
    )


def link(db: sqlite_utils.Database, thread_id: str, sha256: str) -> None:
    """Record that ``thread_id`` uses the stored media ``sha256``."""
    key = _check_sha(sha256)
    with write_tx(db) as conn:
        if not conn.execute("SELECT 1 FROM media WHERE sha256 = ?", (key,)).fetchone():
            raise UserError(f"no media with SHA-256 {key} is stored")
        _link(conn, thread_id, key)


def get(db: sqlite_utils.Database, sha256: str) -> MediaBlob | None:
    """Return the stored media ``sha256``, or ``None``."""
    row = db.conn.execute(
        "SELECT mime_type, data FROM media WHERE sha256 = ?", (_check_sha(sha256),)
    ).fetchone()
    return MediaBlob(sha256.lower(), row[0], bytes(row[1])) if row else None


def thread_media(conn: sqlite3.Connection, thread_id: str) -> list[str]:
    """Return the hashes of the media ``thread_id`` uses."""
    rows = conn.execute("SELECT sha256 FROM thread_media WHERE thread_id = ?", (thread_id,))
    return [sha for (sha,) in rows]


def collect_unused(conn: sqlite3.Connection, candidates: list[str]) -> int:
    """Delete those of ``candidates`` no thread uses any more; return how many went."""
    removed = 0
    for sha in candidates:
        removed += conn.execute(
            "DELETE FROM media WHERE sha256 = ? AND NOT EXISTS "
            "(SELECT 1 FROM thread_media WHERE sha256 = ?)",
            (sha, sha),
        ).rowcount
    return removed
