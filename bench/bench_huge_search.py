"""Search in one 20 MB message full of matches (FTS5's own snippet() took 17.6 s for 1 MB of
such text and never finished at 20 MB): how long it takes depends on the machine, so it is
measured here and the test only checks the snippet."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, Message
from app.store import Store
from bench.table import Row

TARGET_S = 5.0


async def _search_times(path: Path) -> list[float]:
    huge = "alpha beta gamma delta " * (20 * 2**20 // 23)
    state = AgentState(context=[Message.text_message(t) for t in ("gamma rays", huge, "zeta")])
    async with Store.open(path) as store:
        await store.checkpointer.aput(Checkpoint("t", new_checkpoint_id(), None, 0, state), None)
        await store.search("index it first")
        times = []
        for _ in range(3):
            start = time.perf_counter()
            await store.search("gamma")
            times.append(time.perf_counter() - start)
    return times


def run() -> list[Row]:
    """Measure and return the rows."""
    with tempfile.TemporaryDirectory() as tmp:
        took = statistics.median(asyncio.run(_search_times(Path(tmp) / "parley.db")))
    return [
        Row("store", "search in one 20 MB message of matches (median of 3)", took, "s",
            target=f"< {TARGET_S:.0f} s", ok=took < TARGET_S),
    ]  # fmt: skip
