"""The window: launch time, opening a 10,000-message thread, memory, and how long the event
loop can stall while replies stream (each measured in a fresh process)."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, Message, ToolCallBlock, ToolResultBlock
from app.store import Store
from bench.table import Row

ROOT = Path(__file__).resolve().parents[1]


def run_child(module: str, *args: str, timeout: float = 300) -> dict[str, Any]:
    """Run ``python -m module ARGS`` (a fresh process) and return the JSON it printed last."""
    out = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=timeout,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _child(*args: str) -> dict[str, float]:
    return run_child("bench._window_child", *args)


def _with_bytecode(*args: str) -> None:
    """One launch that may write the compiled form of every module it imports, as an
    installed Parley has it (pip compiles on install, the bundle ships it): where
    ``PYTHONDONTWRITEBYTECODE`` is set, every launch measured would otherwise compile some
    400 modules first (about a third of a second)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "bench._window_child", *args],
        cwd=ROOT, env=env, capture_output=True, check=True, timeout=300,
    )  # fmt: skip


async def _long_thread(path: Path, n: int, *, card: bool = False) -> str:
    """A thread of ``n`` messages (and, with ``card``, a tool call and its result after them,
    drawn as one card); its id."""
    async with Store.open(path) as store:
        thread = await store.create_thread("Long thread")
        messages = []
        for i in range(n):
            role = "user" if i % 2 == 0 else "assistant"
            text = f"Message {i}: " + "some **markdown** text with `code` " * 3
            messages.append(Message.text_message(text, role=role))
        if card:
            args = {"expression": "2+2", "terms": list(range(30))}
            output = "\n".join(f"line {i}" for i in range(40))
            messages += [
                Message(role="assistant", content=[ToolCallBlock(id="c1", name="calc", args=args)]),
                Message(
                    role="tool",
                    content=[ToolResultBlock(call_id="c1", name="calc", output=output)],
                ),
            ]
        state = AgentState(context=messages)
        await store.checkpointer.aput(
            Checkpoint(thread.id, new_checkpoint_id(), None, 0, state, source="input"), None
        )
        return thread.id


RUNS = 5
"""How many fresh processes each figure is the median of."""


def median_and_spread(values: list[float], scale: float = 1.0) -> tuple[float, str]:
    """The median of ``values`` and their spread (lowest–highest), both times ``scale``."""
    low, high = min(values) * scale, max(values) * scale
    return statistics.median(
        values
    ) * scale, f"median of {len(values)}, spread {low:.3g}–{high:.3g}"


def _runs(*args: str) -> dict[str, list[float]]:
    runs = [_child(*args) for _ in range(RUNS)]
    return {k: [float(r[k]) for r in runs] for k in runs[0]}


def _row(name: str, got: list[float], peer: list[float], peer_name: str, limit: float,
         unit: str = "ms", scale: float = 1000) -> Row:  # fmt: skip
    value, spread = median_and_spread(got, scale)
    target = f"< {limit:g} {unit}"
    return Row("window", f"{name} ({spread} {unit})", value, unit,
               statistics.median(peer) * scale if peer else None, peer_name, target,
               value < limit)  # fmt: skip


def run() -> list[Row]:
    """Measure the window."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        base = _runs("baseline")
        _with_bytecode("launch", str(data))
        launch = _runs("launch", str(data))
        rows.append(_row("launch to a usable window (composer focused, threads shown)",
                         launch["shown_s"], base["shown_s"], "bare Qt window", 500))  # fmt: skip
        thread_id = asyncio.run(_long_thread(data / "parley.db", 10_000))
        opened = _runs("open", str(data), thread_id)
        rows.append(_row("open 10,000-message thread to first paint", opened["open_s"],
                         opened["full_load_s"], "loading the whole thread", 100))  # fmt: skip
        rows.append(_row("RSS with it open, no model", opened["rss_mb"], [], "", 300, "MB", 1))
        card_thread = asyncio.run(_long_thread(data / "parley.db", 1_000, card=True))
        unfold = _runs("unfold", str(data), card_thread)
        rows.append(_row("longest loop stall, a tool card unfolding and folding (moving)",
                         unfold["moving_ms"], unfold["instant_ms"], "the same, at once", 8,
                         scale=1))  # fmt: skip
        answered = [_child("answer", str(Path(tmp) / f"answer{n}")) for n in range(RUNS)]
        rss = [r["rss_mb"] + r["children_rss_mb"] for r in answered]
        pss = [r["total_mb"] for r in answered]
        children = max(int(r["children"]) for r in answered)
        what = f"memory after one answer on the bundled model, window + {children} child processes"
        rows.append(_row(f"{what}, RSS", rss, [], "", 300, "MB", 1))
        rows.append(_row(f"{what}, PSS (shared pages split)", pss, [], "", 300, "MB", 1))
        stall = _runs("stall", str(Path(tmp) / "stall"))
        for key, name in (("one_ms", "one reply"), ("two_ms", "two replies at once")):
            rows.append(_row(f"longest loop stall, {name} at ~200 tok/s", stall[key],
                             stall["idle_ms"], "idle window", 8, scale=1))  # fmt: skip
    return rows


if __name__ == "__main__":
    from bench.table import render

    t = time.perf_counter()
    print(render(run()))
    print(f"({time.perf_counter() - t:.1f} s)")
