"""The alternatives of a message within one thread (run on the store thread).

A *point* is a message of a thread whose next message has alternatives (an edited question, a
regenerated answer); its id is ``parent_id`` in the ``branches`` table (``''`` for the
thread's start). Each alternative is a row: its first message, its place ``n`` among the
point's alternatives, and the checkpoint where it was last shown (its tip). ``within`` is the
alternative whose path holds the point (``NULL`` for a point every path holds), so the tree is
built from these rows alone, never by reading every path.

The thread's latest checkpoint is the path shown now: the alternative shown at a point is the
message after it on that path. A shown alternative's own row may be stale (its tip is the
latest checkpoint); before the latest checkpoint moves on to another path, every shown row is
stamped with it, so every alternative keeps the path it had when it was left. An alternative
made by a regenerate or an edit is not written until the thread moves away from it (or a point
is made inside it): it is simply the point's last one while it is shown.

Switching saves the chosen alternative's tip again as the thread's next checkpoint (its rows
copied into a new segment, see :mod:`app.store._step_copy`), so nothing is ever lost by
switching.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from app.core.errors import UserError
from app.core.plain_line import plain_line
from app.core.state.agent_state import AgentState
from app.core.state.message import Message
from app.store import _checkpoints, _step_copy
from app.store._changes import Head, head_of
from app.store._db import write_tx
from app.store._head_cache import HeadCache
from app.store._valid import check_text
from app.store.models import Branch

__all__ = [
    "Alternative",
    "delete",
    "keep",
    "open_number",
    "path_of",
    "rename",
    "restore",
    "rows_in_order",
    "switch",
    "tree",
]

_ROOT = ""
"""The ``parent_id`` of a point at the thread's start."""

_LIVE = "thread_id = ? AND segment = ? AND valid_to IS NULL"
_MADE = "body ->> '$.timestamp'"
_ROW = "id, parent_id, at, n, message_id, checkpoint_id, within, line, name, created_at"
"""The columns of a ``branches`` row, as :class:`Alternative` takes them."""
"""When a message row's message was made (``NULL`` when it does not say)."""


@dataclass
class Alternative:
    """A row of the ``branches`` table (``row`` ``None``: the shown one, not yet written)."""

    row: int | None
    parent_id: Any
    at: int
    n: int
    message_id: Any
    checkpoint_id: str | None
    within: int | None
    line: str
    name: str
    created_at: float
    children: list[Any] = field(default_factory=list)
    """The points inside its path (their parent ids), in the path's order."""


@dataclass
class _Shown:
    position: int
    message_id: Any
    text: str
    made: float | None


def _line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:79] + "…" if len(line) > 80 else line


def _when(made: Any) -> float:
    """When a version was made: its first message's time (now when it does not say one)."""
    if isinstance(made, int | float) and not isinstance(made, bool) and made >= 0:
        return float(made)
    return time.time()


def _head(conn: sqlite3.Connection, thread_id: str) -> Head:
    head = head_of(conn, thread_id)
    if head is None:
        raise UserError(f"there is no thread {thread_id}")
    return head


def _rows(conn: sqlite3.Connection, thread_id: str) -> dict[Any, list[Alternative]]:
    points: dict[Any, list[Alternative]] = {}
    for row in conn.execute(
        "SELECT id, parent_id, at, n, message_id, checkpoint_id, within, line, name, created_at "
        "FROM branches WHERE thread_id = ? ORDER BY n",
        (thread_id,),
    ):
        points.setdefault(row[1], []).append(Alternative(*row))
    return points


def _after(conn: sqlite3.Connection, thread_id: str, segment: int, position: int) -> _Shown | None:
    row = conn.execute(
        f"SELECT position, message_id, text, {_MADE} FROM messages WHERE {_LIVE} AND position > ? "
        "ORDER BY position LIMIT 1",
        (thread_id, segment, position),
    ).fetchone()
    return _Shown(*row) if row else None


def _position(
    conn: sqlite3.Connection, thread_id: str, segment: int, message_id: Any
) -> int | None:
    row = conn.execute(
        f"SELECT position FROM messages WHERE {_LIVE} AND message_id = ?",
        (thread_id, segment, message_id),
    ).fetchone()
    return None if row is None else int(row[0])


def _on_path(
    conn: sqlite3.Connection, thread_id: str, head: Head, parents: Any
) -> dict[Any, tuple[int, _Shown | None]]:
    """The points on the path shown now: parent id -> (its position, the message after it)."""
    found: dict[Any, tuple[int, _Shown | None]] = {}
    for parent in parents:
        position = -1 if parent == _ROOT else _position(conn, thread_id, head.segment, parent)
        if position is not None:
            found[parent] = (position, _after(conn, thread_id, head.segment, position))
    return found


def _parents(conn: sqlite3.Connection, thread_id: str) -> list[Any]:
    """The thread's points (their parent ids), without reading their alternatives."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT parent_id FROM branches WHERE thread_id = ?", (thread_id,)
        )
    ]


def _at_point(conn: sqlite3.Connection, thread_id: str, parent: Any) -> list[Alternative]:
    """The alternatives of one point, in order."""
    return [
        Alternative(*row)
        for row in conn.execute(
            f"SELECT {_ROW} FROM branches WHERE thread_id = ? AND parent_id = ? ORDER BY n",
            (thread_id, parent),
        )
    ]


def _stamp_shown(conn: sqlite3.Connection, thread_id: str, head: Head) -> None:
    """Write the shown alternative of every point on the path shown now, with the latest
    checkpoint as its tip (before the thread moves on from it). Each point costs an indexed
    lookup or two, however many alternatives it has."""
    for parent, (_, shown) in _on_path(conn, thread_id, head, _parents(conn, thread_id)).items():
        if shown is None:
            continue
        stamped = conn.execute(
            "UPDATE branches SET checkpoint_id = ? WHERE thread_id = ? AND parent_id = ? "
            "AND message_id = ?",
            (head.head_id, thread_id, parent, shown.message_id),
        )
        if not stamped.rowcount:
            alternatives = _at_point(conn, thread_id, parent)
            _insert(conn, thread_id, _shown_one(alternatives, parent, shown, head))


def _shown_one(alternatives: list[Alternative], parent: Any, shown: Any, head: Head) -> Alternative:
    """The shown path as the next version at ``parent``, after ``alternatives``."""
    first = alternatives[0]
    return Alternative(
        None, parent, first.at, alternatives[-1].n + 1, shown.message_id, head.head_id,
        first.within, _line(shown.text), "", _when(shown.made),
    )  # fmt: skip


def _insert(conn: sqlite3.Connection, thread_id: str, alt: Alternative) -> int:
    cur = conn.execute(
        "INSERT INTO branches (thread_id, parent_id, at, n, message_id, checkpoint_id, within, "
        "line, name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            thread_id,
            alt.parent_id,
            alt.at,
            alt.n,
            alt.message_id,
            alt.checkpoint_id,
            alt.within,
            alt.line,
            alt.name,
            alt.created_at,
        ),
    )
    assert cur.lastrowid is not None
    return cur.lastrowid


def keep(db: sqlite_utils.Database, thread_id: str, message_id: str | int) -> None:
    """Keep the path from ``message_id`` on (the latest checkpoint) as an alternative of that
    message, before the thread replaces it (a regenerate, an edit)."""
    with write_tx(db) as conn:
        head = _head(conn, thread_id)
        position = _position(conn, thread_id, head.segment, message_id)
        if position is None or head.head_id is None:
            raise UserError("that message is no longer in the thread")
        before = conn.execute(
            f"SELECT message_id FROM messages WHERE {_LIVE} AND position < ? "
            "ORDER BY position DESC LIMIT 1",
            (thread_id, head.segment, position),
        ).fetchone()
        parent = _ROOT if before is None else before[0]
        _stamp_shown(conn, thread_id, head)
        points = _rows(conn, thread_id)
        if parent in points:
            return  # a point already: its shown alternative, this path, is written now
        path = _on_path(conn, thread_id, head, points)
        outer = [(pos, p) for p, (pos, _) in path.items() if pos < position]
        within = None
        if outer:
            _, enclosing = max(outer, key=lambda item: item[0])
            shown = path[enclosing][1]
            within = next(
                a.row for a in points[enclosing] if shown and a.message_id == shown.message_id
            )
        at = conn.execute(
            f"SELECT count(*) FROM messages WHERE {_LIVE} AND position <= ?",
            (thread_id, head.segment, position),
        ).fetchone()[0]
        text, made = conn.execute(
            f"SELECT text, {_MADE} FROM messages WHERE {_LIVE} AND position = ?",
            (thread_id, head.segment, position),
        ).fetchone()
        row = _insert(
            conn,
            thread_id,
            Alternative(
                None,
                parent,
                at,
                1,
                message_id,
                head.head_id,
                within,
                _line(text),
                "",
                _when(made),
            ),
        )
        inner = [p for p, (pos, _) in path.items() if pos >= position]
        conn.executemany(
            "UPDATE branches SET within = ? WHERE thread_id = ? AND parent_id = ? AND within IS ?",
            ((row, thread_id, p, within) for p in inner),
        )


def switch(
    db: sqlite_utils.Database,
    thread_id: str,
    message_id: str | int,
    index: int,
    state_cls: type[AgentState],
    cache: HeadCache | None,
) -> bool:
    """Show alternative ``index`` (from 1) of the message whose shown alternative begins
    with ``message_id``: its tip is saved as the thread's next checkpoint. ``False`` when it
    is shown already."""
    if cache is not None:
        cache.forget(thread_id)
    with write_tx(db) as conn:
        head = _head(conn, thread_id)
        position = _position(conn, thread_id, head.segment, message_id)
        if position is None:
            raise UserError("that message is not on the path the thread shows now")
        before = conn.execute(
            f"SELECT message_id FROM messages WHERE {_LIVE} AND position < ? "
            "ORDER BY position DESC LIMIT 1",
            (thread_id, head.segment, position),
        ).fetchone()
        parent = _ROOT if before is None else before[0]
        _stamp_shown(conn, thread_id, head)
        (count,) = conn.execute(
            "SELECT count(*) FROM branches WHERE thread_id = ? AND parent_id = ?",
            (thread_id, parent),
        ).fetchone()
        if not count:
            raise UserError("that message has no other versions")
        if not 1 <= index <= count:
            raise UserError(f"that message has {count} versions; there is no version {index}")
        target = Alternative(
            *conn.execute(
                f"SELECT {_ROW} FROM branches WHERE thread_id = ? AND parent_id = ? "
                "ORDER BY n LIMIT 1 OFFSET ?",
                (thread_id, parent, index - 1),
            ).fetchone()
        )
        if target.message_id == message_id:
            return False
        assert target.checkpoint_id is not None
        _step_copy.copy_in(conn, thread_id, target.checkpoint_id, state_cls)
        return True


def _ordered(conn: sqlite3.Connection, thread_id: str) -> tuple[list[Alternative], set[Any], Head]:
    """Every alternative, the tree's depth-first order, with the ids of those shown now."""
    head = _head(conn, thread_id)
    points = _rows(conn, thread_id)
    shown_ids: set[Any] = set()
    for parent, (_, shown) in _on_path(conn, thread_id, head, points).items():
        if shown is None:
            continue
        shown_ids.add(shown.message_id)
        alternatives = points[parent]
        if all(a.message_id != shown.message_id for a in alternatives):
            alternatives.append(_shown_one(alternatives, parent, shown, head))
    by_row: dict[int, Alternative] = {
        a.row: a for alts in points.values() for a in alts if a.row is not None
    }
    roots: list[Any] = []
    for parent, alternatives in sorted(points.items(), key=lambda item: item[1][0].at):
        within = alternatives[0].within
        holder = None if within is None else by_row.get(within)
        (holder.children if holder is not None else roots).append(parent)
    ordered: list[Alternative] = []

    def walk(parents: list[Any]) -> None:
        for parent in parents:
            for alt in points[parent]:
                ordered.append(alt)
                walk(alt.children)

    walk(roots)
    return ordered, shown_ids, head


def rows_in_order(
    db: sqlite_utils.Database, thread_id: str
) -> tuple[list[Alternative], set[Any], Head]:
    """The thread's alternatives in the tree's order (for an export), the first message ids
    of those shown now, and the thread's latest checkpoint."""
    return _ordered(db.conn, thread_id)


def tree(db: sqlite_utils.Database, thread_id: str) -> list[Branch]:
    """Every alternative of the thread, depth first, numbered from 1."""
    conn = db.conn
    ordered, shown_ids, head = _ordered(conn, thread_id)
    counts: dict[Any, int] = {}
    for alt in ordered:
        counts[alt.parent_id] = counts.get(alt.parent_id, 0) + 1
    depth: dict[int | None, int] = {None: 0}
    found = []
    for number, alt in enumerate(ordered, 1):
        level = depth.get(alt.within, 0)
        if alt.row is not None:
            depth[alt.row] = level + 1
        shown = alt.message_id in shown_ids
        length = head.message_count
        if not shown and alt.checkpoint_id is not None:
            row = conn.execute(
                "SELECT message_count FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?",
                (thread_id, alt.checkpoint_id),
            ).fetchone()
            length = row[0] if row else 0
        found.append(
            Branch(
                number=number,
                index=alt.n,
                count=counts[alt.parent_id],
                parent_id=None if alt.parent_id == _ROOT else alt.parent_id,
                message_id=alt.message_id,
                at=alt.at,
                depth=level,
                line=plain_line(alt.line),
                shown=shown,
                length=length,
                created_at=alt.created_at,
                name=alt.name,
            )
        )
    return found


def path_of(
    db: sqlite_utils.Database, thread_id: str, number: int, state_cls: type[AgentState]
) -> list[Message]:
    """The messages of the path of alternative ``number`` (as :func:`tree` numbers them)."""
    ordered, shown_ids, _ = _ordered(db.conn, thread_id)
    if not 1 <= number <= len(ordered):
        many = f"has {len(ordered)} branches" if ordered else "has no branches"
        raise UserError(f"this thread {many}; there is no branch {number}")
    alt = ordered[number - 1]
    cid = None if alt.message_id in shown_ids else alt.checkpoint_id
    checkpoint = _checkpoints.get(db, thread_id, state_cls, cid)
    if checkpoint is None:
        raise UserError(f"branch {number} is missing from the thread")
    return list(checkpoint.state.context)


def _numbered(conn: sqlite3.Connection, thread_id: str, number: int) -> Alternative:
    """Alternative ``number`` (as :func:`tree` numbers them), written (a shown one is)."""
    head = _head(conn, thread_id)
    ordered, _, _ = _ordered(conn, thread_id)
    if not 1 <= number <= len(ordered):
        many = f"has {len(ordered)} branches" if ordered else "has no branches"
        raise UserError(f"this thread {many}; there is no branch {number}")
    if ordered[number - 1].row is None:
        _stamp_shown(conn, thread_id, head)  # keeps every number: it is its point's last
        ordered, _, _ = _ordered(conn, thread_id)
    return ordered[number - 1]


def open_number(
    db: sqlite_utils.Database,
    thread_id: str,
    number: int,
    state_cls: type[AgentState],
    cache: HeadCache | None,
) -> bool:
    """Show branch ``number`` (as :func:`tree` numbers them) where it was left: its tip is
    saved as the thread's next checkpoint. ``False`` when it is on the path shown."""
    if cache is not None:
        cache.forget(thread_id)
    with write_tx(db) as conn:
        _, shown_ids, head = _ordered(conn, thread_id)
        target = _numbered(conn, thread_id, number)
        if target.message_id in shown_ids:
            return False
        _stamp_shown(conn, thread_id, head)
        assert target.checkpoint_id is not None
        _step_copy.copy_in(conn, thread_id, target.checkpoint_id, state_cls)
        return True


def rename(db: sqlite_utils.Database, thread_id: str, number: int, name: str) -> None:
    """Give branch ``number`` a name (blank: none)."""
    check_text(name, "the branch's name")
    with write_tx(db) as conn:
        target = _numbered(conn, thread_id, number)
        conn.execute(
            "UPDATE branches SET name = ? WHERE id = ?", (" ".join(name.split()), target.row)
        )


def delete(db: sqlite_utils.Database, thread_id: str, number: int) -> list[tuple[Any, ...]]:
    """Take branch ``number`` and every branch inside it out of the tree (their steps stay in
    the thread's history); returns their rows for :func:`restore`. The branch shown is
    refused."""
    with write_tx(db) as conn:
        _, shown_ids, _ = _ordered(conn, thread_id)
        target = _numbered(conn, thread_id, number)
        if target.message_id in shown_ids:
            raise UserError(
                f"branch {number} is shown now; open another version of it before deleting it"
            )
        removed = [
            conn.execute(f"SELECT {_ROW} FROM branches WHERE id = ?", (target.row,)).fetchone()
        ]
        holders = [target.row]
        while holders:  # the branches inside, outer ones first
            inner = conn.execute(
                f"SELECT {_ROW} FROM branches WHERE thread_id = ? AND within IN "
                f"({','.join('?' * len(holders))}) ORDER BY at, n",
                (thread_id, *holders),
            ).fetchall()
            removed += inner
            holders = [row[0] for row in inner]
        conn.executemany("DELETE FROM branches WHERE id = ?", ((row[0],) for row in removed))
        _renumber(conn, thread_id, target.parent_id, target.n, -1)
        return removed


def _renumber(conn: sqlite3.Connection, thread_id: str, parent: Any, from_n: int, by: int) -> None:
    """Move the places of a point's versions from ``from_n`` on by ``by`` (through negative
    numbers, so no two rows ever share a place on the way)."""
    where = "thread_id = ? AND parent_id = ? AND n "
    conn.execute(
        f"UPDATE branches SET n = -(n + ?) WHERE {where}>= ?", (by, thread_id, parent, from_n)
    )
    conn.execute(f"UPDATE branches SET n = -n WHERE {where}< 0", (thread_id, parent))


def restore(db: sqlite_utils.Database, thread_id: str, rows: list[tuple[Any, ...]]) -> None:
    """Put back branches :func:`delete` took out (``rows`` as it returned them)."""
    if not rows:
        return
    with write_tx(db) as conn:
        _head(conn, thread_id)
        first = rows[0]
        _renumber(conn, thread_id, first[1], first[3], 1)
        new_ids: dict[int, int] = {}
        for row in rows:
            alt = Alternative(None, *row[1:])
            alt.within = new_ids.get(row[6], row[6]) if row[6] is not None else None
            new_ids[row[0]] = _insert(conn, thread_id, alt)
