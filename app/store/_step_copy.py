"""Saving an older checkpoint's exact state again as a thread's next checkpoint, row for row
(on the store thread; see :mod:`app.store.checkpointer` for how history is kept).

Showing another branch makes its tip the thread's latest state. Reading that state and
writing it as a full snapshot would parse and serialise every message of the path (most of a
second for 10,000 messages); a step that copies it needs neither: its other fields come with
the checkpoint row, and its messages are written row for row. When the tip is in the thread's
latest segment (a regenerated answer, an edited question), only the rows that differ are
touched: those made since the tip are closed and those closed since are written again, so
switching costs what the difference costs, not the thread's length. A tip in an older
segment has its rows copied by one ``INSERT ... SELECT`` into a new segment.
"""

from __future__ import annotations

import sqlite3
import time

from app.core.checkpoint.base import new_checkpoint_id
from app.core.errors import UserError
from app.core.state.agent_state import AgentState
from app.core.state.serde import load_state
from app.store import _checkpoints, _search_index
from app.store._changes import head_of
from app.store._damage import read_stored

__all__ = ["copy_in"]


def copy_in(
    conn: sqlite3.Connection, thread_id: str, checkpoint_id: str, state_cls: type[AgentState]
) -> str:
    """Save checkpoint ``checkpoint_id`` of the thread again, whole, as its next checkpoint
    (inside the caller's transaction); returns the new checkpoint's id."""
    head = head_of(conn, thread_id)
    source = conn.execute(
        "SELECT seq, segment, step, message_count, state FROM checkpoints "
        "WHERE thread_id = ? AND checkpoint_id = ?",
        (thread_id, checkpoint_id),
    ).fetchone()
    if head is None or source is None:
        raise UserError(f"checkpoint {checkpoint_id!r} of thread {thread_id!r} is missing")
    seq, segment, step, count, state_json = source
    new_seq = head.seq + 1
    before = conn.execute("SELECT ifnull(max(id), 0) FROM messages").fetchone()[0]
    if segment == head.segment:
        _step_back(conn, thread_id, segment, seq, new_seq)
        new_segment = segment
    else:
        _search_index.enqueue_segment_removed(conn, thread_id, head.segment)
        conn.execute(
            "INSERT INTO messages (thread_id, segment, message_id, position, valid_from, text, "
            "body) SELECT thread_id, ?, message_id, position, ?, text, body FROM messages "
            "WHERE thread_id = ? AND segment = ? AND valid_from <= ? "
            "AND (valid_to IS NULL OR valid_to > ?) ORDER BY position",
            (new_seq, new_seq, thread_id, segment, seq, seq),
        )
        new_segment = new_seq
    _search_index.enqueue_new(conn, before)
    new_id = new_checkpoint_id()
    now = time.time()
    conn.execute(
        "INSERT INTO checkpoints (thread_id, seq, checkpoint_id, parent_id, segment, step, "
        "source, created_at, message_count, state) VALUES (?, ?, ?, ?, ?, ?, 'update', ?, ?, ?)",
        (thread_id, new_seq, new_id, head.head_id, new_segment, step, now, count, state_json),
    )
    next_position = conn.execute(
        "SELECT ifnull(max(position) + 1, 0) FROM messages WHERE thread_id = ? AND segment = ? "
        "AND valid_to IS NULL",
        (thread_id, new_segment),
    ).fetchone()[0]
    conn.execute(
        "UPDATE threads SET head_id = ?, head_seq = ?, head_segment = ?, next_position = ?, "
        "message_count = ?, updated_at = max(updated_at, ?), run_owner = NULL, run_seen = NULL "
        "WHERE id = ?",
        (new_id, new_seq, new_segment, next_position, count, now, thread_id),
    )
    state = read_stored(load_state, state_json, state_cls, what=f"the state of thread {thread_id}")
    _checkpoints.save_interrupts(conn, thread_id, new_id, True, state)
    conn.execute("DELETE FROM step_writes WHERE thread_id = ?", (thread_id,))
    _search_index.maybe_flush(conn)
    return new_id


def _step_back(
    conn: sqlite3.Connection, thread_id: str, segment: int, seq: int, new_seq: int
) -> None:
    """Make the thread's latest segment show its state at ``seq`` again, as step ``new_seq``:
    the versions made since are closed and those closed since are written again. Only the
    rows that differ are touched (a regenerated answer, an edited question and what followed),
    whatever the thread's length; every older step keeps its exact state."""
    closing = [
        (rowid, text != "")
        for rowid, text in conn.execute(
            "SELECT id, text FROM messages WHERE thread_id = ? AND segment = ? "
            "AND valid_to IS NULL AND valid_from > ?",
            (thread_id, segment, seq),
        )
    ]
    _search_index.enqueue_removed(conn, [rowid for rowid, has_text in closing if has_text])
    conn.executemany(
        "UPDATE messages SET valid_to = ? WHERE id = ?", ((new_seq, r) for r, _ in closing)
    )
    conn.execute(
        "INSERT INTO messages (thread_id, segment, message_id, position, valid_from, text, body) "
        "SELECT thread_id, segment, message_id, position, ?, text, body FROM messages "
        "WHERE thread_id = ? AND segment = ? AND valid_from <= ? AND valid_to > ? "
        "ORDER BY position",
        (new_seq, thread_id, segment, seq, seq),
    )
