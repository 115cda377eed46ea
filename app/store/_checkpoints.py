"""Checkpoint reads and writes (run on the store thread; see :mod:`app.store.checkpointer`)."""

from __future__ import annotations

import contextlib
import gc
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar, cast

import sqlite_utils

from app.core.checkpoint.base import (
    Checkpoint,
    CheckpointInfo,
    CheckpointSource,
    StateChanges,
)
from app.core.errors import CheckpointConflict, DecodeError, UserError
from app.core.state.agent_state import AgentState, ExecMeta
from app.core.state.interrupt import Interrupt
from app.core.state.message import Message
from app.core.state.serde import dump_message, dump_state, load_messages, load_state
from app.store import _lease, _search_index
from app.store._changes import Head, Plan, head_of, plan_changes
from app.store._damage import load_row, read_stored
from app.store._db import write_tx
from app.store._head_cache import HeadCache
from app.store._valid import check_text

__all__ = [
    "delete_thread_rows",
    "gc_paused",
    "get",
    "list_infos",
    "pending",
    "put",
    "put_in",
    "save_interrupts",
]

S = TypeVar("S", bound=AgentState)


def _title_for(state: AgentState) -> str:
    for message in state.context:
        if message.role == "user" and (text := message.text().strip()):
            line = text.splitlines()[0]
            return line[:77] + "..." if len(line) > 80 else line
    return ""


def _media_keys(messages: Iterable[Message]) -> set[str]:
    """The stored-media hashes the messages name, lower case as the media table keeps them."""
    keys: set[str] = set()
    for message in messages:
        for block in message.content:
            fields = block.__dict__  # getattr on a block without the field costs an exception
            for name in ("media", "thumbnail", "original", "preview"):
                ref = fields.get(name)
                if ref is None:
                    continue
                if ref.sha256:
                    keys.add(ref.sha256.lower())
                if ref.kind == "file_id" and ref.file_id:
                    keys.add(ref.file_id.lower())
    return keys


def _insert_versions(
    conn: sqlite3.Connection,
    thread_id: str,
    segment: int,
    seq: int,
    rows: Iterable[tuple[Message, int]],
) -> None:
    before = conn.execute("SELECT ifnull(max(id), 0) FROM messages").fetchone()[0]
    conn.executemany(
        "INSERT INTO messages (thread_id, segment, message_id, position, valid_from, text, body) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            (thread_id, segment, m.message_id, pos, seq, m.text(), dump_message(m).decode())
            for m, pos in rows
        ),
    )
    _search_index.enqueue_new(conn, before)


def _write_plan(
    conn: sqlite3.Connection,
    thread_id: str,
    head: Head,
    seq: int,
    context: Sequence[Message],
    plan: Plan,
) -> tuple[int, list[Message]]:
    if plan.close_all:
        _search_index.enqueue_segment_removed(conn, thread_id, head.segment)
        conn.execute(
            "UPDATE messages SET valid_to = ? WHERE thread_id = ? AND segment = ? "
            "AND valid_to IS NULL",
            (seq, thread_id, head.segment),
        )
    _search_index.enqueue_removed(conn, [r.rowid for r in plan.close if r.has_text])
    conn.executemany(
        "UPDATE messages SET valid_to = ? WHERE id = ?", ((seq, r.rowid) for r in plan.close)
    )
    rows = [(context[i], pos) for i, pos in plan.replace]
    rows += [(context[i], head.next_position + j) for j, i in enumerate(plan.append)]
    _insert_versions(conn, thread_id, head.segment, seq, rows)
    return head.next_position + len(plan.append), [m for m, _ in rows]


def _write_full(
    conn: sqlite3.Connection, thread_id: str, head: Head, seq: int, context: Sequence[Message]
) -> tuple[int, list[Message]]:
    if head.seq:
        _search_index.enqueue_segment_removed(conn, thread_id, head.segment)
    _insert_versions(conn, thread_id, seq, seq, ((m, i) for i, m in enumerate(context)))
    return len(context), list(context)


def put(
    db: sqlite_utils.Database,
    checkpoint: Checkpoint,
    changes: StateChanges | None,
    owner: str | None = None,
    cache: HeadCache | None = None,
) -> None:
    """Save ``checkpoint``; with ``changes`` (and the parent being the thread's latest) only
    the changed message rows are written, otherwise the whole state starts a new segment.
    ``owner`` is the saving store's token (see :mod:`app.store._lease`); once saved, the
    messages are kept in ``cache`` as the thread's latest."""
    if cache is not None:
        cache.forget(checkpoint.thread_id)  # whatever happens below, the old entry is stale
    with write_tx(db) as conn:
        put_in(conn, checkpoint, changes, owner)
    if cache is not None:
        cache.keep(checkpoint.thread_id, checkpoint.checkpoint_id, checkpoint.state.context)


def _refuse(thread_id: str, checkpoint: Checkpoint, why: str) -> CheckpointConflict:
    """The conflict error, saying what was kept and what was not."""
    if checkpoint.source == "input":
        lost = "your message was not saved"
        then = "then send your message again"
    else:
        lost = "this run's latest step was not saved (what it saved before stays in the thread)"
        then = "then repeat the last message if its reply is missing"
    return CheckpointConflict(f"thread {thread_id} {why}; {lost}. Open the thread again, {then}.")


def _check_turn(
    conn: sqlite3.Connection,
    checkpoint: Checkpoint,
    changes: StateChanges | None,
    head: Head,
    owner: str | None,
) -> None:
    """Refuse a save that would silently replace or interleave with another run's turn."""
    thread_id = checkpoint.thread_id
    run_owner, run_seen = conn.execute(
        "SELECT run_owner, run_seen FROM threads WHERE id = ?", (thread_id,)
    ).fetchone()
    if (
        owner is not None
        and run_owner is not None
        and run_owner != owner
        and time.time() - (run_seen or 0.0) < _lease.LEASE_SECONDS
        and _lease.alive(run_owner)
    ):
        raise _refuse(
            thread_id,
            checkpoint,
            "is answering a message sent from another Parley window or process right now",
        )
    if head.seq == 0 or checkpoint.parent_id == head.head_id:
        return
    if checkpoint.parent_id is None:
        # a first save, but the thread got its first turn meanwhile: never replace it
        raise _refuse(
            thread_id, checkpoint, "got its first turn from another Parley window or process"
        )
    if changes is not None:
        raise _refuse(
            thread_id,
            checkpoint,
            "was changed by another Parley window or process while this run was going",
        )


def put_in(
    conn: sqlite3.Connection,
    checkpoint: Checkpoint,
    changes: StateChanges | None,
    owner: str | None = None,
) -> None:
    """:func:`put` inside the caller's transaction."""
    state, thread_id = checkpoint.state, checkpoint.thread_id
    check_text(thread_id, "the thread id")
    check_text(checkpoint.checkpoint_id, "the checkpoint id")
    context = state.context
    head = head_of(conn, thread_id)
    if head is None:
        conn.execute(
            "INSERT INTO threads (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (thread_id, _title_for(state), checkpoint.created_at, checkpoint.created_at),
        )
        head = Head(None, 0, 0, 0, 0)
    elif head.seq == 0:  # created empty: its first checkpoint names it if it has no title
        conn.execute(
            "UPDATE threads SET title = ? WHERE id = ? AND title = ''",
            (_title_for(state), thread_id),
        )
    elif conn.execute(
        "SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?",
        (thread_id, checkpoint.checkpoint_id),
    ).fetchone():
        raise UserError(
            f"checkpoint {checkpoint.checkpoint_id!r} of thread {thread_id!r} already "
            f"exists; every step needs a new id (new_checkpoint_id())"
        )
    _check_turn(conn, checkpoint, changes, head, owner)
    seq = head.seq + 1
    plan = None
    if changes is not None and head.head_id is not None and checkpoint.parent_id == head.head_id:
        plan = plan_changes(conn, thread_id, head, context, changes)
    if plan is not None:
        segment = head.segment
        next_position, written = _write_plan(conn, thread_id, head, seq, context, plan)
    else:
        segment = seq
        next_position, written = _write_full(conn, thread_id, head, seq, context)
    conn.execute(
        "INSERT INTO checkpoints (thread_id, seq, checkpoint_id, parent_id, segment, step, "
        "source, created_at, message_count, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            thread_id,
            seq,
            checkpoint.checkpoint_id,
            checkpoint.parent_id,
            segment,
            checkpoint.step,
            checkpoint.source,
            checkpoint.created_at,
            len(context),
            dump_state(state.model_copy(update={"context": []})).decode(),
        ),
    )
    conn.execute(
        "UPDATE threads SET head_id = ?, head_seq = ?, head_segment = ?, next_position = ?, "
        "message_count = ?, updated_at = max(updated_at, ?) WHERE id = ?",
        (
            checkpoint.checkpoint_id,
            seq,
            segment,
            next_position,
            len(context),
            checkpoint.created_at,
            thread_id,
        ),
    )
    running = state.execution_meta.status == "running" and owner is not None
    conn.execute(
        "UPDATE threads SET run_owner = ?, run_seen = ? WHERE id = ?",
        (owner if running else None, time.time() if running else None, thread_id),
    )
    save_interrupts(conn, thread_id, checkpoint.checkpoint_id, head.seq > 0, state)
    conn.execute("DELETE FROM step_writes WHERE thread_id = ?", (thread_id,))  # now in the state
    _search_index.maybe_flush(conn)
    keys = _media_keys(written)
    if keys:
        conn.executemany(
            "INSERT OR IGNORE INTO thread_media (thread_id, sha256) "
            "SELECT ?, sha256 FROM media WHERE sha256 = ?",
            ((thread_id, key) for key in keys),
        )
        # named before it is stored: link it when it arrives (see _media.store)
        conn.executemany(
            "INSERT OR IGNORE INTO media_wanted (thread_id, sha256) "
            "SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM media WHERE sha256 = ?)",
            ((thread_id, key, key) for key in keys),
        )


def save_interrupts(
    conn: sqlite3.Connection,
    thread_id: str,
    checkpoint_id: str,
    had_any: bool,
    state: AgentState,
) -> None:
    """Keep the interrupts ``state`` waits on as the thread's pending ones (replacing those
    kept when ``had_any``)."""
    if had_any:
        conn.execute("DELETE FROM pending_interrupts WHERE thread_id = ?", (thread_id,))
    conn.executemany(
        "INSERT INTO pending_interrupts (thread_id, ordinal, interrupt_id, checkpoint_id, body) "
        "VALUES (?, ?, ?, ?, ?)",
        (
            (thread_id, i, it.id, checkpoint_id, dump_state(it).decode())
            for i, it in enumerate(state.execution_meta.interrupts)
        ),
    )


_CP_COLUMNS = (
    "c.seq, c.checkpoint_id, c.parent_id, c.segment, c.step, c.source, c.created_at, c.state"
)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cycle collector while a long history is parsed: the parse allocates
    hundreds of thousands of acyclic objects, and collecting during it doubles its time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


PARSE_BATCH = 250
"""How many stored messages are parsed at once when a history is read."""


def _parse_in_batches(bodies: list[Any]) -> list[Message]:
    """Parse stored message bodies a batch at a time, letting other threads run in between:
    the parser holds the interpreter lock while it works, so one parse of a 10,000-message
    history would freeze the window for its whole length."""
    messages: list[Message] = []
    for start in range(0, len(bodies), PARSE_BATCH):
        batch = bodies[start : start + PARSE_BATCH]
        if not all(isinstance(body, str) for body in batch):  # a damaged row: look closer
            raise DecodeError("messages", [])
        array = "[" + ",".join(batch) + "]"
        if "\ufffd" in array:  # bytes that were not UTF-8 read as U+FFFD: look closer
            raise DecodeError("messages", [])
        messages += load_messages(array)
        time.sleep(0)  # gives the lock up, so the window's thread can take its turn
    return messages


def get(
    db: sqlite_utils.Database,
    thread_id: str,
    state_cls: type[S],
    checkpoint_id: str | None,
    cache: HeadCache | None = None,
) -> Checkpoint | None:
    """Return the checkpoint (the latest by default) with its exact state, or ``None``.
    The latest checkpoint's messages come from ``cache`` when it holds them, and are kept
    there once parsed."""
    conn = db.conn
    if checkpoint_id is None:
        row = conn.execute(
            f"SELECT {_CP_COLUMNS}, 1 FROM checkpoints c JOIN threads t ON t.id = c.thread_id "
            "AND t.head_seq = c.seq WHERE c.thread_id = ?",
            (thread_id,),
        ).fetchone()
    else:
        row = conn.execute(
            f"SELECT {_CP_COLUMNS}, t.head_seq = c.seq FROM checkpoints c JOIN threads t "
            "ON t.id = c.thread_id WHERE c.thread_id = ? AND c.checkpoint_id = ?",
            (thread_id, checkpoint_id),
        ).fetchone()
    if row is None:
        return None
    seq, cid, parent_id, segment, step, source, created_at, state_json, is_head = row
    if is_head:
        where = "valid_to IS NULL"
        params: tuple[Any, ...] = (thread_id, segment)
    else:
        where = "valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)"
        params = (thread_id, segment, seq, seq)
    state = read_stored(load_state, state_json, state_cls, what=f"the state of thread {thread_id}")
    kept = cache.messages(thread_id, cid) if cache is not None and is_head else None
    if kept is not None:
        messages = kept
    else:
        messages, whole = _read_messages(conn, where, params)
        if cache is not None and is_head and whole:
            cache.keep(thread_id, cid, messages)
    state.__dict__["context"] = messages
    return Checkpoint(
        thread_id=thread_id,
        checkpoint_id=cid,
        parent_id=parent_id,
        step=step,
        state=state,
        source=cast(CheckpointSource, source),
        created_at=created_at,
    )


def _read_messages(
    conn: sqlite3.Connection, where: str, params: tuple[Any, ...]
) -> tuple[list[Message], bool]:
    """Parse the messages of one checkpoint, in order, and whether every row was readable
    (a damaged row is read as a damaged message)."""
    bodies = [
        body
        for (body,) in conn.execute(
            f"SELECT body FROM messages WHERE thread_id = ? AND segment = ? AND {where} "
            "ORDER BY position",
            params,
        )
    ]
    with gc_paused():
        try:
            return _parse_in_batches(bodies), True
        except DecodeError:
            return _load_rows(conn, f"{where} ORDER BY position", params), False


def _load_rows(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> list[Message]:
    """Read the messages one row at a time, a damaged row as a damaged message."""
    rows = conn.execute(
        "SELECT id, message_id, CAST(body AS BLOB) FROM messages "
        f"WHERE thread_id = ? AND segment = ? AND {where}",
        params,
    )
    return [load_row(rowid, mid, body) for rowid, mid, body in rows]


def list_infos(
    db: sqlite_utils.Database, thread_id: str, limit: int | None, before: str | None
) -> list[CheckpointInfo]:
    """Return the thread's checkpoints without their states, newest first."""
    sql = (
        "SELECT checkpoint_id, parent_id, step, created_at, source, message_count, "
        "json_extract(state, '$.execution_meta') FROM checkpoints WHERE thread_id = ?"
    )
    params: list[Any] = [thread_id]
    if before is not None:
        sql += (
            " AND seq < ifnull((SELECT seq FROM checkpoints WHERE thread_id = ? AND "
            "checkpoint_id = ?), (SELECT ifnull(max(seq), 0) + 1 FROM checkpoints "
            "WHERE thread_id = ? AND checkpoint_id < ?))"
        )
        params += [thread_id, before, thread_id, before]
    sql += " ORDER BY seq DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    infos = []
    for cid, parent_id, step, created_at, source, count, meta_json in db.conn.execute(sql, params):
        meta = (
            read_stored(load_state, meta_json, ExecMeta, what=f"a checkpoint of thread {thread_id}")
            if meta_json
            else ExecMeta()
        )
        infos.append(
            CheckpointInfo(
                thread_id=thread_id,
                checkpoint_id=cid,
                parent_id=parent_id,
                step=step,
                created_at=created_at,
                source=cast(CheckpointSource, source),
                next_nodes=tuple(t.node for t in meta.next_tasks),
                interrupts=tuple(meta.interrupts),
                message_count=count,
            )
        )
    return infos


def pending(db: sqlite_utils.Database, thread_id: str) -> list[Interrupt]:
    """Return the interrupts the thread's latest checkpoint waits on."""
    rows = db.conn.execute(
        "SELECT body FROM pending_interrupts WHERE thread_id = ? ORDER BY ordinal", (thread_id,)
    )
    what = f"a pending question of thread {thread_id}"
    return [read_stored(load_state, body, Interrupt, what=what) for (body,) in rows]


def delete_thread_rows(conn: sqlite3.Connection, thread_id: str) -> None:
    """Delete a thread with its checkpoints, messages and index entries (inside a
    transaction); media links go too, the media themselves are collected by the caller."""
    head = head_of(conn, thread_id)
    if head is None:
        return
    if head.seq:
        _search_index.unindex_now(conn, thread_id, head.segment)
    conn.execute("DELETE FROM threads WHERE id = ?", (thread_id,))
