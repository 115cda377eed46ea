"""Versions of a message (branches) on a long thread: opening a thread of 10,000 messages
whose last answer has many versions, beside the same thread without versions; answering again
(which keeps the answer shown as a version); and switching to another version, the step a
click on ``‹ 1/N ›`` waits for before the view can paint."""

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
from bench.table import Row

GROUP = "branches"
MESSAGES = 10_000
VERSIONS = 20
SWITCHES = 5


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


def run() -> list[Row]:
    """Opening, answering again and switching on a long thread with versions."""
    with tempfile.TemporaryDirectory() as tmp:
        got = asyncio.run(_measure(Path(tmp) / "data"))
    return [
        Row(GROUP, f"open a {MESSAGES:,}-msg thread with {VERSIONS} versions of its last answer",
            got["versions"] * 1000, "ms", got["plain"] * 1000, "the same thread, no versions",
            "< 100 ms", got["versions"] < 0.1),
        Row(GROUP, f"answer again at the end of a {MESSAGES:,}-msg thread (median)",
            got["answer"] * 1000, "ms"),
        Row(GROUP, f"switch a version of a {MESSAGES:,}-msg thread (median of {SWITCHES})",
            got["switch"] * 1000, "ms", target="< 16 ms", ok=got["switch"] < 0.016),
    ]  # fmt: skip
