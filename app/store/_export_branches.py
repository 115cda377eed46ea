"""The branches of a thread in its JSON export, and read back on import (on the store thread).

An export's ``branches`` is a list in the tree's order: each version of a message with its
point (``parent_id``, ``null`` at the thread's start), place ``n``, first message, where it
stands (``at``), the version whose path holds it (``within``, an index into the list, always an
earlier one), its first line, name and date, and its path's whole state where it was last shown
(``null`` for a version on the path shown, which is the export's ``state``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from app.core.errors import DecodeError, UserError
from app.core.state.agent_state import AgentState
from app.core.state.serde import dump_state, load_state
from app.store import _branches, _checkpoints

__all__ = ["ImportedBranch", "export_branches", "parse_branches", "write_branches"]


def export_branches(
    db: sqlite_utils.Database, thread_id: str, state_cls: type[AgentState]
) -> list[dict[str, Any]]:
    """The thread's branches as the export writes them (empty when it has none)."""
    ordered, shown_ids, _ = _branches.rows_in_order(db, thread_id)
    items: list[dict[str, Any]] = []
    index: dict[int, int] = {}
    for alt in ordered:
        if alt.row is None:
            continue  # the shown version of a point, not written yet: the export's state
        index[alt.row] = len(items)
        state = None
        if alt.message_id not in shown_ids and alt.checkpoint_id is not None:
            tip = _checkpoints.get(db, thread_id, state_cls, alt.checkpoint_id)
            state = json.loads(dump_state(tip.state)) if tip is not None else None
        items.append(
            {
                "parent_id": None if alt.parent_id == "" else alt.parent_id,
                "n": alt.n,
                "message_id": alt.message_id,
                "at": alt.at,
                "within": None if alt.within is None else index.get(alt.within),
                "line": alt.line,
                "name": alt.name,
                "created_at": alt.created_at,
                "state": state,
            }
        )
    return items


@dataclass
class ImportedBranch:
    """One version of a message read from an export."""

    parent_id: str | int
    n: int
    message_id: str | int
    at: int
    within: int | None
    line: str
    name: str
    created_at: float
    state: AgentState | None


def _id(value: Any, what: str, bad: Callable[[str], UserError]) -> str | int:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise bad(f"{what} is not a message id")
    return value


def _count(value: Any, what: str, bad: Callable[[str], UserError]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 2**62:
        raise bad(f"{what} is not a number from 1")
    return value


def parse_branches(
    items: Any,
    state_cls: type[AgentState],
    text: Callable[[Any, str], str | None],
    when: Callable[[Any, str], float | None],
    bad: Callable[[str], UserError],
) -> list[ImportedBranch]:
    """The export's ``branches``, checked: ``text`` and ``when`` read a field as text and as
    a time, ``bad`` makes the error for what is wrong."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise bad("the 'branches' field is not a list")
    found: list[ImportedBranch] = []
    seen: set[tuple[str | int, int]] = set()
    for i, item in enumerate(items):
        what = f"branch {i + 1}"
        if not isinstance(item, dict):
            raise bad(f"{what} is not an object")
        parent = "" if item.get("parent_id") is None else item.get("parent_id")
        parent = _id(parent, f"{what}'s 'parent_id'", bad)
        n = _count(item.get("n"), f"{what}'s 'n'", bad)
        if (parent, n) in seen:
            raise bad(f"{what} has the same place as an earlier one")
        seen.add((parent, n))
        within = item.get("within")
        if within is not None and (
            isinstance(within, bool) or not isinstance(within, int) or not 0 <= within < i
        ):
            raise bad(f"{what}'s 'within' does not name an earlier branch")
        state = None
        if item.get("state") is not None:
            try:
                state = load_state(json.dumps(item["state"]), state_cls)
            except DecodeError as exc:
                raise bad(f"{what}'s state: {exc}") from None
        found.append(
            ImportedBranch(
                parent_id=parent,
                n=n,
                message_id=_id(item.get("message_id"), f"{what}'s 'message_id'", bad),
                at=_count(item.get("at"), f"{what}'s 'at'", bad),
                within=within,
                line=text(item.get("line"), f"{what}'s 'line'") or "",
                name=text(item.get("name"), f"{what}'s 'name'") or "",
                created_at=when(item.get("created_at"), f"{what}'s 'created_at'") or 0.0,
                state=state,
            )
        )
    return found


def write_branches(
    conn: sqlite3.Connection, thread_id: str, branches: list[ImportedBranch], tips: list[str]
) -> None:
    """Add the rows of ``branches`` to the new thread; ``tips`` holds the checkpoint id saved
    for each (the shown path's for one without a state)."""
    rows: list[int] = []
    for branch, tip in zip(branches, tips, strict=True):
        cur = conn.execute(
            "INSERT INTO branches (thread_id, parent_id, at, n, message_id, checkpoint_id, "
            "within, line, name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                thread_id,
                branch.parent_id,
                branch.at,
                branch.n,
                branch.message_id,
                tip,
                None if branch.within is None else rows[branch.within],
                branch.line,
                branch.name,
                branch.created_at,
            ),
        )
        assert cur.lastrowid is not None
        rows.append(cur.lastrowid)
