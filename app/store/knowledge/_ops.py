"""The knowledge index's reads and writes, each run on the index's own thread with its
connection. A file's passages and its row are written in one transaction; a big file's in
batches of :data:`SAVE_BATCH` (see :func:`begin_file`), so a search is never kept waiting
long behind it."""

from __future__ import annotations

import importlib
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from app.knowledge import Passage, ranking
from app.knowledge.passages import HEADING_JOIN
from app.store.knowledge.records import FileRow, FolderRecord, PassageHit, Skipped

__all__ = [
    "SAVE_BATCH",
    "add_folder",
    "add_passages",
    "begin_file",
    "close_scratch",
    "cut_words",
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
    "term_weights",
    "touch_file",
]

SAVE_BATCH = 500
"""Passages written (or forgotten) in one transaction when a big file is saved."""

TEXT_WEIGHT, HEADING_WEIGHT, TITLE_WEIGHT = 1.0, 2.0, 2.0
"""What a word weighs in BM25 in a passage's text, its headings and its file's path."""

TOKENIZER = "porter unicode61 remove_diacritics 2"
"""How the index cuts text into words: letters and digits, lower case, accents removed, and
English endings taken off (*installing* finds *install*)."""

RERANKED = 60
"""How many of BM25's best passages are ranked again (:func:`ranking.rerank`)."""

_MAX_TERMS = 32
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
        _insert(conn, file_id, rel, passages)


def _insert(conn: sqlite3.Connection, file_id: int, rel: str, passages: Sequence[Passage]) -> None:
    """Add ``passages`` as ``file_id``'s, in the caller's transaction, and put them in the
    FTS5 index with one statement (no trigger does it: see the schema's version 4). A
    passage's id is one more than the largest there is, so the new ones are those above it."""
    (last,) = conn.execute("SELECT coalesce(max(id), 0) FROM passages").fetchone()
    conn.executemany(
        'INSERT INTO passages (file_id, page, heading, start, "end", text, title) '
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        ((file_id, p.page, p.heading, p.start, p.end, p.text, rel) for p in passages),
    )
    conn.execute(
        "INSERT INTO passages_fts(rowid, text, heading, title) "
        "SELECT id, text, heading, title FROM passages WHERE id > ?",
        (last,),
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
        row = conn.execute("SELECT rel FROM files WHERE id = ?", (file_id,)).fetchone()
        if row is None:
            return
        _insert(conn, file_id, str(row[0]), passages)


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
        conn.execute("UPDATE passages SET title = ? WHERE file_id = ?", (rel, file_id))


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


def match_query(words: Sequence[str], prefixes: Sequence[str] = ()) -> str | None:
    """The question's ``words`` as an FTS5 query any of which may match (each quoted, so
    nothing the user types is read as query syntax), those of ``prefixes`` also as the start
    of longer words; ``None`` when there is no word."""
    if not words:
        return None
    return " OR ".join(f'"{w}"*' if w in prefixes else f'"{w}"' for w in words)


PREFIX_FROM = 4
"""A question's word of at least this many letters, typed whole (the stemmer takes nothing
off it), also finds the longer words it begins (*admin* finds *administrative*, *config*
*configuration*): people shorten the words documents spell out. A word the stemmer cut
(*paris*, *pari*) is not one, and its endings are the stemmer's already."""


def shortened(conn: sqlite3.Connection, words: Sequence[str]) -> list[str]:
    """Those of ``words`` (the question's, folded) that may be shortened ones: of
    :data:`PREFIX_FROM` letters or more, not numbers, and left whole by the stemmer."""
    stems = cut_words(conn, list(words))
    return [
        w
        for w, stem in zip(words, stems, strict=True)
        if len(w) >= PREFIX_FROM and not w.isdigit() and [t for _, t in stem] == [w]
    ]


def longer_words(conn: sqlite3.Connection, words: Sequence[str]) -> dict[str, str]:
    """The index's terms that begin with one of ``words`` and are longer, each with the
    word it begins (the longest of them)."""
    out: dict[str, str] = {}
    for word in sorted(words, key=len):
        for (term,) in conn.execute(
            "SELECT term FROM passage_terms WHERE term > ? AND term < ?",
            (word, word + "\U0010ffff"),
        ):
            out[str(term)] = word
    return out


_SCRATCH = threading.local()


def _scratch(conn: sqlite3.Connection) -> sqlite3.Connection:
    """This thread's scratch database in memory (opened with the index's binding, so its
    tokenizer is the index's): what :func:`cut_words` writes to. Not the index's connection:
    a search then changes nothing there, and what is kept until the index changes (the
    vector scan's matrix, keyed by the connection's changes) is kept across searches."""
    scratch: sqlite3.Connection | None = getattr(_SCRATCH, "conn", None)
    if scratch is None:
        binding = importlib.import_module(type(conn).__module__)
        scratch = binding.connect(":memory:", isolation_level=None, check_same_thread=True)
        scratch.execute(f"CREATE VIRTUAL TABLE cut USING fts5(t, tokenize='{TOKENIZER}')")
        scratch.execute("CREATE VIRTUAL TABLE cut_words USING fts5vocab(cut, instance)")
        _SCRATCH.conn = scratch
    return scratch


def close_scratch() -> None:
    """Close this thread's scratch database, if it has one (when the index closes)."""
    scratch: sqlite3.Connection | None = getattr(_SCRATCH, "conn", None)
    if scratch is not None:
        _SCRATCH.conn = None
        scratch.close()


def cut_words(
    conn: sqlite3.Connection, texts: Sequence[str], only: Sequence[str] | None = None
) -> list[list[tuple[int, str]]]:
    """Each of ``texts`` cut into words by the index's own tokenizer (stemmed as the index
    keeps them), each with its place, in order; with ``only``, just those words. All the texts
    are one row of a scratch FTS5 table (one row costs a fraction of many; see
    :func:`_scratch`), told apart by a word none holds."""
    conn = _scratch(conn)
    apart = _APART
    while any(apart in text for text in texts):
        apart += "x"
    conn.execute("DELETE FROM cut")
    conn.execute("INSERT INTO cut (rowid, t) VALUES (1, ?)", (f" {apart} ".join(texts),))
    if only is None:
        rows = conn.execute("SELECT term, offset FROM cut_words ORDER BY offset")
    else:
        wanted = [apart, *only]
        marks = ",".join("?" * len(wanted))
        rows = conn.execute(
            f"SELECT term, offset FROM cut_words WHERE term IN ({marks}) ORDER BY offset",
            wanted,
        )
    out: list[list[tuple[int, str]]] = [[]]
    for term, offset in rows.fetchall():
        if term == apart:
            out.append([])
        else:
            out[-1].append((int(offset), str(term)))
    conn.execute("DELETE FROM cut")
    return out


_APART = "q0parleyapart0q"
"""A word that parts the texts :func:`cut_words` cuts at once (longer where a text holds it)."""


def term_weights(conn: sqlite3.Connection, words: Sequence[str]) -> dict[str, float]:
    """How rare each of ``words`` is among the passages (see :func:`ranking.idf`)."""
    total = passage_count(conn)
    weights = {}
    for word in words:
        row = conn.execute("SELECT doc FROM passage_terms WHERE term = ?", (word,)).fetchone()
        weights[word] = ranking.idf(total, int(row[0]) if row else 0)
    return weights


def search(
    conn: sqlite3.Connection, text: str, limit: int, agent: str | None, floor: float = 0.0
) -> list[PassageHit]:
    """The best passages for ``text`` over the folders of every thread and those of
    ``agent``: BM25 finds the candidates (a file's path and a passage's headings weigh more
    than its text), :func:`ranking.rerank` orders them; those whose relevance is under
    ``floor`` are left out."""
    typed = ranking.counted_words(text, _COMMON)[:_MAX_TERMS]
    prefixes = shortened(conn, typed) if typed else []
    query = match_query(typed, prefixes)
    if query is None:
        return []
    rows = conn.execute(
        'SELECT p.id, d.path, f.rel, p.page, p.heading, p.start, p."end", p.text, p.title, '
        f"bm25(passages_fts, {TEXT_WEIGHT}, {HEADING_WEIGHT}, {TITLE_WEIGHT}) AS score "
        "FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid "
        "JOIN files f ON f.id = p.file_id JOIN folders d ON d.id = f.folder_id "
        "WHERE passages_fts MATCH ? AND f.status = 'indexed' "
        "AND (d.agent IS NULL OR d.agent IS ?) "
        "ORDER BY score LIMIT ?",
        (query, agent, max(limit, RERANKED)),
    ).fetchall()
    asked = cut_words(conn, [" ".join(typed)])[0]
    question = list(dict.fromkeys(term for _, term in asked))
    longer = {t: w for t, w in longer_words(conn, prefixes).items() if t not in question}
    texts: list[str] = []
    for _, _, rel, _, heading, _, _, body, title, _ in rows:
        outer, _, own = (heading or "").rpartition(HEADING_JOIN)
        texts.extend((title or rel, outer, own, body))
    cut = cut_words(conn, texts, [*question, *longer]) if texts else []
    weights = term_weights(conn, question)
    by_id = {row[0]: row for row in rows}
    candidates = [
        ranking.Candidate(row[0], -row[9], f"{row[1]}/{row[2]}", *cut[4 * n : 4 * n + 4])
        for n, row in enumerate(rows)
    ]
    hits = []
    for cand, score, relevance in ranking.rerank(question, weights, candidates, longer=longer):
        if relevance < floor:
            continue
        pid, folder, rel, page, heading, start, end, body, _, _ = by_id[cand.key]
        path = str(Path(folder) / rel)
        hits.append(
            PassageHit(pid, folder, rel, path, page, heading, start, end, body, score, relevance)
        )
        if len(hits) == limit:
            break
    return hits
