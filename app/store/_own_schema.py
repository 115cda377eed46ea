"""Parley's own schema, object by object, and what in a database file is not Parley's.

An SQLite file carries its schema with it: a backup or a file put in the data folder may hold
a trigger that runs on every insert (one that widens an approval rule, or empties the audit
log), a view, or a table Parley never made. The objects a file may hold are exactly those a
new database gets from Parley's own migrations at the same schema version, with the same SQL
(compared with runs of white space made one space). Anything else is a stranger: a restore
refuses a backup holding one, and opening a database drops foreign triggers and views (and
puts Parley's own back) before anything is written, so none ever runs.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "Schema",
    "Stranger",
    "describe_strangers",
    "expected_schema",
    "read_schema",
    "remove_strangers",
    "strangers",
]

Schema = Mapping[tuple[str, str], str | None]
"""``(type, name) -> SQL`` of every object in a database's ``sqlite_schema``."""

_INTERNAL_TABLES = frozenset(
    {"sqlite_sequence", "sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"}
)
"""Tables SQLite itself makes (``PRAGMA optimize``, ``AUTOINCREMENT``): never a stranger."""

_RUNS = frozenset({"trigger", "view"})
"""The kinds of object that run statements of their own: dropped when a database is opened."""


@dataclass(frozen=True)
class Stranger:
    """An object in a file that Parley's schema does not have, or has with other SQL."""

    type: str
    name: str
    changed: bool
    """``True``: Parley has an object of this name, made with other SQL."""

    def describe(self) -> str:
        """``the trigger "widen"`` or ``a changed view "messages_indexed"``."""
        kind = {"table": "table", "index": "index", "view": "view", "trigger": "trigger"}.get(
            self.type, "object"
        )
        name = self.name.encode("unicode_escape").decode("ascii")[:60]
        return f'{"a changed" if self.changed else "the"} {kind} "{name}"'


def _normal(sql: str | None) -> str | None:
    return None if sql is None else re.sub(r"\s+", " ", sql).strip()


def _internal(kind: str, name: str, sql: str | None) -> bool:
    if kind == "table" and name in _INTERNAL_TABLES:
        return True
    # the index SQLite makes for a PRIMARY KEY or UNIQUE constraint has no SQL of its own
    return kind == "index" and name.startswith("sqlite_autoindex_") and sql is None


def read_schema(conn: sqlite3.Connection) -> dict[tuple[str, str], str | None]:
    """Every object in ``conn``'s main database, SQLite's own left out."""
    rows = conn.execute("SELECT type, name, sql FROM main.sqlite_master").fetchall()
    return {
        (str(kind), str(name)): None if sql is None else str(sql)
        for kind, name, sql in rows
        if not _internal(str(kind), str(name), sql)
    }


def expected_schema(build: Callable[[sqlite3.Connection], None]) -> Schema:
    """The schema ``build`` gives a new, empty database in memory."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        build(conn)
        return read_schema(conn)
    finally:
        conn.close()


def _shadow_of(name: str, expected: Schema) -> bool:
    """Whether ``name`` is one of the tables SQLite makes for one of Parley's full-text
    indexes (their SQL belongs to SQLite's version, not to Parley)."""
    return any(
        kind == "table"
        and (sql or "").upper().startswith("CREATE VIRTUAL TABLE")
        and name.startswith(f"{vname}_")
        for (kind, vname), sql in expected.items()
    )


def strangers(conn: sqlite3.Connection, expected: Schema) -> list[Stranger]:
    """The objects in ``conn`` that are not in ``expected`` or differ from it, triggers and
    views first."""
    found: list[Stranger] = []
    for key, sql in read_schema(conn).items():
        if key not in expected:
            found.append(Stranger(*key, changed=False))
        elif _normal(sql) != _normal(expected[key]) and not _shadow_of(key[1], expected):
            found.append(Stranger(*key, changed=True))
    order = {"trigger": 0, "view": 1, "table": 2, "index": 3}
    return sorted(found, key=lambda s: (order.get(s.type, 4), s.name))


def describe_strangers(found: Sequence[Stranger], limit: int = 3) -> str:
    """``the trigger "a", the view "b" and 2 more`` (the first ``limit`` named)."""
    named = [s.describe() for s in found[:limit]]
    rest = len(found) - len(named)
    if rest:
        return f"{', '.join(named)} and {rest} more"
    if len(named) > 1:
        return f"{', '.join(named[:-1])} and {named[-1]}"
    return named[0] if named else ""


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def remove_strangers(conn: sqlite3.Connection, expected: Schema) -> list[Stranger]:
    """Drop every trigger and view of ``conn`` that ``expected`` does not have as it is
    (putting Parley's own back where one of its names was taken), in one transaction, and
    return what was removed. Nothing is read through them and none runs. Tables and indexes
    are left as they are (they run nothing)."""
    found = [s for s in strangers(conn, expected) if s.type in _RUNS]
    if not found:
        return []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for stranger in found:
            conn.execute(f"DROP {stranger.type.upper()} IF EXISTS main.{_quoted(stranger.name)}")
        for stranger in found:
            sql = expected.get((stranger.type, stranger.name))
            if stranger.changed and sql:
                conn.execute(sql)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return found
