"""Memories: add, read, change, forget and find them (on the store thread).

A memory's words are indexed in ``memories_fts`` (FTS5 over the ``memories`` table, English
endings taken off), kept in step in the same transaction as every change. A memory's text is
one line of at most :data:`MAX_MEMORY_CHARS` characters with no control or invisible
character: it is put before a model as one line of remembered notes, so nothing in it may
start a line of its own or hide what it says.
"""

from __future__ import annotations

import re
import sqlite3
import time
import uuid
from collections.abc import Sequence
from typing import Any

import sqlite_utils

from app.core.errors import UserError
from app.knowledge.ranking import words_of
from app.store._db import write_tx
from app.store._threads import fts_query
from app.store.models import MemoryRecord
from app.text.hidden_chars import escape_hidden

__all__ = [
    "MAX_MEMORY_CHARS",
    "RANKED",
    "add_many",
    "edit",
    "forget",
    "forget_agent",
    "forget_agent_in",
    "get",
    "list_memories",
    "mark_used",
    "memory_text_problem",
    "pinned_of",
    "related",
    "resolve",
    "search",
    "set_flags",
    "vectors_changed",
]

MAX_MEMORY_CHARS = 1000
"""The most characters one memory holds."""

_COLUMNS = "id, text, agent_id, thread_id, message_id, made_at, last_used_at, pinned, local_only, n"

_COMMON = frozenset(
    (
        "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by",
        "can", "could", "did", "do", "does", "for", "from", "get", "had", "has", "have", "how",
        "i", "if", "in", "into", "is", "it", "its", "just", "know", "me", "my", "of", "on",
        "or", "our", "please", "should", "so", "some", "tell", "that", "the", "their", "them",
        "then", "there", "these", "this", "to", "want", "was", "we", "were", "what", "when",
        "where", "which", "who", "why", "will", "with", "would", "you", "your",
    )
)  # fmt: skip
"""Words too common to relate a question to a memory."""

_MAX_TERMS = 24
_HEX = re.compile(r"[0-9a-f]{4,32}")


def memory_text_problem(text: str) -> str | None:
    """Why ``text`` cannot be a memory, in words (``None`` when it can): empty, longer than
    :data:`MAX_MEMORY_CHARS`, or holding a control, bidi or invisible character (a line
    break included)."""
    if not text.strip():
        return "it is empty"
    if len(text) > MAX_MEMORY_CHARS:
        return f"it is {len(text):,} characters long; a memory holds at most {MAX_MEMORY_CHARS:,}"
    if escape_hidden(text) == text and "\n" not in text and "\t" not in text:
        return None
    for at, char in enumerate(text, 1):
        if char in "\n\t" or escape_hidden(char) != char:
            return (
                f"it holds a control or invisible character (U+{ord(char):04X} at character "
                f"{at}); a memory is one line of plain text"
            )
    return None


def _kept_here(db: sqlite_utils.Database) -> bool:
    """Whether the file has memories at all: a file of a version before them, opened for
    reading only (a read-only disk, a copy of a damaged file), is not migrated and has none."""
    return bool(
        db.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memories'"
        ).fetchone()
    )


def _checked(text: str) -> str:
    text = text.strip()
    problem = memory_text_problem(text)
    if problem is not None:
        raise UserError(f"That memory cannot be kept: {problem}.")
    return text


def _record(row: Sequence[Any]) -> MemoryRecord:
    return MemoryRecord(
        id=row[0],
        text=row[1],
        agent_id=row[2],
        thread_id=row[3],
        message_id=row[4],
        made_at=float(row[5]),
        last_used_at=None if row[6] is None else float(row[6]),
        pinned=bool(row[7]),
        local_only=bool(row[8]),
    )


def _insert(conn: sqlite3.Connection, record: MemoryRecord) -> MemoryRecord:
    text = _checked(record.text)
    if (
        record.agent_id is not None
        and not conn.execute("SELECT 1 FROM agents WHERE id = ?", (record.agent_id,)).fetchone()
    ):
        raise UserError("That memory cannot be kept: the agent it is for is no longer here.")
    memory_id = record.id or uuid.uuid4().hex
    made = record.made_at or time.time()
    cur = conn.execute(
        "INSERT INTO memories (id, text, agent_id, thread_id, message_id, made_at, last_used_at,"
        " pinned, local_only) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            memory_id,
            text,
            record.agent_id,
            record.thread_id,
            record.message_id,
            made,
            record.last_used_at,
            int(record.pinned),
            int(record.local_only),
        ),
    )
    conn.execute("INSERT INTO memories_fts (rowid, text) VALUES (?, ?)", (cur.lastrowid, text))
    row = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return _record(row)


def vectors_changed(conn: sqlite3.Connection) -> None:
    """Note, in the caller's transaction, that a memory's vector or pin changed: searches by
    meaning read the vectors again (see :mod:`app.store._memory_vectors`)."""
    conn.execute("UPDATE memory_vectors_seen SET generation = generation + 1")


def add_many(db: sqlite_utils.Database, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """Keep every one of ``records`` (an empty id gets a new one), all or none."""
    with write_tx(db) as conn:
        return [_insert(conn, record) for record in records]


def get(db: sqlite_utils.Database, memory_id: str) -> MemoryRecord | None:
    """The memory with ``memory_id``, or ``None``."""
    if not _kept_here(db):
        return None
    row = db.conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return _record(row) if row else None


def resolve(db: sqlite_utils.Database, prefix: str) -> MemoryRecord:
    """The one memory whose id starts with ``prefix`` (at least 4 characters); a
    :class:`UserError` saying why when there is none or more than one."""
    key = prefix.strip().lower()
    if not _HEX.fullmatch(key):
        raise UserError(
            f"{escape_hidden(prefix)[:40]!r} is not a memory's id; see parley memory list"
        )
    if not _kept_here(db):
        raise UserError(f"there is no memory {key}; see parley memory list")
    rows = db.conn.execute(
        f"SELECT {_COLUMNS} FROM memories WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
        (key, key + "g"),
    ).fetchall()
    if not rows:
        raise UserError(f"there is no memory {key}; see parley memory list")
    if len(rows) > 1:
        raise UserError(f"more than one memory's id starts with {key}; give more of it")
    return _record(rows[0])


_ORDER = "ORDER BY pinned DESC, made_at DESC, n DESC"


def list_memories(
    db: sqlite_utils.Database, agent_id: str | None, every: bool
) -> list[MemoryRecord]:
    """Every memory (``every``), or those of ``agent_id`` and everyone's (``agent_id``
    ``None``: everyone's alone); pinned first, then the newest first."""
    if not _kept_here(db):
        return []
    if every:
        rows = db.conn.execute(f"SELECT {_COLUMNS} FROM memories {_ORDER}")
    else:
        rows = db.conn.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE agent_id IS NULL OR agent_id = ? {_ORDER}",
            (agent_id,),
        )
    return [_record(r) for r in rows.fetchall()]


def _replace_text(conn: sqlite3.Connection, n: int, old: str, new: str) -> None:
    conn.execute(
        "INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', ?, ?)", (n, old)
    )
    conn.execute("INSERT INTO memories_fts (rowid, text) VALUES (?, ?)", (n, new))


def _row_of(conn: sqlite3.Connection, memory_id: str) -> tuple[Any, ...]:
    row = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None:
        raise UserError("that memory is no longer there")
    return tuple(row)


def edit(db: sqlite_utils.Database, memory_id: str, text: str) -> MemoryRecord:
    """Give the memory a new text (checked as a new one is)."""
    text = _checked(text)
    with write_tx(db) as conn:
        row = _row_of(conn, memory_id)
        conn.execute("UPDATE memories SET text = ? WHERE id = ?", (text, memory_id))
        _replace_text(conn, row[9], row[1], text)
        if text != row[1]:  # its meaning changed with its words: a new vector is made
            conn.execute("DELETE FROM memory_vectors WHERE n = ?", (row[9],))
            vectors_changed(conn)
        return _record(_row_of(conn, memory_id))


def set_flags(
    db: sqlite_utils.Database, memory_id: str, pinned: bool | None, local_only: bool | None
) -> MemoryRecord:
    """Pin or unpin the memory, or mark it local only or not (only what is given)."""
    with write_tx(db) as conn:
        _row_of(conn, memory_id)
        if pinned is not None:
            conn.execute("UPDATE memories SET pinned = ? WHERE id = ?", (int(pinned), memory_id))
            vectors_changed(conn)
        if local_only is not None:
            conn.execute(
                "UPDATE memories SET local_only = ? WHERE id = ?", (int(local_only), memory_id)
            )
        return _record(_row_of(conn, memory_id))


def _delete_rows(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> int:
    conn.execute(
        "INSERT INTO memories_fts (memories_fts, rowid, text) "
        f"SELECT 'delete', n, text FROM memories WHERE {where}",
        params,
    )
    gone = int(conn.execute(f"DELETE FROM memories WHERE {where}", params).rowcount)
    if gone:
        vectors_changed(conn)  # their vectors went with them
    return gone


def forget(db: sqlite_utils.Database, memory_id: str) -> bool:
    """Forget the memory; whether it was there."""
    with write_tx(db) as conn:
        return _delete_rows(conn, "id = ?", (memory_id,)) > 0


def forget_agent_in(conn: sqlite3.Connection, agent_id: str) -> int:
    """Forget every memory of ``agent_id`` inside the caller's transaction; how many."""
    return _delete_rows(conn, "agent_id = ?", (agent_id,))


def forget_agent(db: sqlite_utils.Database, agent_id: str) -> int:
    """Forget every memory of ``agent_id`` (everyone's stay); how many were forgotten."""
    with write_tx(db) as conn:
        return forget_agent_in(conn, agent_id)


def _scope(agent_id: str | None, every: bool) -> tuple[str, tuple[Any, ...]]:
    if every:
        return "", ()
    return " AND (m.agent_id IS NULL OR m.agent_id = ?)", (agent_id,)


def search(
    db: sqlite_utils.Database, text: str, agent_id: str | None, every: bool, limit: int
) -> list[MemoryRecord]:
    """The memories holding every word of ``text`` (the last one as a prefix), best first:
    every memory's (``every``), or those of ``agent_id`` and everyone's."""
    if not _kept_here(db):
        return []
    query = fts_query(text)
    if query is None:
        return []
    where, params = _scope(agent_id, every)
    cols = ", ".join(f"m.{c.strip()}" for c in _COLUMNS.split(","))
    rows = db.conn.execute(
        f"SELECT {cols} FROM memories_fts f JOIN memories m ON m.n = f.rowid "
        f"WHERE memories_fts MATCH ?{where} ORDER BY f.rank LIMIT ?",
        (query, *params, limit),
    ).fetchall()
    return [_record(r) for r in rows]


def _telling_words(text: str) -> list[str]:
    """``text``'s words that tell something: common words and single letters left out."""
    words = [w for w in dict.fromkeys(words_of(text)) if w not in _COMMON and len(w) > 1]
    return words[:_MAX_TERMS]


RANKED = 1000
"""The most memories ranked for one question: its rarest words are searched, as many as hold
no more than this many memories between them (a word more memories hold tells little of
which fit). Ranking every memory holding a word every other memory holds cost 17 ms among
10,000; this keeps a question's choice within a few milliseconds."""


def _rarest(conn: sqlite3.Connection, words: Sequence[str]) -> list[str]:
    held = []
    for word in words:
        (count,) = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
            (f'"{word}"', RANKED + 1),
        ).fetchone()
        if 0 < count <= RANKED:
            held.append((int(count), word))
    chosen, total = [], 0
    for count, word in sorted(held):
        if total + count > RANKED:
            break
        chosen.append(word)
        total += count
    return chosen


def related(
    db: sqlite_utils.Database, text: str, agent_id: str | None, limit: int
) -> list[MemoryRecord]:
    """The memories not pinned of ``agent_id`` and everyone's that share a telling word with
    ``text`` (its rarest ones, see :data:`RANKED`), the closest first (BM25)."""
    if not _kept_here(db):
        return []
    words = _rarest(db.conn, _telling_words(text))
    if not words:
        return []
    query = " OR ".join(f'"{w}"' for w in words)
    cols = ", ".join(f"m.{c.strip()}" for c in _COLUMNS.split(","))
    rows = db.conn.execute(
        f"SELECT {cols} FROM memories_fts f JOIN memories m ON m.n = f.rowid "
        "WHERE memories_fts MATCH ? AND m.pinned = 0 AND (m.agent_id IS NULL OR m.agent_id = ?)"
        " ORDER BY f.rank LIMIT ?",
        (query, agent_id, limit),
    ).fetchall()
    return [_record(r) for r in rows]


def pinned_of(db: sqlite_utils.Database, agent_id: str | None) -> list[MemoryRecord]:
    """The pinned memories of ``agent_id`` and everyone's, the oldest first."""
    if not _kept_here(db):
        return []
    rows = db.conn.execute(
        f"SELECT {_COLUMNS} FROM memories WHERE pinned = 1 AND "
        "(agent_id IS NULL OR agent_id = ?) ORDER BY made_at, n",
        (agent_id,),
    ).fetchall()
    return [_record(r) for r in rows]


def mark_used(db: sqlite_utils.Database, memory_ids: Sequence[str], when: float | None) -> None:
    """Note that the memories were put before a model at ``when`` (now by default)."""
    if not memory_ids:
        return
    with write_tx(db) as conn:
        conn.executemany(
            "UPDATE memories SET last_used_at = ? WHERE id = ?",
            [(when or time.time(), m) for m in memory_ids],
        )
