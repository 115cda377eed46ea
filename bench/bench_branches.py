"""Versions of a message (branches) on a long thread: opening a thread of 10,000 messages
whose last answer has many versions, beside the same thread without versions; answering again
(which keeps the answer shown as a version); and switching to another version, the step a
click on ``‹ 1/N ›`` waits for before the view can paint; and the window's longest stall while
three models' answers stream side by side in Compare… (in fresh processes, see
_compare_child)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.models import ScriptedChatModel
from app.core.state import AgentState
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.store import Store
from app.store.paths import DATABASE_NAME
from bench.bench_store import _messages, _texts
from bench.bench_window import median_and_spread, run_child
from bench.table import Row

GROUP = "branches"
MESSAGES = 10_000
VERSIONS = 1000
SWITCHES = 5
COMPARED_CHARS = 10_000
"""How long each compared model's answer is."""
COMPARE_PROCESSES, COMPARE_ROUNDS = 2, 3
"""Fresh processes, and comparisons measured in each (after one to warm up)."""
STALL_TARGET_MS = 8.0


async def _thread(store: Store, thread_id: str) -> None:
    """A saved thread of :data:`MESSAGES` messages, questions and answers in turn."""
    await store.create_thread("Long", thread_id=thread_id)
    state = AgentState(context=_messages(_texts(MESSAGES)))
    await store.checkpointer.aput(Checkpoint(thread_id, new_checkpoint_id(), None, 0, state), None)


async def _opened(ws: Workspace, thread_id: str) -> float:
    """Seconds to read the page a thread opens with (best of 3)."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        await ws.threads.read_messages(thread_id)
        await ws.threads.branches(thread_id)
        times.append(time.perf_counter() - start)
    return min(times)


async def _measure(folder: Path) -> dict[str, float]:
    folder.mkdir(parents=True)
    async with Store.open(folder / DATABASE_NAME) as store:
        await _thread(store, "plain")
        await _thread(store, "versions")
    model = ScriptedChatModel([{"text": f"Answer {n}."} for n in range(VERSIONS + 5)])
    ws = await Workspace.open(folder, resolve_model=lambda _s: model, secret_resolver=lambda _r: "")
    try:
        ws.settings.use(AppSettings(default_model="scripted:bench"))
        answering = []
        for _ in range(VERSIONS):
            start = time.perf_counter()
            await (await ws.runs.regenerate("versions"))
            answering.append(time.perf_counter() - start)
        shown = (await ws.threads.read_messages("versions")).messages[-1]
        switching = []
        for n in range(SWITCHES):
            start = time.perf_counter()
            assert await ws.threads.switch_branch("versions", str(shown.message_id), n + 1)
            switching.append(time.perf_counter() - start)
            shown = (await ws.threads.read_messages("versions")).messages[-1]
        return {
            "plain": await _opened(ws, "plain"),
            "versions": await _opened(ws, "versions"),
            "answer": statistics.median(answering),
            "switch": statistics.median(switching),
        }
    finally:
        await ws.aclose()


def _compare_stalls(folder: Path) -> tuple[list[float], list[float]]:
    """The longest stall of each comparison measured, and each process's idle stall (ms)."""
    stalls: list[float] = []
    idle: list[float] = []
    for n in range(COMPARE_PROCESSES):
        got = run_child(
            "bench._compare_child", str(folder / f"compare{n}"), str(COMPARED_CHARS),
            str(COMPARE_ROUNDS + 1), timeout=900,
        )  # fmt: skip
        stalls += [float(s) for s in got["stalls_ms"][1:]]
        idle.append(float(got["idle_ms"]))
    return stalls, idle


def run() -> list[Row]:
    """Opening, answering again and switching on a long thread with versions, and the
    window while three models are compared."""
    with tempfile.TemporaryDirectory() as tmp:
        got = asyncio.run(_measure(Path(tmp) / "data"))
        stalls, idle = _compare_stalls(Path(tmp))
    stall, spread = median_and_spread(stalls)
    return [
        Row(GROUP, f"open a {MESSAGES:,}-msg thread with {VERSIONS:,} versions of its last answer",
            got["versions"] * 1000, "ms", got["plain"] * 1000, "the same thread, no versions",
            "< 100 ms", got["versions"] < 0.1),
        Row(GROUP, f"answer again at the end of a {MESSAGES:,}-msg thread (median)",
            got["answer"] * 1000, "ms"),
        Row(GROUP, f"switch a version of a {MESSAGES:,}-msg thread (median of {SWITCHES})",
            got["switch"] * 1000, "ms", target="< 16 ms", ok=got["switch"] < 0.016),
        Row(GROUP, f"longest window stall, three {COMPARED_CHARS // 1000}k-character answers "
            f"streaming side by side ({spread} ms)", stall, "ms", statistics.median(idle),
            "idle window", f"< {STALL_TARGET_MS:g} ms", stall < STALL_TARGET_MS),
    ]  # fmt: skip
