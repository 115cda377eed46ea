"""Agent records: list, get, save, remove, and which agent runs a thread (on the store thread).

Names are unique regardless of case (``name_key`` is the name folded). Removing an agent moves
its threads to the built-in "Parley", so nothing in them is lost.
"""

from __future__ import annotations

import json
import sqlite3
import time
import unicodedata
import uuid
from typing import Any

import sqlite_utils

from app.core.errors import UserError
from app.store._db import write_tx
from app.store._memories import forget_agent_in
from app.store._schema import BUILTIN_AGENT_ID
from app.store._threads import get_in
from app.store._valid import check_text
from app.store.models import AgentRecord, Thread

__all__ = [
    "find",
    "get",
    "list_agents",
    "name_key",
    "remove",
    "save",
    "set_thread_agent",
    "thread_counts",
]

_COLUMNS = (
    "id, name, description, instructions, model, tools, delegates, limits, starters, builtin, "
    "created_at, updated_at"
)


def name_key(name: str) -> str:
    """The form of an agent's name two names are compared in (case and width folded)."""
    return unicodedata.normalize("NFKC", name).casefold().strip()


def _strings(text: str) -> tuple[str, ...]:
    try:
        value = json.loads(text)
    except ValueError:
        return ()
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _limits(text: str) -> tuple[tuple[str, float], ...]:
    try:
        value = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(value, dict):
        return ()
    return tuple(
        (k, v) for k, v in value.items() if isinstance(v, int | float) and not isinstance(v, bool)
    )


def _record(row: tuple[Any, ...]) -> AgentRecord:
    return AgentRecord(
        id=row[0],
        name=row[1],
        description=row[2],
        instructions=row[3],
        model=row[4],
        tools=_strings(row[5]),
        delegates=_strings(row[6]),
        limits=_limits(row[7]),
        starters=_strings(row[8]),
        builtin=bool(row[9]),
        created_at=row[10],
        updated_at=row[11],
    )


def list_agents(db: sqlite_utils.Database) -> list[AgentRecord]:
    """Every agent: the built-in one first, then by name."""
    rows = db.conn.execute(
        f"SELECT {_COLUMNS} FROM agents ORDER BY builtin DESC, name_key, id"
    ).fetchall()
    return [_record(r) for r in rows]


def get(db: sqlite_utils.Database, agent_id: str) -> AgentRecord | None:
    """The agent with ``agent_id``, or ``None``."""
    row = db.conn.execute(f"SELECT {_COLUMNS} FROM agents WHERE id = ?", (agent_id,)).fetchone()
    return _record(row) if row else None


def find(db: sqlite_utils.Database, name: str) -> AgentRecord | None:
    """The agent called ``name`` (in any case), or ``None``."""
    row = db.conn.execute(
        f"SELECT {_COLUMNS} FROM agents WHERE name_key = ?", (name_key(name),)
    ).fetchone()
    return _record(row) if row else None


def _check(record: AgentRecord) -> None:
    for value, what in (
        (record.id, "the agent's id"),
        (record.name, "the agent's name"),
        (record.description, "the agent's description"),
        (record.instructions, "the agent's instructions"),
        (record.model, "the agent's model"),
        *((t, "a tool name") for t in record.tools),
        *((d, "a delegate's name") for d in record.delegates),
        *((s, "a starter prompt") for s in record.starters),
    ):
        check_text(value, what)
    if not record.name.strip():
        raise UserError("an agent needs a name")


def save(db: sqlite_utils.Database, record: AgentRecord) -> AgentRecord:
    """Add the agent, or change the one with its id; a new name is also changed in the
    delegate lists of the agents that name the old one. Refuses a name another agent has."""
    _check(record)
    now = time.time()
    agent_id = record.id or uuid.uuid4().hex
    values = (
        record.name.strip(),
        name_key(record.name),
        record.description,
        record.instructions,
        record.model,
        json.dumps(list(record.tools)),
        json.dumps(list(record.delegates)),
        json.dumps(dict(record.limits)),
        json.dumps(list(record.starters)),
    )
    with write_tx(db) as conn:
        before = conn.execute(
            "SELECT name_key, builtin FROM agents WHERE id = ?", (agent_id,)
        ).fetchone()
        try:
            if before is None:
                conn.execute(
                    "INSERT INTO agents (name, name_key, description, instructions, model, tools,"
                    " delegates, limits, starters, id, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*values, agent_id, now, now),
                )
            else:
                conn.execute(
                    "UPDATE agents SET name = ?, name_key = ?, description = ?, instructions = ?,"
                    " model = ?, tools = ?, delegates = ?, limits = ?, starters = ?,"
                    " updated_at = ? WHERE id = ?",
                    (*values, now, agent_id),
                )
        except sqlite3.IntegrityError:
            raise UserError(
                f"an agent named {record.name.strip()!r} already exists; choose another name"
            ) from None
        if before is not None and before[0] != values[1]:
            _rename_delegate(conn, before[0], values[0])
        row = conn.execute(f"SELECT {_COLUMNS} FROM agents WHERE id = ?", (agent_id,)).fetchone()
    return _record(row)


def _rename_delegate(conn: sqlite3.Connection, old_key: str, new_name: str) -> None:
    rows = conn.execute("SELECT id, delegates FROM agents").fetchall()
    for agent_id, text in rows:
        names = list(_strings(text))
        renamed = [new_name if name_key(n) == old_key else n for n in names]
        if renamed != names:
            conn.execute(
                "UPDATE agents SET delegates = ? WHERE id = ?", (json.dumps(renamed), agent_id)
            )


def remove(db: sqlite_utils.Database, agent_id: str) -> int:
    """Remove the agent, its approval rules and its memories; its threads go to "Parley".
    Returns how many threads moved. Refuses the built-in agent, one that is not there, and
    one another agent delegates to."""
    with write_tx(db) as conn:
        row = conn.execute(
            "SELECT name, name_key, builtin FROM agents WHERE id = ?", (agent_id,)
        ).fetchone()
        if row is None:
            raise UserError(f"there is no agent {agent_id!r}")
        if row[2]:
            raise UserError(f"{row[0]} is built in and cannot be removed")
        for other, text in conn.execute(
            "SELECT name, delegates FROM agents WHERE id != ?", (agent_id,)
        ).fetchall():
            if any(name_key(n) == row[1] for n in _strings(text)):
                raise UserError(
                    f"{other} delegates to {row[0]}; take {row[0]} out of {other}'s delegates first"
                )
        moved = conn.execute(
            "UPDATE threads SET agent_id = ? WHERE agent_id = ?", (BUILTIN_AGENT_ID, agent_id)
        ).rowcount
        conn.execute("DELETE FROM argument_rules WHERE agent_id = ?", (agent_id,))
        forget_agent_in(conn, agent_id)
        conn.execute("DELETE FROM agents WHERE id = ?", (agent_id,))
    return int(moved)


def set_thread_agent(db: sqlite_utils.Database, thread_id: str, agent_id: str) -> Thread:
    """Run the thread's next turns with ``agent_id``."""
    with write_tx(db) as conn:
        if conn.execute("SELECT 1 FROM agents WHERE id = ?", (agent_id,)).fetchone() is None:
            raise UserError(f"there is no agent {agent_id!r}")
        cur = conn.execute("UPDATE threads SET agent_id = ? WHERE id = ?", (agent_id, thread_id))
        if cur.rowcount == 0:
            raise UserError(f"there is no thread {thread_id!r}")
        found = get_in(conn, thread_id)
    assert found is not None
    return found


def thread_counts(db: sqlite_utils.Database) -> dict[str, int]:
    """How many threads each agent runs, by agent id."""
    rows = db.conn.execute("SELECT agent_id, count(*) FROM threads GROUP BY agent_id")
    return {r[0]: int(r[1]) for r in rows}
