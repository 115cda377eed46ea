"""The window: launch time, opening a 10,000-message thread, memory, and how long the event
loop can stall while replies stream (each measured in a fresh process)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, Message
from app.store import Store
from tests.bench.table import Row

ROOT = Path(__file__).resolve().parents[2]


def _child(*args: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-m", "tests.bench._window_child", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


async def _long_thread(path: Path, n: int) -> str:
    async with Store.open(path) as store:
        thread = await store.create_thread("Long thread")
        messages = []
        for i in range(n):
            role = "user" if i % 2 == 0 else "assistant"
            text = f"Message {i}: " + "some **markdown** text with `code` " * 3
            messages.append(Message.text_message(text, role=role))
        state = AgentState(context=messages)
        await store.checkpointer.aput(
            Checkpoint(thread.id, new_checkpoint_id(), None, 0, state, source="input"), None
        )
        return thread.id


def _best(times: int, *args: str) -> dict[str, float]:
    runs = [_child(*args) for _ in range(times)]
    return {k: min(r[k] for r in runs) for k in runs[0]}


def run() -> list[Row]:
    """Measure the window."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        base = _best(3, "baseline")
        launch = _best(3, "launch", str(data))
        rows.append(
            Row(
                "window",
                "launch to window shown",
                launch["shown_s"] * 1000,
                "ms",
                base["shown_s"] * 1000,
                "bare Qt window",
                "< 1500 ms",
                launch["shown_s"] < 1.5,
            )
        )
        thread_id = asyncio.run(_long_thread(data / "parley.db", 10_000))
        opened = _best(3, "open", str(data), thread_id)
        rows.append(
            Row(
                "window",
                "open 10,000-message thread to first paint",
                opened["open_s"] * 1000,
                "ms",
                opened["full_load_s"] * 1000,
                "loading the whole thread",
                "< 500 ms",
                opened["open_s"] < 0.5,
            )
        )
        rows.append(
            Row(
                "window",
                "RSS with it open, no model",
                opened["rss_mb"],
                "MB",
                None,
                "",
                "< 300 MB",
                opened["rss_mb"] < 300,
            )
        )
        stall = _child("stall", str(Path(tmp) / "stall"))
        rows.append(
            Row(
                "window",
                "longest loop stall, one reply at ~200 tok/s",
                stall["one_ms"],
                "ms",
                stall["idle_ms"],
                "idle window",
                "< 16 ms",
                stall["one_ms"] < 16,
            )
        )
        rows.append(
            Row(
                "window",
                "longest loop stall, two replies at once",
                stall["two_ms"],
                "ms",
                stall["idle_ms"],
                "idle window",
                "< 16 ms",
                stall["two_ms"] < 16,
            )
        )
    return rows


if __name__ == "__main__":
    from tests.bench.table import render

    t = time.perf_counter()
    print(render(run()))
    print(f"({time.perf_counter() - t:.1f} s)")
