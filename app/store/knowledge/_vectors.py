"""Passages' vectors in the knowledge index, and search by meaning fused with BM25.

Vectors are float32 BLOBs in ``passage_vectors``, one per passage, of one model only (named
in ``meta``). The nearest are found by ``sqlite-vec``'s distance function when the extension
loads into the connection (see :mod:`app.store.knowledge._binding`), else by an exact scan of
the same table in numpy (where no binding at hand can load extensions): the same file works
either way, and so does every ranking.
Every function runs on the index's thread with its connection.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.knowledge import fused_scores, ranking
from app.store._no_numpy import numpy_held_back
from app.store.knowledge._ops import search as words_search
from app.store.knowledge.records import PassageHit

__all__ = [
    "VectorSearch",
    "embedding_model",
    "fused_search",
    "load_sqlite_vec",
    "missing_count",
    "missing_vectors",
    "nearest",
    "nearest_scored",
    "save_vectors",
    "use_embedding_model",
    "vector_count",
]

_MODEL_KEY = "embedding_model"
_CANDIDATES = 4
"""Each ranking hands the fusion this many times the passages asked for (at least 20)."""


def load_sqlite_vec(conn: sqlite3.Connection, error: type[Exception] = sqlite3.Error) -> str | None:
    """Load sqlite-vec into ``conn``; ``None`` when it loaded, else why it did not.
    ``error`` is the base of the errors of ``conn``'s binding."""
    if not hasattr(conn, "enable_load_extension"):
        return "this Python's SQLite cannot load extensions"
    try:
        with numpy_held_back():  # its numpy helper is not used; numpy's import costs start-up
            import sqlite_vec
    except ImportError:
        return "sqlite-vec is not installed"
    try:
        conn.enable_load_extension(True)
        try:
            sqlite_vec.load(conn)
        finally:
            conn.enable_load_extension(False)
    except (error, AttributeError, OSError) as exc:
        return f"sqlite-vec could not be loaded ({exc})"
    return None


@dataclass(slots=True)
class VectorSearch:
    """How the nearest vectors are found on one connection: by sqlite-vec (``sqlite_vec``),
    else by a numpy scan over the vectors, kept in memory until the index next changes."""

    sqlite_vec: bool
    why_not: str | None = None
    """Why sqlite-vec is not used, when it is not."""
    _key: tuple[int, int] = (-1, 0)
    _cached: tuple[Any, Any, Any] | None = field(default=None, repr=False)

    def scan(self, conn: sqlite3.Connection, dims: int) -> tuple[Any, Any, Any]:
        """Every vector of length ``dims``: passage ids, folder ids and the matrix."""
        import numpy as np

        key = (conn.total_changes, dims)
        if self._cached is None or self._key != key:
            rows = conn.execute(
                "SELECT v.passage_id, f.folder_id, v.vector FROM passage_vectors v "
                "JOIN passages p ON p.id = v.passage_id JOIN files f ON f.id = p.file_id "
                "WHERE length(v.vector) = ? AND f.status = 'indexed'",
                (dims * 4,),
            ).fetchall()
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            folders = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
            matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
            self._cached = (ids, folders, matrix.reshape(len(rows), dims))
            self._key = key
        return self._cached


def _blob(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


def embedding_model(conn: sqlite3.Connection) -> str | None:
    """The model that made the vectors the index holds (``None`` before any)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_MODEL_KEY,)).fetchone()
    return None if row is None else str(row[0])


def use_embedding_model(conn: sqlite3.Connection, name: str) -> bool:
    """Keep vectors of ``name`` only: when another model made those held, they are dropped
    (the next sync makes them again). Whether any were dropped."""
    if embedding_model(conn) == name:
        return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        dropped = conn.execute("DELETE FROM passage_vectors").rowcount
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (_MODEL_KEY, name),
        )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return dropped > 0


def vector_count(conn: sqlite3.Connection) -> int:
    """How many passages have a vector."""
    return int(conn.execute("SELECT count(*) FROM passage_vectors").fetchone()[0])


def missing_vectors(
    conn: sqlite3.Connection, folder_id: int, rel: str | None, limit: int
) -> list[tuple[int, str]]:
    """Up to ``limit`` passages of a folder (or of its file ``rel``) that have no vector yet:
    their ids and texts, in order."""
    where = "f.folder_id = ?" + (" AND f.rel = ?" if rel is not None else "")
    args: tuple[int | str, ...] = (folder_id,) if rel is None else (folder_id, rel)
    rows = conn.execute(
        "SELECT p.id, coalesce(p.heading || char(10), '') || p.text FROM passages p "
        "JOIN files f ON f.id = p.file_id LEFT JOIN passage_vectors v ON v.passage_id = p.id "
        f"WHERE v.passage_id IS NULL AND {where} ORDER BY p.id LIMIT ?",
        (*args, limit),
    ).fetchall()
    return [(int(pid), str(text)) for pid, text in rows]


def missing_count(conn: sqlite3.Connection, folder_id: int) -> int:
    """How many passages of a folder have no vector yet."""
    return int(
        conn.execute(
            "SELECT count(*) FROM passages p JOIN files f ON f.id = p.file_id "
            "LEFT JOIN passage_vectors v ON v.passage_id = p.id "
            "WHERE v.passage_id IS NULL AND f.folder_id = ?",
            (folder_id,),
        ).fetchone()[0]
    )


def save_vectors(
    conn: sqlite3.Connection, model: str, vectors: Sequence[tuple[int, Sequence[float]]]
) -> int:
    """Save passages' vectors made by ``model``; those of a passage gone since, or made by a
    model no longer the index's, are not kept. How many were saved."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if embedding_model(conn) != model:
            conn.execute("ROLLBACK")
            return 0
        saved = 0
        for passage_id, vector in vectors:
            cur = conn.execute(
                "INSERT OR REPLACE INTO passage_vectors (passage_id, vector) "
                "SELECT ?, ? WHERE EXISTS (SELECT 1 FROM passages WHERE id = ?)",
                (passage_id, _blob(vector), passage_id),
            )
            saved += cur.rowcount
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return saved


def nearest(
    conn: sqlite3.Connection,
    how: VectorSearch,
    vector: Sequence[float],
    limit: int,
    agent: str | None,
) -> list[int]:
    """The ids of the ``limit`` passages whose vectors are closest to ``vector`` (unit
    length), best first, over the folders of every thread and those of ``agent``. A zero
    vector is close to nothing."""
    return [pid for pid, _ in nearest_scored(conn, how, vector, limit, agent)]


def nearest_scored(
    conn: sqlite3.Connection,
    how: VectorSearch,
    vector: Sequence[float],
    limit: int,
    agent: str | None,
) -> list[tuple[int, float]]:
    """:func:`nearest`, each id with its vector's cosine similarity to ``vector``."""
    if not any(vector):
        return []
    if how.sqlite_vec:
        # a zero vector's distance is NULL, which would sort first: it is left out
        rows = conn.execute(
            "SELECT id, far FROM (SELECT v.passage_id AS id, "
            "vec_distance_cosine(v.vector, ?) AS far "
            "FROM passage_vectors v "
            "JOIN passages p ON p.id = v.passage_id JOIN files f ON f.id = p.file_id "
            "JOIN folders d ON d.id = f.folder_id "
            "WHERE length(v.vector) = ? AND f.status = 'indexed' "
            "AND (d.agent IS NULL OR d.agent IS ?)) "
            "WHERE far IS NOT NULL ORDER BY far, id LIMIT ?",
            (_blob(vector), len(vector) * 4, agent, limit),
        ).fetchall()
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]
    import numpy as np

    ids, folders, matrix = how.scan(conn, len(vector))
    if not len(ids):
        return []
    allowed = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM folders WHERE agent IS NULL OR agent IS ?", (agent,)
        ).fetchall()
    ]
    keep = np.isin(folders, np.asarray(allowed, dtype=np.int64))
    scores = np.where(keep, matrix @ np.asarray(vector, dtype=np.float32), -np.inf)
    count = min(limit, int(keep.sum()))
    if count <= 0:
        return []
    top = np.argpartition(-scores, count - 1)[:count]
    top = top[np.lexsort((ids[top], -scores[top]))]
    return [(int(ids[i]), float(scores[i])) for i in top]


def _hits(
    conn: sqlite3.Connection, scored: list[tuple[int, float]], relevance: dict[int, float]
) -> list[PassageHit]:
    if not scored:
        return []
    marks = ",".join("?" * len(scored))
    rows = conn.execute(
        'SELECT p.id, d.path, f.rel, p.page, p.heading, p.start, p."end", p.text '
        "FROM passages p JOIN files f ON f.id = p.file_id JOIN folders d ON d.id = f.folder_id "
        f"WHERE p.id IN ({marks})",
        [pid for pid, _ in scored],
    ).fetchall()
    by_id = {row[0]: row for row in rows}
    out = []
    for pid, score in scored:
        if (row := by_id.get(pid)) is not None:
            _, folder, rel, page, heading, start, end, body = row
            path = str(Path(folder) / rel)
            close = relevance.get(pid, 0.0)
            out.append(
                PassageHit(pid, folder, rel, path, page, heading, start, end, body, score, close)
            )
    return out


def fused_search(
    conn: sqlite3.Connection,
    how: VectorSearch,
    text: str,
    vector: Sequence[float],
    limit: int,
    agent: str | None,
    words_floor: float = 0.0,
    meaning_floor: float = -1.0,
) -> list[PassageHit]:
    """The best passages for ``text``: the words' ranking (passages whose relevance is at
    least ``words_floor``) and the nearest vectors' (``vector`` is ``text``'s; those whose
    cosine is at least ``meaning_floor``), fused by reciprocal rank, one file holding at
    most :data:`ranking.PER_FILE` of the first few; a hit's score is its fused score, its
    relevance the better of its two."""
    wide = max(limit * _CANDIDATES, 20)
    words = words_search(conn, text, wide, agent, words_floor)
    meaning = [
        (pid, close)
        for pid, close in nearest_scored(conn, how, vector, wide, agent)
        if close >= meaning_floor
    ]
    relevance = dict(meaning)
    for hit in words:
        relevance[hit.passage_id] = max(relevance.get(hit.passage_id, 0.0), hit.relevance)
    fused = fused_scores([[hit.passage_id for hit in words], [pid for pid, _ in meaning]])
    hits = _hits(conn, fused[: limit + ranking.FIRST], relevance)
    return ranking.capped(hits, lambda hit: f"{hit.folder}/{hit.rel}")[:limit]
