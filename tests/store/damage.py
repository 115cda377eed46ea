"""Build a real thread database and damage one thread's messages on disk, as a failing disk
would: the next-page pointer of an overflow page points far past the end of the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.store import Store
from tests.store.helpers import append_messages


async def make_database(path: Path, threads: int = 4) -> list[str]:
    """Create ``threads`` threads, each with one long message (kept in overflow pages) whose
    text holds ``word-N`` and a short reply; return their ids in creation order."""
    ids = []
    async with Store.open(path) as store:
        for n in range(threads):
            thread = await store.create_thread(f"Thread {n}")
            long_text = f"word-{n} " + f"filler{n} " * 1500
            await append_messages(store.checkpointer, thread.id, [long_text, f"reply {n}"])
            ids.append(thread.id)
    return ids


def damage_first_thread(path: Path) -> None:
    """Break the overflow chain of the first thread's long message (the file stays SQLite)."""
    with sqlite3.connect(path) as conn:
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        first = conn.execute(
            "SELECT min(pageno) FROM dbstat WHERE name = 'messages' AND pagetype = 'overflow'"
        ).fetchone()[0]
    conn.close()
    with path.open("r+b") as fh:
        fh.seek((first - 1) * page_size)
        fh.write((0x7FFFFF).to_bytes(4, "big"))
