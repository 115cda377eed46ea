"""Search in the versions of messages a thread does not show now (run on the store thread).

The full-text index holds the path each thread shows; a version left (an earlier answer, an
edited question's original) is searched here, from its first message to its tip, each message
once (the outer version first, as :func:`app.store._branches.tree` numbers them). A hit names
the branch by that number, so opening it shows the message found."""

from __future__ import annotations

from typing import Any

import sqlite_utils

from app.store._branches import rows_in_order
from app.store._damage import role_in
from app.store._snippet import SCAN_CHARS, make_snippet, matches_all
from app.store.models import SearchHit

__all__ = ["branch_hits"]

_PATH = "thread_id = ? AND segment = ? AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)"


def branch_hits(
    db: sqlite_utils.Database,
    words: list[str],
    limit: int,
    thread_id: str | None,
    include_archived: bool,
    marks: tuple[str, str],
    seen: set[tuple[str, Any]],
) -> list[SearchHit]:
    """Messages holding every word in versions not shown now, at most ``limit``; a message
    in ``seen`` (thread id, message id: found on a path shown) is not found again."""
    if not words or limit <= 0:
        return []
    conn = db.conn
    where, params = "", []
    if thread_id is not None:
        where, params = " AND b.thread_id = ?", [thread_id]
    if not include_archived:
        where += " AND t.archived = 0"
    threads = conn.execute(
        "SELECT DISTINCT b.thread_id, t.title FROM branches b JOIN threads t "
        f"ON t.id = b.thread_id WHERE 1 {where} ORDER BY t.updated_at DESC",
        params,
    ).fetchall()
    hits: list[SearchHit] = []
    for tid, title in threads:
        ordered, shown_ids, _ = rows_in_order(db, tid)
        for number, alt in enumerate(ordered, 1):
            if alt.message_id in shown_ids or alt.checkpoint_id is None:
                continue
            tip = conn.execute(
                "SELECT seq, segment FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?",
                (tid, alt.checkpoint_id),
            ).fetchone()
            if tip is None:
                continue
            seq, segment = tip
            path = (tid, segment, seq, seq)
            first = conn.execute(
                f"SELECT position FROM messages WHERE {_PATH} AND message_id = ?",
                (*path, alt.message_id),
            ).fetchone()
            if first is None:
                continue
            rows = conn.execute(
                f"SELECT message_id, substr(body, 1, 300), id, text FROM messages WHERE {_PATH} "
                "AND position >= ? AND text != '' ORDER BY position",
                (*path, first[0]),
            )
            for mid, head, rowid, text in rows:
                if (tid, mid) in seen or not matches_all(text, words):
                    continue
                seen.add((tid, mid))
                role = (
                    role_in(head)
                    or conn.execute(
                        "SELECT body ->> '$.role' FROM messages WHERE id = ?", (rowid,)
                    ).fetchone()[0]
                )
                snippet = make_snippet(text[:SCAN_CHARS], len(text), words, marks)
                hits.append(SearchHit(tid, title, mid, role, snippet, 0.0, number))
                if len(hits) == limit:
                    return hits
    return hits
