"""Small helpers for store tests: drive a thread, peek into the file with plain sqlite3."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.core.checkpoint import (
    Checkpoint,
    Checkpointer,
    CheckpointInfo,
    StateChanges,
    new_checkpoint_id,
)
from app.core.state import AgentState, Interrupt, Message, apply_update


class PassThrough:
    """A checkpointer that hands everything to a real one; subclasses step in on saves."""

    def __init__(self, inner: Checkpointer) -> None:
        self.inner = inner

    async def aput(self, checkpoint: Checkpoint, changes: StateChanges | None) -> None:
        """Save through."""
        await self.inner.aput(checkpoint, changes)

    async def aget(self, thread_id: str, state_cls: Any, checkpoint_id: str | None = None) -> Any:
        """Read through."""
        return await self.inner.aget(thread_id, state_cls, checkpoint_id)

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[CheckpointInfo]:
        """Read through."""
        return await self.inner.alist(thread_id, limit=limit, before=before)

    async def apending_interrupts(self, thread_id: str) -> list[Interrupt]:
        """Read through."""
        return await self.inner.apending_interrupts(thread_id)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete through."""
        await self.inner.adelete_thread(thread_id)

    async def aput_write(self, thread_id: str, checkpoint_id: str, key: str, value: str) -> None:
        """Save through."""
        await self.inner.aput_write(thread_id, checkpoint_id, key, value)

    async def aget_writes(self, thread_id: str, checkpoint_id: str) -> dict[str, str]:
        """Read through."""
        return await self.inner.aget_writes(thread_id, checkpoint_id)


@contextlib.contextmanager
def peek(path: Path) -> Iterator[sqlite3.Connection]:
    """A second, read-only connection to the database file (closed afterwards)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        yield conn
    finally:
        conn.close()


def scalar(path: Path, sql: str, params: tuple[Any, ...] = ()) -> Any:
    """Run one query on a separate connection and return the first column of the first row."""
    with peek(path) as conn:
        return conn.execute(sql, params).fetchone()[0]


async def append_messages(
    cp: Checkpointer,
    thread_id: str,
    texts: list[str],
    state: AgentState | None = None,
    parent: str | None = None,
) -> tuple[AgentState, str]:
    """Append each text as one step (only-changes writes); return the state and last id."""
    current = state or AgentState()
    for i, text in enumerate(texts):
        message = Message.text_message(text, role="user" if i % 2 == 0 else "assistant")
        current = apply_update(current, message)
        cid = new_checkpoint_id()
        changes = StateChanges(upserted=(message.message_id,)) if parent else None
        await cp.aput(Checkpoint(thread_id, cid, parent, i, current), changes)
        parent = cid
    assert parent is not None
    return current, parent


def mount(*args: str) -> None:
    """Run mount(8) with ``args``."""
    subprocess.run(["mount", *args], check=True, capture_output=True)


def fill_disk(disk: Path) -> None:
    """Take every free byte of the disk: big pieces first, then the last crumbs."""
    for name, piece in (("ballast", 65536), ("ballast-2", 512)):
        with (disk / name).open("wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * piece)
            except OSError:
                pass


async def older_thread(store: Any, title: str) -> str:
    """Make a thread titled ``title`` with only the columns every schema version's threads
    have (for a database made at an earlier version by this code); its id."""
    import time
    import uuid

    from app.store._db import write_tx

    thread_id = uuid.uuid4().hex

    def insert(db: Any) -> None:
        with write_tx(db) as conn:
            conn.execute(
                "INSERT INTO threads (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (thread_id, title, time.time(), time.time()),
            )

    await store._worker.acall(insert)
    return thread_id
