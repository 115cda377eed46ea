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
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from app.store._db import write_tx
from app.store._memories import _COLUMNS, _kept_here, _record, vectors_changed
from app.store.models import MemoryRecord

__all__ = ["VectorCache", "missing_vectors", "nearest", "save_vectors", "vector_count"]


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
        if saved:
            vectors_changed(conn)
    return saved


@dataclass(slots=True)
class VectorCache:
    """One model's vectors as read for a search, kept between searches until a vector or a
    pin changes (``memory_vectors_seen.generation``, bumped in each such change's
    transaction, so a change made by another process counts too). Used on the store's
    thread only."""

    key: tuple[str, int, int] | None = None
    ns: Any = None
    agents: Any = None
    """Each vector's memory's agent as a number (-1: everyone's), see ``codes``."""
    codes: dict[str, int] = field(default_factory=dict)
    pinned: Any = None
    matrix: Any = None


def _read_vectors(db: sqlite_utils.Database, model: str, dims: int, cache: VectorCache) -> None:
    import numpy as np

    (generation,) = db.conn.execute("SELECT generation FROM memory_vectors_seen").fetchone()
    key = (model, dims, int(generation))
    if cache.key == key:
        return
    rows = db.conn.execute(
        "SELECT m.n, m.agent_id, m.pinned, v.vector FROM memory_vectors v "
        "JOIN memories m ON m.n = v.n WHERE v.model = ? AND length(v.vector) = ?",
        (model, dims * 4),
    ).fetchall()
    codes: dict[str, int] = {}
    cache.ns = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    cache.agents = np.fromiter(
        (-1 if r[1] is None else codes.setdefault(r[1], len(codes)) for r in rows),
        dtype=np.int64,
        count=len(rows),
    )
    cache.codes = codes
    cache.pinned = np.fromiter((bool(r[2]) for r in rows), dtype=bool, count=len(rows))
    matrix = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32)
    cache.matrix = matrix.reshape(len(rows), dims)
    cache.key = key


def nearest(
    db: sqlite_utils.Database,
    model: str,
    vector: Sequence[float],
    scope: tuple[str | None, bool],
    limit: int,
    floor: float,
    pinned: bool = True,
    cache: VectorCache | None = None,
) -> list[tuple[MemoryRecord, float]]:
    """The ``limit`` memories whose vectors (made by ``model``) are closest to ``vector``
    (unit length), each with its cosine, best first, none under ``floor``. ``scope`` is
    ``(agent_id, every)``: every memory, or ``agent_id``'s and everyone's; without
    ``pinned``, pinned memories are left out (they go before every call anyway). The
    vectors are read once into ``cache`` and kept there until one changes."""
    if not _vectors_here(db) or not any(vector) or limit <= 0:
        return []
    import numpy as np

    held = cache if cache is not None else VectorCache()
    _read_vectors(db, model, len(vector), held)
    if not len(held.ns):
        return []
    agent_id, every = scope
    keep = np.ones(len(held.ns), dtype=bool)
    if not every:
        keep &= (held.agents == -1) | (held.agents == held.codes.get(agent_id or "", -2))
    if not pinned:
        keep &= ~held.pinned
    scores = np.where(keep, held.matrix @ np.asarray(vector, dtype=np.float32), -np.inf)
    count = min(limit, int(keep.sum()))
    if count <= 0:
        return []
    top = np.argpartition(-scores, count - 1)[:count]
    top = top[np.lexsort((held.ns[top], -scores[top]))]
    best = [(int(held.ns[i]), float(scores[i])) for i in top if scores[i] >= floor]
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
