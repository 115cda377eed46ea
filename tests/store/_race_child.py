"""Sends one message to a thread from its own process, optionally pausing at a chosen point.

``python -m tests.store._race_child DB THREAD TEXT [--hold-reply DIR] [--hold-save DIR]``:
``--hold-reply`` waits inside the reply node (after the message was saved) and
``--hold-save`` waits before the run's first save (after it read the thread), each until the
file ``DIR/go`` exists; ``DIR/waiting`` is created when the wait starts. Prints ``ok`` and the
reply, or the error's message with exit status 3 for a refused run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from app.core.checkpoint import Checkpoint, Checkpointer, StateChanges
from app.core.errors import CheckpointConflict
from app.core.graph import START, StateGraph
from app.core.state import AgentState, Message
from app.store import Store
from tests.store.helpers import PassThrough


async def wait_for_go(folder: Path) -> None:
    """Say we are waiting, then wait for the go file."""
    (folder / "waiting").touch()
    for _ in range(3000):  # a minute at most
        if (folder / "go").exists():
            return
        await asyncio.sleep(0.02)


class HeldCheckpointer(PassThrough):
    """A real checkpointer whose first save waits for a go file."""

    def __init__(self, inner: Checkpointer, folder: Path) -> None:
        super().__init__(inner)
        self.folder, self.held = folder, False

    async def aput(self, checkpoint: Checkpoint, changes: StateChanges | None) -> None:
        """Wait once, then save."""
        if not self.held:
            self.held = True
            await wait_for_go(self.folder)
        await self.inner.aput(checkpoint, changes)


async def main(args: argparse.Namespace) -> int:
    """Run one turn; return the exit status."""
    async with Store.open(args.db) as store:

        async def reply(state: AgentState) -> Message:
            if args.hold_reply:
                await wait_for_go(Path(args.hold_reply))
            return Message.text_message(f"reply to {state.context[-1].text()}", role="assistant")

        checkpointer: Checkpointer = store.checkpointer
        if args.hold_save:
            checkpointer = HeldCheckpointer(checkpointer, Path(args.hold_save))
        graph = (
            StateGraph(AgentState)
            .add_node("reply", reply)
            .add_edge(START, "reply")
            .compile(checkpointer=checkpointer)
        )
        try:
            done = await graph.ainvoke(
                {"messages": [Message.text_message(args.text)]}, {"thread_id": args.thread}
            )
        except CheckpointConflict as exc:
            print(exc)
            return 3
        print("ok", done.context[-1].text())
        return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("db", type=Path)
    parser.add_argument("thread")
    parser.add_argument("text")
    parser.add_argument("--hold-reply")
    parser.add_argument("--hold-save")
    sys.exit(asyncio.run(main(parser.parse_args())))
