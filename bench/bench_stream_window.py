"""The window while long Markdown replies stream as fast as the model gives them: the longest
event-loop stall against the reply's length (1k, 10k, 50k characters), against the thread's
length (10, 1,000 and 10,000 messages), with two replies at once, and for the first reply after
start. Each figure is the median of at least five replies, with its spread, beside an idle
window's stall in the same processes (each measured in fresh processes, see _stream_child)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_window import RUNS, _long_thread, median_and_spread, run_child
from bench.table import Row

TARGET_MS = 8.0


def _child(
    data: Path, chars: int, replies: int, at_once: int = 1, thread: str = ""
) -> dict[str, Any]:
    args = [str(data), str(chars), str(replies), str(at_once), *([thread] if thread else [])]
    return run_child("bench._stream_child", *args, timeout=900)


def _row(name: str, stalls: list[float], idle: list[float]) -> Row:
    median, spread = median_and_spread(stalls)
    return Row(
        "window",
        f"{name} ({spread} ms)",
        median,
        "ms",
        statistics.median(idle),
        "idle window",
        f"< {TARGET_MS:g} ms",
        median < TARGET_MS,
    )


def _warm(data: Path, chars: int, at_once: int = 1, thread: str = "") -> dict[str, Any]:
    """One process: a first reply (a warm-up) and then ``RUNS`` measured ones."""
    return _child(data, chars, RUNS + 1, at_once, thread)


def run() -> list[Row]:
    """Measure the stall curves."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for chars in (1_000, 10_000, 50_000):
            got = _warm(base / f"len{chars}", chars)
            rows.append(
                _row(
                    f"longest stall, a {chars // 1000}k-character Markdown reply streaming",
                    got["stalls_ms"][1:],
                    [got["idle_ms"]],
                )
            )
        got = _warm(base / "two", 10_000, at_once=2)
        rows.append(
            _row(
                "longest stall, two 10k-character replies streaming at once",
                got["stalls_ms"][1:],
                [got["idle_ms"]],
            )
        )
        for length in (1_000, 10_000):
            data = base / f"thread{length}"
            thread = asyncio.run(_long_thread(data / "parley.db", length))
            got = _warm(data, 10_000, thread=thread)
            rows.append(
                _row(
                    f"longest stall, a 10k-character reply into a {length:,}-message thread",
                    got["stalls_ms"][1:],
                    [got["idle_ms"]],
                )
            )
        firsts = [_child(base / f"first{i}", 10_000, 1) for i in range(RUNS)]
        rows.append(
            _row(
                "longest stall, the first 10k-character reply after start",
                [f["stalls_ms"][0] for f in firsts],
                [f["idle_ms"] for f in firsts],
            )
        )
    return rows


if __name__ == "__main__":
    from bench.table import render

    t = time.perf_counter()
    print(render(run()))
    print(f"({time.perf_counter() - t:.1f} s)")
