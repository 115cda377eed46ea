"""The bundled model's scores, with the machine they were measured on.

llama.cpp is compiled for the CPU it is built on, so greedy decoding, and every score below,
differs from machine to machine: these were tests once and are figures now. Each row's target
is the threshold the test used to assert; the group names the CPU, its cores and the
llama-cpp-python version. Rows: ``parley chat`` in fresh data directories answering "Paris",
``parley chat --tools`` calling the clock when asked for the time, and the default chat and
agent on the public evaluation set.
"""

from __future__ import annotations

import asyncio
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import llama_cpp

from app.providers.local import LlamaCppChatModel
from bench.table import Row
from tests.eval.runner import parley_agent, parley_chat
from tests.eval.scoring import load_set

ROOT = Path(__file__).resolve().parents[1]
PARIS_RUNS = 3


def machine() -> str:
    """The CPU's model name, its cores and the llama-cpp-python version, in one line."""
    name = platform.processor() or platform.machine() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.partition(":")[2].strip() or name
                    break
    except OSError:
        pass
    cores = os.cpu_count() or 1
    return f"{name}, {cores} cores, llama-cpp-python {llama_cpp.__version__}"


def _parley_chat(*args: str) -> str:
    """The output of ``parley chat ARGS`` in a fresh data directory."""
    with tempfile.TemporaryDirectory() as data_dir:
        done = subprocess.run(
            [sys.executable, "-m", "app", "chat", *args],
            cwd=ROOT, capture_output=True, text=True, timeout=800, check=False,
            env={**os.environ, "PARLEY_DATA_DIR": data_dir},
        )  # fmt: skip
    return done.stdout if done.returncode == 0 else ""


def _rate(hits: int, runs: int) -> float:
    return 100 * hits / runs


def run() -> list[Row]:
    """Measure and return the rows."""
    group = f"bundled model scores on {machine()}"
    paris = sum(
        "Paris" in _parley_chat("What is the capital of France?") for _ in range(PARIS_RUNS)
    )
    clock = "[current_time: started]" in _parley_chat("--tools", "What time is it now?")

    async def public_set() -> tuple[float, float, float]:
        model = LlamaCppChatModel(n_ctx=2048)
        try:
            evalset = load_set()
            chat = await parley_chat(model, evalset)
            agent = await parley_agent(model, evalset)
        finally:
            model.close()
        return chat.answer_rate, agent.valid_rate, agent.decision_rate

    answers, valid, decisions = asyncio.run(public_set())
    return [
        Row(group, f"parley chat answers Paris, of {PARIS_RUNS} fresh runs",
            _rate(paris, PARIS_RUNS), "%", target="100%", ok=paris == PARIS_RUNS,
            higher_is_better=True),
        Row(group, "parley chat --tools calls the clock when asked the time", _rate(clock, 1),
            "%", target="100%", ok=clock, higher_is_better=True),
        Row(group, "default chat: public set questions answered right", answers, "%",
            target=">= 60%", ok=answers >= 60, higher_is_better=True),
        Row(group, "default agent: calls made that are valid", valid, "%", target=">= 90%",
            ok=valid >= 90, higher_is_better=True),
        Row(group, "default agent: right decisions (call or not)", decisions, "%",
            target=">= 65%", ok=decisions >= 65, higher_is_better=True),
    ]  # fmt: skip
