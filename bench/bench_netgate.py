"""The network gate's cost: one connection through the audit hook, and a streamed reply of
2,000 chunks from a local OpenAI-compatible server, each against the same in a process with
no hook (the floor), in the same run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.table import Row

ROOT = Path(__file__).resolve().parents[1]
CONNECT_TARGET_US = 100.0


def _side(mode: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-m", "bench._netgate_child", mode],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def run() -> list[Row]:
    """Measure both sides and report the gate's extra cost."""
    gate, bare = _side("gate"), _side("bare")
    extra = max(gate["connect_us"] - bare["connect_us"], 0.0)
    return [
        Row(
            "network gate", "connect + close on 127.0.0.1", gate["connect_us"], "µs",
            bare["connect_us"], "no gate", f"< {CONNECT_TARGET_US:g} µs more",
            extra < CONNECT_TARGET_US,
        ),
        Row(
            "network gate", "stream 2,000 chunks (OpenAI-compatible, local)",
            gate["stream_ms"], "ms", bare["stream_ms"], "no gate", "within 5%",
            gate["stream_ms"] <= bare["stream_ms"] * 1.05,
        ),
    ]  # fmt: skip
