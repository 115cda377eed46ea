"""The schedule runner: what it costs while nothing is due (CPU a runner uses in an hour with
100 schedules, measured over a stretch of real time and scaled to the hour, less what the
same process uses without a runner), and how soon a
due schedule reaches its model (from the due time to the model's first call, on the real
clock), as ``parley scheduler`` runs them."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.state.message import Message
from app.services.schedules.service import local_zone
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from bench.table import Row

GROUP = "schedules"
SCHEDULES = 100
IDLE_SECONDS = 20.0
DUE_RUNS = 5


class _Timed:
    """A scripted model that notes when it is first asked, each turn."""

    def __init__(self) -> None:
        self._model = ScriptedChatModel([{"text": "Done."}] * 100)
        self.asked: list[float] = []
        self.called = asyncio.Event()

    @property
    def info(self) -> ModelInfo:
        return self._model.info

    async def agenerate(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> Message:
        self.asked.append(time.time())
        self.called.set()
        return await self._model.agenerate(messages, tools=tools, config=config)

    async def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        self.asked.append(time.time())
        self.called.set()
        async for chunk in self._model.astream(messages, tools=tools, config=config):
            yield chunk


async def _open(folder: Path, model: _Timed) -> Workspace:
    ws = await Workspace.open(
        folder, resolve_model=lambda spec: model, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:bench"))
    return ws


async def _idle(folder: Path) -> tuple[float, float]:
    """CPU seconds an hour of the process while the runner serves 100 schedules none of
    which is due, and of the same process while no runner serves (what the workspace's own
    threads cost; the runner's cost is the difference)."""
    ws = await _open(folder, _Timed())
    try:
        now = datetime.now(local_zone())
        for n in range(SCHEDULES):
            at = (now + timedelta(hours=2, minutes=n)).strftime("%H:%M")
            await ws.schedules.add("Parley", f"Report {n}", every=f"day {at}", now=now)
        runner = ws.schedule_runner(lambda: datetime.now(local_zone()))
        assert await runner.start() is None
        await asyncio.sleep(1)
        without = await _cpu_an_hour()
        stop = asyncio.Event()
        serving = asyncio.create_task(runner.serve(stop))
        await asyncio.sleep(1)  # its first look, the schedules read once
        serving_cost = await _cpu_an_hour()
        stop.set()
        await serving
        runner.stop()
        return serving_cost, without
    finally:
        await ws.aclose()


async def _cpu_an_hour() -> float:
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.sleep(IDLE_SECONDS)
    return (time.process_time() - cpu) * 3600 / (time.perf_counter() - wall)


async def _due_to_call(folder: Path) -> list[float]:
    """Seconds from each due time to the model's first call, one schedule due at a time."""
    model = _Timed()
    ws = await _open(folder, model)
    try:
        runner = ws.schedule_runner(lambda: datetime.now(local_zone()))
        assert await runner.start() is None
        delays = []
        for n in range(DUE_RUNS):
            # made two hours ago less 1.5 s, every 2 h: due in 1.5 s, known to the runner
            # when it starts (as a schedule made the day before is)
            made = datetime.now(local_zone()) - timedelta(hours=2) + timedelta(seconds=1.5)
            record = await ws.schedules.add("Parley", f"Due {n}", every="2h", now=made)
            assert record.next_due is not None
            asked = len(model.asked)
            model.called.clear()
            stop = asyncio.Event()
            serving = asyncio.create_task(runner.serve(stop))
            try:
                await asyncio.wait_for(model.called.wait(), timeout=30)
            except TimeoutError:
                raise RuntimeError("a due schedule did not reach its model in 30 s") from None
            delays.append(model.asked[asked] - record.next_due)
            stop.set()
            await serving
            await runner.wait()
            await ws.schedules.remove(record.id)
        runner.stop()
        return delays
    finally:
        await ws.aclose()


def run() -> list[Row]:
    """The runner's idle cost and its time from due to the model."""
    with tempfile.TemporaryDirectory() as tmp:
        serving, without = asyncio.run(_idle(Path(tmp) / "idle"))
        idle = max(0.0, serving - without)
        delays = asyncio.run(_due_to_call(Path(tmp) / "due"))
    median: Any = statistics.median(delays)
    return [
        Row(GROUP, f"runner idle, {SCHEDULES} schedules: CPU per hour", idle, "s",
            target="~0 (< 0.2 s)", ok=idle < 0.2),
        Row(GROUP, "the same process without a runner: CPU per hour", without, "s"),
        Row(GROUP, "due time to the model's first call (median)", median * 1000, "ms",
            target="< 1000 ms", ok=median < 1.0),
    ]  # fmt: skip
