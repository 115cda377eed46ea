"""The network ledger: every connection Parley opened or refused (run on the store thread).

Only the address, what it was for and the outcome are kept, never contents or keys (nor a
password written into an address: it is taken out before a row is written); rows
older than :data:`KEEP_SECONDS` are dropped as new ones arrive.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sqlite_utils

from app.core.netgate import Connection
from app.core.userinfo import without_userinfo
from app.store._db import write_tx

__all__ = ["KEEP_SECONDS", "list_connections", "record_connections"]

KEEP_SECONDS = 30 * 24 * 3600.0
"""How long the ledger keeps a connection: 30 days."""


def record_connections(
    db: sqlite_utils.Database, connections: Sequence[Connection], now: float | None = None
) -> None:
    """Append ``connections`` (one already there by its ``ref`` gets its byte counts) and
    drop the rows older than :data:`KEEP_SECONDS`."""
    cutoff = (time.time() if now is None else now) - KEEP_SECONDS
    with write_tx(db) as conn:
        conn.executemany(
            "INSERT INTO network_ledger "
            "(time, host, port, purpose, local, outcome, kind, ref, sent, received) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(ref) DO UPDATE SET sent = excluded.sent, received = excluded.received, "
            "outcome = excluded.outcome",
            [
                (
                    c.time, without_userinfo(c.host), c.port, without_userinfo(c.purpose),
                    int(c.local), c.outcome, c.kind,
                    c.ref or None, c.sent, c.received,
                )
                for c in connections
            ],
        )  # fmt: skip
        conn.execute("DELETE FROM network_ledger WHERE time < ?", (cutoff,))


def list_connections(
    db: sqlite_utils.Database, limit: int = 200, since: float | None = None
) -> list[Connection]:
    """The newest ``limit`` connections (since ``since`` when given), newest first."""
    rows = db.conn.execute(
        "SELECT time, host, port, purpose, local, outcome, kind, ref, sent, received "
        "FROM network_ledger WHERE time >= ? ORDER BY time DESC, id DESC LIMIT ?",
        (since if since is not None else 0.0, limit),
    ).fetchall()
    return [
        Connection(
            float(t), str(h), None if p is None else int(p), str(u), bool(lo), o, k,
            ref or "", sent, received,
        )
        for t, h, p, u, lo, o, k, ref, sent, received in rows
    ]  # fmt: skip
