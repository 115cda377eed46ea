"""The knowledge index's schema, versioned with ``PRAGMA user_version``."""

from __future__ import annotations

import sqlite3

__all__ = ["SCHEMA_VERSION", "create_or_check"]

SCHEMA_VERSION = 1

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


def create_or_check(conn: sqlite3.Connection, where: str) -> None:
    """Create the tables in a new file; refuse a file a newer Parley wrote (``ValueError``
    naming ``where``)."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"the knowledge index {where} was written by a newer Parley (format {version}); "
            "update Parley or move the file away (it is rebuilt from your folders)"
        )
    if version == SCHEMA_VERSION:
        return
    # one script, one transaction: a file is either fully set up or left as it was
    script = f"BEGIN IMMEDIATE;{_SCHEMA}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;"
    try:
        conn.executescript(script)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
