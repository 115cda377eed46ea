"""Thread records: create, list, rename, archive, delete, fork, search (on the store thread)."""

from __future__ import annotations

import re
import sqlite3
import time
import uuid
from typing import Any

import sqlite_utils

from app.core.checkpoint.base import Checkpoint, new_checkpoint_id
from app.core.errors import UserError
from app.core.state.agent_state import AgentState
from app.store import _checkpoints, _media
from app.store._branch_search import branch_hits
from app.store._damage import role_in
from app.store._db import flush_index, write_tx
from app.store._schema import BUILTIN_AGENT_ID
from app.store._snippet import SCAN_CHARS, make_snippet, matches_all
from app.store._valid import check_text
from app.store.models import SearchHit, Thread

__all__ = ["create", "delete", "fork", "get", "list_threads", "search", "update"]

_THREAD_COLUMNS = (
    "t.id, t.title, t.created_at, t.updated_at, t.model, t.system_prompt, t.archived, "
    "t.message_count, (SELECT count(*) FROM pending_interrupts p WHERE p.thread_id = t.id), "
    "t.head_id, t.agent_id, t.origin"
)


def _thread(row: tuple[Any, ...]) -> Thread:
    return Thread(
        id=row[0],
        title=row[1],
        created_at=row[2],
        updated_at=row[3],
        model=row[4],
        system_prompt=row[5],
        archived=bool(row[6]),
        message_count=row[7],
        pending_interrupts=row[8],
        head_checkpoint_id=row[9],
        agent_id=row[10],
        origin=row[11],
    )


def get_in(conn: sqlite3.Connection, thread_id: str) -> Thread | None:
    """:func:`get` inside the caller's transaction."""
    row = conn.execute(
        f"SELECT {_THREAD_COLUMNS} FROM threads t WHERE t.id = ?", (thread_id,)
    ).fetchone()
    return _thread(row) if row else None


def get(db: sqlite_utils.Database, thread_id: str) -> Thread | None:
    """Return the thread, or ``None``."""
    return get_in(db.conn, thread_id)


def create_in(
    conn: sqlite3.Connection,
    thread_id: str | None,
    title: str,
    model: str | None,
    system_prompt: str | None,
    now: float | None = None,
    agent_id: str = BUILTIN_AGENT_ID,
    origin: str = "",
) -> Thread:
    """:func:`create` inside the caller's transaction."""
    for value, what in (
        (tid := thread_id or uuid.uuid4().hex, "the thread id"),
        (title, "the thread's title"),
        (model, "the thread's model"),
        (system_prompt, "the thread's system prompt"),
        (origin, "the thread's origin"),
    ):
        check_text(value, what)
    at = time.time() if now is None else now
    if conn.execute("SELECT 1 FROM agents WHERE id = ?", (agent_id,)).fetchone() is None:
        raise UserError(f"there is no agent {agent_id!r} to start the thread with")
    try:
        conn.execute(
            "INSERT INTO threads (id, title, created_at, updated_at, model, system_prompt, "
            "agent_id, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (tid, title, at, at, model, system_prompt, agent_id, origin),
        )
    except sqlite3.IntegrityError:
        raise UserError(f"a thread with id {tid!r} already exists") from None
    found = get_in(conn, tid)
    assert found is not None
    return found


def create(
    db: sqlite_utils.Database,
    thread_id: str | None,
    title: str,
    model: str | None,
    system_prompt: str | None,
    agent_id: str = BUILTIN_AGENT_ID,
    origin: str = "",
) -> Thread:
    """Create an empty thread (a new id unless ``thread_id`` is given) run by ``agent_id``,
    started from ``origin`` (``api``; empty: the window or the terminal)."""
    with write_tx(db) as conn:
        return create_in(
            conn, thread_id, title, model, system_prompt, agent_id=agent_id, origin=origin
        )


_UNSET: Any = object()


def update(
    db: sqlite_utils.Database,
    thread_id: str,
    title: Any = _UNSET,
    model: Any = _UNSET,
    system_prompt: Any = _UNSET,
    archived: Any = _UNSET,
) -> Thread:
    """Change the given fields of a thread (others stay); ``updated_at`` moves only when the
    title, model or prompt change, so archiving does not reorder the list."""
    sets: dict[str, Any] = {}
    for value, what in ((title, "the title"), (model, "the model"), (system_prompt, "the prompt")):
        if value is not _UNSET:
            check_text(value, what)
    if title is not _UNSET:
        sets["title"] = str(title).strip()
    if model is not _UNSET:
        sets["model"] = model
    if system_prompt is not _UNSET:
        sets["system_prompt"] = system_prompt
    if archived is not _UNSET:
        sets["archived"] = int(bool(archived))
    with write_tx(db) as conn:
        if sets:
            assignments = ", ".join(f"{name} = ?" for name in sets)
            if set(sets) - {"archived"}:
                assignments += ", updated_at = max(updated_at, ?)"
                sets["updated_at"] = time.time()
            cur = conn.execute(
                f"UPDATE threads SET {assignments} WHERE id = ?", (*sets.values(), thread_id)
            )
            if cur.rowcount == 0:
                raise UserError(f"there is no thread {thread_id!r}")
        found = get_in(conn, thread_id)
    if found is None:
        raise UserError(f"there is no thread {thread_id!r}")
    return found


def list_threads(
    db: sqlite_utils.Database, limit: int, offset: int, archived: bool | None
) -> list[Thread]:
    """Return threads, most recently updated first; ``archived=None`` lists all."""
    where = "" if archived is None else "WHERE t.archived = ?"
    params: list[Any] = [] if archived is None else [int(archived)]
    rows = db.conn.execute(
        f"SELECT {_THREAD_COLUMNS} FROM threads t {where} "
        "ORDER BY t.updated_at DESC, t.id LIMIT ? OFFSET ?",
        (*params, limit, offset),
    )
    return [_thread(r) for r in rows]


def delete(db: sqlite_utils.Database, thread_id: str) -> None:
    """Delete the thread with everything it holds; its media go when no other thread uses
    them; its "always allow" rules go; the approval audit log stays."""
    with write_tx(db) as conn:
        used = _media.thread_media(conn, thread_id)
        _checkpoints.delete_thread_rows(conn, thread_id)
        conn.execute("DELETE FROM always_allow WHERE thread_id = ?", (thread_id,))
        _media.collect_unused(conn, used)


def fork(
    db: sqlite_utils.Database,
    thread_id: str,
    state_cls: type[AgentState],
    checkpoint_id: str | None,
    at_message: str | int | None,
    title: str | None,
) -> Thread:
    """Start a new thread whose first checkpoint is a checkpoint of ``thread_id`` (the latest
    by default), cut after message ``at_message`` when given."""
    source = _checkpoints.get(db, thread_id, state_cls, checkpoint_id)
    original = get(db, thread_id)
    if source is None or original is None:
        what = f"checkpoint {checkpoint_id!r} of " if checkpoint_id else ""
        raise UserError(f"cannot fork: there is no {what}thread {thread_id!r}")
    state = source.state
    if at_message is not None:
        ids = [m.message_id for m in state.context]
        if at_message not in ids:
            raise UserError(f"cannot fork at message {at_message!r}: it is not in the thread")
        context = state.context[: ids.index(at_message) + 1]
        state = state.model_copy(
            update={"context": context, "execution_meta": type(state.execution_meta)()}
        )
    new_id = uuid.uuid4().hex
    meta = state.execution_meta
    if meta.thread_id is not None:
        state = state.model_copy(
            update={"execution_meta": meta.model_copy(update={"thread_id": new_id})}
        )
    with write_tx(db) as conn:
        create_in(
            conn,
            new_id,
            title or f"{original.title or 'Thread'} (branch)",
            original.model,
            original.system_prompt,
            agent_id=original.agent_id,
        )
        checkpoint = Checkpoint(
            thread_id=new_id,
            checkpoint_id=new_checkpoint_id(),
            parent_id=None,
            step=source.step,
            state=state,
            source="fork",
        )
        _checkpoints.put_in(conn, checkpoint, None)
        conn.execute(
            "INSERT OR IGNORE INTO thread_media (thread_id, sha256) "
            "SELECT ?, sha256 FROM thread_media WHERE thread_id = ?",
            (new_id, thread_id),
        )
        found = get_in(conn, new_id)
    assert found is not None
    return found


_TOKEN = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str) -> str | None:
    """Turn what a user typed into a safe FTS5 query: every word must appear, the last one
    may be a prefix (so results show up while typing). ``None`` when there is no word."""
    words = _TOKEN.findall(text)
    if not words:
        return None
    quoted = [f'"{w}"' for w in words]
    quoted[-1] += "*"
    return " ".join(quoted)


def search(
    db: sqlite_utils.Database,
    text: str,
    limit: int,
    thread_id: str | None,
    include_archived: bool,
    marks: tuple[str, str],
) -> list[SearchHit]:
    """Full-text search over the current messages, best matches first, then over the versions
    of messages the threads do not show now (each hit naming its branch). The snippet comes
    from the first :data:`SCAN_CHARS` characters of each hit (FTS5's own ``snippet()`` costs
    time growing with the square of the matches in one message). When the index cannot be
    brought up to date (full disk, read-only file) the messages still queued for it are
    searched directly, after the indexed ones."""
    query = fts_query(text)
    if query is None:
        return []
    fresh = flush_index(db)
    where, params = _scope(thread_id, include_archived)
    rows = db.conn.execute(
        f"SELECT {_HIT_COLUMNS}, f.rank FROM messages_fts f JOIN messages m ON m.id = f.rowid "
        "JOIN threads t ON t.id = m.thread_id WHERE messages_fts MATCH ? "
        f"AND f.rowid NOT IN (SELECT row_id FROM fts_queue WHERE op = 0) {where} "
        "ORDER BY f.rank LIMIT ?",
        (SCAN_CHARS, query, *params, limit),
    ).fetchall()
    words = _TOKEN.findall(text)
    if not fresh and len(rows) < limit:
        rows += _unindexed_hits(db.conn, words, where, params, limit - len(rows))
    hits: list[SearchHit] = []
    for tid, title, mid, head, rowid, excerpt, length, rank in rows:
        role = (
            role_in(head)
            or db.conn.execute(
                "SELECT body ->> '$.role' FROM messages WHERE id = ?", (rowid,)
            ).fetchone()[0]
        )
        snippet = make_snippet(excerpt, length, words, marks)
        hits.append(SearchHit(tid, title, mid, role, snippet, rank))
    # then the versions the threads do not show now (an earlier answer, an edit's original)
    seen = {(hit.thread_id, hit.message_id) for hit in hits}
    hits += branch_hits(db, words, limit - len(hits), thread_id, include_archived, marks, seen)
    return hits


_HIT_COLUMNS = (
    "m.thread_id, t.title, m.message_id, substr(m.body, 1, 300), m.id, "
    "substr(m.text, 1, ?), length(m.text)"
)


def _scope(thread_id: str | None, include_archived: bool) -> tuple[str, list[Any]]:
    where, params = "", []
    if thread_id is not None:
        where += " AND m.thread_id = ?"
        params.append(thread_id)
    if not include_archived:
        where += " AND t.archived = 0"
    return where, params


def _unindexed_hits(
    conn: sqlite3.Connection, words: list[str], where: str, params: list[Any], limit: int
) -> list[tuple[Any, ...]]:
    """Current messages still queued for the index that hold every word (ranked last)."""
    found = []
    rows = conn.execute(
        f"SELECT {_HIT_COLUMNS}, 0.0 FROM messages m JOIN threads t ON t.id = m.thread_id "
        "AND m.segment = t.head_segment WHERE m.valid_to IS NULL AND m.text != '' AND m.id IN "
        "(SELECT row_id FROM fts_queue WHERE op = 1) AND m.id NOT IN "
        f"(SELECT row_id FROM fts_queue WHERE op = 0) {where} ORDER BY m.id DESC",
        (SCAN_CHARS, *params),
    )
    for row in rows:
        if matches_all(row[5], words):
            found.append(row)
            if len(found) == limit:
                break
    return found
