"""Math in the chat: typesetting a display formula the first time and again from the cache,
and scrolling a thread of 1,000 messages with formulas beside the same thread without them
(each side in a fresh process, in the same run)."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, Message
from app.store import Store
from app.store.paths import database_path
from bench.bench_window import run_child
from bench.table import Row

MESSAGES = 1000
WITHIN = 1.2
"""How much slower a frame of the thread with math may be than one without it."""
FRAME_MS = 16.0
"""The longest the window may stall while formulas arrive typeset: one frame at 60 Hz."""


def _text(i: int, math: bool) -> str:
    """Message ``i``: with an inline and a displayed formula of its own, or the same words."""
    if i % 2 == 0:
        return f"Question {i}: how does the sum of the first {i} squares grow?"
    inline = f"$a_{{{i}}} = {i}^2$" if math else f"a_{i} = {i} squared"
    shown = (
        f"$$\n\\sum_{{k=1}}^{{{i}}} k^2 = \\frac{{{i}({i}+1)(2\\cdot{i}+1)}}{{6}}\n$$"
        if math
        else f"the sum of k squared for k up to {i} is {i}({i}+1)(2 {i}+1) over 6"
    )
    return f"Each term is {inline}, and so\n\n{shown}\n\nwhich grows like the cube of {i}."


async def _thread(data_dir: Path, math: bool) -> str:
    async with Store.open(database_path(data_dir)) as store:
        thread = await store.create_thread("Sums of squares")
        messages = [
            Message.text_message(_text(i, math), role="user" if i % 2 == 0 else "assistant")
            for i in range(MESSAGES)
        ]
        state = AgentState(context=messages)
        await store.checkpointer.aput(
            Checkpoint(thread.id, new_checkpoint_id(), None, 0, state, source="input"), None
        )
        return thread.id


def run() -> list[Row]:
    """Measure typesetting and scrolling with math."""
    typeset = run_child("bench._math_child", "typeset")
    rows = [
        Row("math", "first display formula after start (loads the typesetter)",
            typeset["cold_ms"], "ms", typeset["text_ms"], "its source laid out as text",
            "< 1000 ms", typeset["cold_ms"] < 1000),
        Row("math", "first typesetting of a display formula (in the typesetting process)",
            typeset["first_ms"], "ms",
            typeset["text_ms"], "its source laid out as text", "< 50 ms",
            typeset["first_ms"] < 50),
        Row("math", "the same formula again (from the cache)", typeset["cached_ms"], "ms",
            typeset["text_ms"], "its source laid out as text", "< 0.1 ms",
            typeset["cached_ms"] < 0.1),
    ]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        sides = {}
        for math in (True, False):
            data = Path(tmp) / ("math" if math else "plain")
            thread_id = asyncio.run(_thread(data, math))
            sides[math] = run_child("bench._math_child", "scroll", str(data), thread_id)
    ours, peer = sides[True], sides[False]
    name = f"scroll {MESSAGES:,} messages with formulas"
    for key, what in (("p50_ms", "median frame"), ("p95_ms", "95th percentile frame")):
        rows.append(
            Row("math", f"{name}: {what}", ours[key], "ms", peer[key], "the same without math",
                f"within {WITHIN - 1:.0%} of it", ours[key] <= peer[key] * WITHIN)
        )  # fmt: skip
    rows.append(
        Row("math", f"lay all {MESSAGES:,} out, typesetting {ours['typeset']:.0f} formulas",
            ours["setup_s"] * 1000, "ms", peer["setup_s"] * 1000, "the same without math",
            "", None)
    )  # fmt: skip
    rows.append(
        Row("math", "open it to first paint", ours["open_s"] * 1000, "ms",
            peer["open_s"] * 1000, "the same without math", "< 500 ms", ours["open_s"] < 0.5)
    )  # fmt: skip
    rows.append(
        Row("math", f"open it until its first page's formulas are drawn "
            f"({ours['first_page_s']:.1f} s): longest loop stall", ours["stall_ms"], "ms",
            peer["stall_ms"], "the same without math", "", None)
    )  # fmt: skip
    rows.append(
        Row("math", "the same, once it is open (its formulas typeset and laid out): longest "
            "loop stall", ours["typeset_stall_ms"], "ms", peer["typeset_stall_ms"],
            "the same without math", f"< {FRAME_MS:.0f} ms", ours["typeset_stall_ms"] < FRAME_MS)
    )  # fmt: skip
    return rows


if __name__ == "__main__":
    from bench.table import render

    t = time.perf_counter()
    print(render(run()))
    print(f"({time.perf_counter() - t:.1f} s)")
