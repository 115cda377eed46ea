"""Passages' vectors in the knowledge index, and search by meaning fused with BM25.

Vectors are float32 BLOBs in ``passage_vectors``, one per passage, of one model only (named
in ``meta``). The nearest are found by ``sqlite-vec``'s distance function when the extension
loads into the connection (see :mod:`app.store.knowledge._binding`) and the index holds
fewer than :data:`SCAN_FROM` vectors, else by a numpy scan of a copy of them quantized to
int8, held in memory, whose best candidates are scored again exactly from the table: the
same file works either way, and so does every ranking.
Every function runs on the index's thread with its connection.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from app.knowledge import fused_scores, ranking
from app.store._no_numpy import numpy_held_back
from app.store.knowledge._ops import search as words_search
from app.store.knowledge.records import PassageHit

__all__ = [
    "SCAN_FROM",
    "HeldVectors",
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


SCAN_FROM = 10_000
"""From this many vectors on, the nearest are found by the scan even where sqlite-vec loads.
sqlite-vec compares every vector inside SQLite, one at a time: 100,000 of 384 floats take it
170-180 ms a search on the bench's machine, the scan of their quantized copy 15; below this
many it takes under 20 ms, well within a search's 30, and holds nothing in memory."""

_RESCORE = 4
"""The scan's quantized scores choose this many times the passages asked for (at least
:data:`_RESCORE_MIN`), which are then scored exactly from their stored vectors."""
_RESCORE_MIN = 64
_BATCH = 8192
"""Vectors read and quantized this many at a time (12 MB of float32 at 384 numbers)."""
_SCORE_STEP = 1024
"""Quantized vectors made float and scored this many at a time: 1.5 MB at 384 numbers,
which stays in the processor's cache (twice as quick as 8,192 on the bench's machine)."""


class HeldVectors(NamedTuple):
    """The scan's copy of every vector: passage ids, folder ids, each vector in int8 (a
    quarter of its float32 bytes) and the scale that makes it float again."""

    ids: Any
    folders: Any
    codes: Any
    scales: Any


@dataclass(slots=True)
class VectorSearch:
    """How the nearest vectors are found on one connection: by sqlite-vec (``sqlite_vec``)
    while the index holds fewer than ``scan_from`` vectors, else by a numpy scan over a
    quantized copy of them, kept in memory until the index next changes, whose best
    candidates are scored again exactly."""

    sqlite_vec: bool
    why_not: str | None = None
    """Why sqlite-vec is not used, when it is not."""
    scan_from: int = SCAN_FROM
    _key: tuple[int, int] = (-1, 0)
    _cached: HeldVectors | None = field(default=None, repr=False)
    _few: tuple[int, bool] = (-1, True)

    def by_sqlite_vec(self, conn: sqlite3.Connection) -> bool:
        """Whether sqlite-vec finds the nearest now: it loads, and the index holds fewer
        than ``scan_from`` vectors (looked at again after each change, reading no further
        than the ``scan_from``-th: counting them all reads every vector's page)."""
        if not self.sqlite_vec:
            return False
        if self._few[0] != conn.total_changes:
            beyond = conn.execute(
                "SELECT 1 FROM passage_vectors LIMIT 1 OFFSET ?", (self.scan_from - 1,)
            ).fetchone()
            self._few = (conn.total_changes, beyond is None)
        return self._few[1]

    def scan(self, conn: sqlite3.Connection, dims: int) -> HeldVectors:
        """Every vector of length ``dims``, quantized (read again after a change)."""
        key = (conn.total_changes, dims)
        if self._cached is None or self._key != key:
            self._cached = None  # the old copy goes before the new one is read
            self._cached = _read_held(conn, dims)
            self._key = key
        return self._cached


def _read_held(conn: sqlite3.Connection, dims: int) -> HeldVectors:
    import numpy as np

    cursor = conn.execute(
        "SELECT v.passage_id, f.folder_id, v.vector FROM passage_vectors v "
        "JOIN passages p ON p.id = v.passage_id JOIN files f ON f.id = p.file_id "
        "WHERE length(v.vector) = ? AND f.status = 'indexed'",
        (dims * 4,),
    )
    ids, folders, codes, scales = [], [], [], []
    while rows := cursor.fetchmany(_BATCH):
        ids.append(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
        folders.append(np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)))
        block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
        block = block.reshape(len(rows), dims)
        peak = np.abs(block).max(axis=1)
        scale = (peak / 127).astype(np.float32)
        safe = np.where(peak > 0, scale, np.float32(1))
        codes.append(np.rint(block / safe[:, None]).astype(np.int8))
        scales.append(scale)
    if not ids:
        empty = np.empty(0, dtype=np.int64)
        return HeldVectors(empty, empty, np.empty((0, dims), np.int8), np.empty(0, np.float32))
    return HeldVectors(
        np.concatenate(ids), np.concatenate(folders), np.concatenate(codes), np.concatenate(scales)
    )


def _scan_scored(
    conn: sqlite3.Connection, held: HeldVectors, vector: Sequence[float], limit: int, allowed: Any
) -> list[tuple[int, float]]:
    """The ``limit`` nearest of the held vectors in the folders ``allowed``: chosen by their
    quantized scores, then scored exactly from their stored vectors, best first."""
    import numpy as np

    query = np.asarray(vector, dtype=np.float32)
    keep = np.isin(held.folders, allowed)
    kept = int(keep.sum())
    count = min(limit, kept)
    if count <= 0:
        return []
    rough = np.empty(len(held.ids), dtype=np.float32)
    for start in range(0, len(held.ids), _SCORE_STEP):
        part = held.codes[start : start + _SCORE_STEP]
        rough[start : start + _SCORE_STEP] = part.astype(np.float32) @ query
    rough = np.where(keep, rough * held.scales, -np.inf)
    wide = min(kept, max(limit * _RESCORE, _RESCORE_MIN))
    chosen = held.ids[np.argpartition(-rough, wide - 1)[:wide]]
    exact = _exact_scores(conn, [int(pid) for pid in chosen], query)
    return sorted(exact, key=lambda scored: (-scored[1], scored[0]))[:count]


def _exact_scores(conn: sqlite3.Connection, ids: list[int], query: Any) -> list[tuple[int, float]]:
    import numpy as np

    out: list[tuple[int, float]] = []
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        rows = conn.execute(
            "SELECT passage_id, vector FROM passage_vectors "
            f"WHERE passage_id IN ({','.join('?' * len(part))})",
            part,
        ).fetchall()
        if not rows:
            continue
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        scores = matrix.reshape(len(rows), len(query)) @ query
        out += [(int(r[0]), float(score)) for r, score in zip(rows, scores, strict=True)]
    return out


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
    if how.by_sqlite_vec(conn):
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

    held = how.scan(conn, len(vector))
    if not len(held.ids):
        return []
    allowed = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM folders WHERE agent IS NULL OR agent IS ?", (agent,)
        ).fetchall()
    ]
    return _scan_scored(conn, held, vector, limit, np.asarray(allowed, dtype=np.int64))


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
