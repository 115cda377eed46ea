"""Memories' vectors: what makes them searchable by meaning (on the store thread).

A memory has at most one vector (``memory_vectors``, float32), tagged with the embedding
model that made it: a vector of another model counts as missing and is made again. A vector
is saved only while its memory still holds the text it was made from, so an edit made
meanwhile is never searched by its old meaning; an edit drops the vector in its own
transaction (:func:`app.store._memories.edit`), and a forgotten memory takes its vector with
it (the table's foreign key).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import sqlite_utils

from app.store._db import write_tx
from app.store._memories import _COLUMNS, _kept_here, _record
from app.store.models import MemoryRecord

__all__ = ["missing_vectors", "nearest", "save_vectors", "vector_count"]


def _vectors_here(db: sqlite_utils.Database) -> bool:
    return _kept_here(db) and bool(
        db.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_vectors'"
        ).fetchone()
    )


def missing_vectors(db: sqlite_utils.Database, model: str, limit: int) -> list[tuple[str, str]]:
    """Up to ``limit`` memories with no vector made by ``model``: their ids and texts, the
    most recently made first."""
    if not _vectors_here(db):
        return []
    rows = db.conn.execute(
        "SELECT m.id, m.text FROM memories m LEFT JOIN memory_vectors v ON v.n = m.n "
        "WHERE v.n IS NULL OR v.model IS NOT ? ORDER BY m.made_at DESC, m.n DESC LIMIT ?",
        (model, limit),
    ).fetchall()
    return [(str(r[0]), str(r[1])) for r in rows]


def vector_count(db: sqlite_utils.Database, model: str) -> int:
    """How many memories have a vector made by ``model``."""
    if not _vectors_here(db):
        return 0
    row = db.conn.execute("SELECT count(*) FROM memory_vectors WHERE model = ?", (model,))
    return int(row.fetchone()[0])


def save_vectors(
    db: sqlite_utils.Database,
    model: str,
    made: Sequence[tuple[str, str, Sequence[float]]],
) -> int:
    """Save each ``(memory id, the text embedded, vector)`` made by ``model``, unless the
    memory is gone or holds another text now; how many were saved."""
    saved = 0
    with write_tx(db) as conn:
        for memory_id, text, vector in made:
            cur = conn.execute(
                "INSERT OR REPLACE INTO memory_vectors (n, model, vector) "
                "SELECT n, ?, ? FROM memories WHERE id = ? AND text = ?",
                (model, array("f", vector).tobytes(), memory_id, text),
            )
            saved += cur.rowcount
    return saved


def nearest(
    db: sqlite_utils.Database,
    model: str,
    vector: Sequence[float],
    scope: tuple[str | None, bool],
    limit: int,
    floor: float,
    pinned: bool = True,
) -> list[tuple[MemoryRecord, float]]:
    """The ``limit`` memories whose vectors (made by ``model``) are closest to ``vector``
    (unit length), each with its cosine, best first, none under ``floor``. ``scope`` is
    ``(agent_id, every)``: every memory, or ``agent_id``'s and everyone's; without
    ``pinned``, pinned memories are left out (they go before every call anyway)."""
    if not _vectors_here(db) or not any(vector) or limit <= 0:
        return []
    import numpy as np

    agent_id, every = scope
    where = "v.model = ? AND length(v.vector) = ?"
    params: list[object] = [model, len(vector) * 4]
    if not every:
        where += " AND (m.agent_id IS NULL OR m.agent_id = ?)"
        params.append(agent_id)
    if not pinned:
        where += " AND m.pinned = 0"
    rows = db.conn.execute(
        f"SELECT m.n, v.vector FROM memory_vectors v JOIN memories m ON m.n = v.n WHERE {where}",
        params,
    ).fetchall()
    if not rows:
        return []
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    scores = matrix.reshape(len(rows), len(vector)) @ np.asarray(vector, dtype=np.float32)
    order = [int(i) for i in np.argsort(-scores, kind="stable")[:limit]]
    best = [(int(rows[i][0]), float(scores[i])) for i in order if scores[i] >= floor]
    if not best:
        return []
    marks = ",".join("?" * len(best))
    cols = ", ".join(f"m.{c.strip()}" for c in _COLUMNS.split(","))
    found = {
        int(r[9]): _record(r)
        for r in db.conn.execute(
            f"SELECT {cols} FROM memories m WHERE m.n IN ({marks})", [n for n, _ in best]
        ).fetchall()
    }
    return [(found[n], score) for n, score in best if n in found]
