"""Results a step saved before its checkpoint (run on the store thread; see
:meth:`app.store.checkpointer.SqliteCheckpointer.aput_write`).

Rows are kept only for the step running from the thread's latest checkpoint: a write naming an
older checkpoint is dropped, and saving the next checkpoint deletes the thread's rows
(:func:`app.store._checkpoints.put_in`).
"""

from __future__ import annotations

import sqlite_utils

from app.store._db import write_tx
from app.store._valid import check_text

__all__ = ["get", "put"]


def put(
    db: sqlite_utils.Database, thread_id: str, checkpoint_id: str, key: str, value: str
) -> None:
    """Save ``value`` under ``key`` for the step running from ``checkpoint_id``."""
    check_text(key, "the saved result's key")
    check_text(value, "the saved result")
    with write_tx(db) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO step_writes (thread_id, checkpoint_id, key, body) "
            "SELECT ?, ?, ?, ? WHERE EXISTS "
            "(SELECT 1 FROM threads WHERE id = ? AND head_id = ?)",
            (thread_id, checkpoint_id, key, value, thread_id, checkpoint_id),
        )


def get(db: sqlite_utils.Database, thread_id: str, checkpoint_id: str) -> dict[str, str]:
    """Return the results saved for the step running from ``checkpoint_id``."""
    rows = db.conn.execute(
        "SELECT w.key, w.body FROM step_writes w JOIN threads t ON t.id = w.thread_id "
        "WHERE w.thread_id = ? AND w.checkpoint_id = ? AND t.head_id = w.checkpoint_id",
        (thread_id, checkpoint_id),
    )
    return dict(rows.fetchall())
