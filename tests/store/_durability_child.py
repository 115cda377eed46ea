"""Writes checkpoints in a loop until killed; appends each committed id to a report file.

``python -m tests.store._durability_child DB REPORT``: continues the thread ``t`` from its
latest checkpoint, so it can be killed and started again on the same file.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from app.core.checkpoint import Checkpoint, StateChanges, new_checkpoint_id
from app.core.state import AgentState, Message, RemoveMessage
from app.store import Store


async def main(db: Path, report: Path) -> None:
    """Append, edit and trim messages forever, reporting every committed checkpoint."""
    fd = os.open(report, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    async with Store.open(db) as store:
        cp = store.checkpointer
        latest = await cp.aget("t", AgentState)
        state = latest.state if latest else AgentState()
        parent = latest.checkpoint_id if latest else None
        step = latest.step if latest else 0
        while True:
            step += 1
            message = Message.text_message(f"step {step} " + "lorem ipsum " * (step % 50 * 20))
            update: list[Message | RemoveMessage] = [message]
            if step % 17 == 0 and state.context:
                update.append(RemoveMessage(id=state.context[0].message_id))
            state = state.with_update(update)
            cid = new_checkpoint_id()
            changes = None
            if parent is not None and step % 23:
                removed = tuple(u.id for u in update if isinstance(u, RemoveMessage))
                changes = StateChanges(upserted=(message.message_id,), removed=removed)
            await cp.aput(Checkpoint("t", cid, parent, step, state), changes)
            os.write(fd, f"{cid} {len(state.context)}\n".encode())
            parent = cid


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
