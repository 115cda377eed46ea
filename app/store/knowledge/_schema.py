"""The knowledge index's schema, versioned with ``PRAGMA user_version``."""

from __future__ import annotations

import functools
import sqlite3

from app.store._own_schema import Schema, expected_schema

__all__ = ["SCHEMA_VERSION", "create_or_check", "own_schema"]

SCHEMA_VERSION = 4
"""1: folders, files, passages and their FTS5 index. 2: passages' vectors (search by meaning)
and the index's own settings (which model made the vectors). 3: a passage's file title in
the FTS5 index beside its text and headings, and the index's terms with how many passages
hold each (the rarity of a question's words). 4: new passages are put in the FTS5 index by
the statement that saves them, not by a trigger."""

_SCHEMA = """
CREATE TABLE folders (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    agent TEXT,
    added_at REAL NOT NULL,
    last_sync REAL
);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
    rel TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('indexed', 'skipped')),
    reason TEXT,
    indexed_at REAL NOT NULL,
    UNIQUE (folder_id, rel)
);
CREATE INDEX files_by_hash ON files(folder_id, size, sha256);
CREATE TABLE passages (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    page INTEGER,
    heading TEXT,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX passages_by_file ON passages(file_id);
CREATE VIRTUAL TABLE passages_fts USING fts5(
    text, heading, content='passages', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER passages_added AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, text, heading) VALUES (new.id, new.text, new.heading);
END;
CREATE TRIGGER passages_removed AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, text, heading)
    VALUES ('delete', old.id, old.text, old.heading);
END;
"""

_VECTORS = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE passage_vectors (
    passage_id INTEGER PRIMARY KEY,
    vector BLOB NOT NULL
);
CREATE TRIGGER passage_vectors_removed AFTER DELETE ON passages BEGIN
    DELETE FROM passage_vectors WHERE passage_id = old.id;
END;
"""
"""Version 2: a passage's vector (float32, unit length, of the model named in ``meta``'s
``embedding_model``), removed with its passage."""

_TITLES = """
ALTER TABLE passages ADD COLUMN title TEXT;
UPDATE passages SET title = (SELECT rel FROM files WHERE files.id = passages.file_id);
DROP TRIGGER passages_added;
DROP TRIGGER passages_removed;
DROP TABLE passages_fts;
CREATE VIRTUAL TABLE passages_fts USING fts5(
    text, heading, title, content='passages', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER passages_added AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts(rowid, text, heading, title)
    VALUES (new.id, new.text, new.heading, new.title);
END;
CREATE TRIGGER passages_removed AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, text, heading, title)
    VALUES ('delete', old.id, old.text, old.heading, old.title);
END;
CREATE TRIGGER passages_retitled AFTER UPDATE OF title ON passages BEGIN
    INSERT INTO passages_fts(passages_fts, rowid, text, heading, title)
    VALUES ('delete', old.id, old.text, old.heading, old.title);
    INSERT INTO passages_fts(rowid, text, heading, title)
    VALUES (new.id, new.text, new.heading, new.title);
END;
INSERT INTO passages_fts(passages_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE passage_terms USING fts5vocab(passages_fts, 'row');
"""
"""Version 3: each passage's ``title`` (its file's path inside its folder: the file name's
words, which the search weighs above the text) in the FTS5 index, whose words are now cut
with their English endings taken off (Porter's stemmer), and ``passage_terms`` (each term
and how many passages hold it). An upgraded index keeps its passages; a file read
again gets its headings as a path."""

_DIRECT = """
DROP TRIGGER passages_added;
INSERT INTO passages_fts(passages_fts, rank) VALUES ('automerge', 16);
"""
"""Version 4: no trigger copies each new passage into the FTS5 index; the save that adds a
file's passages indexes them all with one statement after them
(``_insert`` in :mod:`app.store.knowledge._ops`). A trigger runs FTS5's insert once per
row as a statement of its own, which made saving a folder two and a half times slower.
Removing and retitling passages still go through triggers (they are rare, and need the old
text). And FTS5 merges its index's segments 16 at a time instead of 4 (``automerge``, its
largest setting): a 200 MB folder is written a fifth quicker, each word's entries are merged
fewer times, and a query still takes a millisecond or two."""

_UPGRADES = {1: _VECTORS, 2: _TITLES, 3: _DIRECT}
"""What turns a file of each older version into the next one."""


def create_or_check(conn: sqlite3.Connection, where: str) -> None:
    """Create the tables in a new file, upgrade an older one; refuse a file a newer Parley
    wrote (``ValueError`` naming ``where``)."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"the knowledge index {where} was written by a newer Parley (format {version}); "
            "update Parley or move the file away (it is rebuilt from your folders)"
        )
    if version == SCHEMA_VERSION:
        return
    # one script, one transaction: a file is either fully set up (or upgraded) or left as
    # it was
    # a new file is made as the first version, then upgraded: so it holds exactly what an
    # upgraded one does, with the same SQL
    first = [_SCHEMA] if version == 0 else []
    steps = first + [_UPGRADES[v] for v in range(max(version, 1), SCHEMA_VERSION)]
    script = f"BEGIN IMMEDIATE;{''.join(steps)}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;"
    try:
        conn.executescript(script)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


@functools.lru_cache(maxsize=1)
def own_schema() -> Schema:
    """Every object (and its SQL) a new knowledge index holds: all an index of the current
    version may hold."""
    return expected_schema(lambda conn: create_or_check(conn, "in memory"))
