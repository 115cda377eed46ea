"""Store benchmarks, side by side with LangGraph's SqliteSaver on the same messages.

(b) bytes written and time per step when one message is appended to threads of 10, 1,000 and
    10,000 messages (bytes: what the process handed to ``write()``, from ``/proc/self/io``,
    so WAL frames and checkpoints count; both stores in WAL with ``synchronous=NORMAL``);
(c) loading a 10,000-message thread; (d) full-text search over 100,000 messages (LangGraph has
    no search: its figure is loading each thread's latest checkpoint and scanning the text).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.checkpoint import Checkpoint, StateChanges, new_checkpoint_id
from app.core.state import AgentState, Message
from app.store import Store
from bench.table import Row

GROUP = "store"
PEER = "LangGraph SqliteSaver"


def _wchar() -> int:
    with open("/proc/self/io") as fh:
        for line in fh:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def _make_words(count: int) -> list[str]:
    rng = random.Random(42)
    words: set[str] = set()
    while len(words) < count:
        words.add(
            "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10)))
        )
    return sorted(words, key=lambda w: (len(w), w))


_WORDS = _make_words(5000)


def _texts(n: int, seed: int = 0) -> list[str]:
    """Chat-like texts of ~30 words, word frequencies roughly Zipf."""
    rng = random.Random(seed)
    weights = [1 / (r + 1) for r in range(len(_WORDS))]
    out = []
    for i in range(n):
        words = rng.choices(_WORDS, weights=weights, k=20 + i % 20)
        out.append(" ".join(words).capitalize() + ".")
    return out


# --- LangGraph -----------------------------------------------------------------------------


class _LangGraph:
    """A thread in LangGraph's SqliteSaver: every checkpoint holds the whole message list."""

    def __init__(self, path: Path) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.conn = sqlite3.connect(path, check_same_thread=False)
        self.saver = SqliteSaver(self.conn)
        self.saver.setup()
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.parents: dict[str, str | None] = {}

    @staticmethod
    def message(text: str, i: int) -> Any:
        from langchain_core.messages import AIMessage, HumanMessage

        cls = HumanMessage if i % 2 == 0 else AIMessage
        return cls(content=text, id=f"m{i}")

    def put(self, thread_id: str, messages: list[Any], step: int) -> None:
        from langgraph.checkpoint.base import empty_checkpoint
        from langgraph.checkpoint.base.id import uuid6

        checkpoint = empty_checkpoint()
        checkpoint["id"] = str(uuid6(clock_seq=step))
        checkpoint["channel_values"] = {"messages": messages}
        checkpoint["channel_versions"] = {"messages": step}
        config = {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": "",
                "checkpoint_id": self.parents.get(thread_id),
            }
        }
        self.saver.put(
            config,  # type: ignore[arg-type]
            checkpoint,
            {"source": "loop", "step": step, "parents": {}},
            {"messages": step},
        )
        self.parents[thread_id] = checkpoint["id"]

    def load(self, thread_id: str) -> list[Any]:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
        found = self.saver.get_tuple(config)  # type: ignore[arg-type]
        assert found is not None
        return list(found.checkpoint["channel_values"]["messages"])

    def close(self) -> None:
        self.conn.close()


# --- Parley --------------------------------------------------------------------------------


def _messages(texts: list[str], offset: int = 0) -> list[Message]:
    return [
        Message.text_message(t, role="user" if (i + offset) % 2 == 0 else "assistant")
        for i, t in enumerate(texts)
    ]


def _wal_checkpoint(path: Path) -> None:
    """Fold the WAL into the file, so the setup's big write is not billed to the steps."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


class _Steps:
    """Bytes over all measured steps; time as the best of a few rounds (the machine may be
    busy with other work, which only ever adds time)."""

    def __init__(self, warmup: int, rounds: int, per_round: int) -> None:
        self.warmup, self.rounds, self.per_round = warmup, rounds, per_round
        self.total = warmup + rounds * per_round
        self.round_times: list[float] = []
        self._bytes = self._start = 0.0
        self._round_start = 0.0

    def tick(self, i: int) -> None:
        """Call before step ``i`` (0-based) and once more with ``i == total``."""
        now = time.perf_counter()
        if i == self.warmup:
            self._bytes, self._start = _wchar(), now
        if i > self.warmup and (i - self.warmup) % self.per_round == 0:
            self.round_times.append((now - self._round_start) / self.per_round)
        if i >= self.warmup and (i - self.warmup) % self.per_round == 0:
            self._round_start = now

    def result(self) -> dict[str, float]:
        """Bytes per step and the best round's seconds per step."""
        steps = self.rounds * self.per_round
        return {"bytes": (_wchar() - self._bytes) / steps, "seconds": min(self.round_times)}


async def _parley_append(store: Store, thread_id: str, n: int, steps: _Steps) -> dict[str, float]:
    cp = store.checkpointer
    state = AgentState(context=_messages(_texts(n)))
    parent = new_checkpoint_id()
    await cp.aput(Checkpoint(thread_id, parent, None, 0, state), None)
    _wal_checkpoint(store.path)
    extra = _messages(_texts(steps.total, seed=1), offset=n)
    for i, message in enumerate(extra):
        steps.tick(i)
        state = state.with_update(message)
        cid = new_checkpoint_id()
        changes = StateChanges(fields=frozenset({"execution_meta"}), upserted=(message.message_id,))
        await cp.aput(Checkpoint(thread_id, cid, parent, i + 1, state), changes)
        parent = cid
    steps.tick(steps.total)
    return steps.result()


def _langgraph_append(lg: _LangGraph, thread_id: str, n: int, steps: _Steps) -> dict[str, float]:
    messages = [lg.message(t, i) for i, t in enumerate(_texts(n))]
    lg.put(thread_id, list(messages), 0)
    lg.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for i, text in enumerate(_texts(steps.total, seed=1)):
        steps.tick(i)
        messages.append(lg.message(text, n + i + 1))
        lg.put(thread_id, list(messages), i + 1)
    steps.tick(steps.total)
    return steps.result()


def _median_time(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def _run(tmp: Path) -> list[Row]:
    rows: list[Row] = []
    lg = _LangGraph(tmp / "langgraph.db")
    store = Store.open(tmp / "parley.db")
    loop = asyncio.get_running_loop()
    try:
        per: dict[int, dict[str, float]] = {}
        for n in (10, 1_000, 10_000):
            mine = await _parley_append(store, f"t{n}", n, _Steps(20, 4, 100))
            peer_steps = _Steps(3, 3, 100) if n < 10_000 else _Steps(2, 3, 10)
            theirs = _langgraph_append(lg, f"t{n}", n, peer_steps)
            per[n] = mine
            rows.append(
                Row(
                    GROUP,
                    f"(b) append 1 msg to {n:,}-msg thread: bytes/step",
                    mine["bytes"],
                    "B",
                    theirs["bytes"],
                    PEER,
                    ">=50x fewer than peer" if n == 10_000 else "",
                    theirs["bytes"] / mine["bytes"] >= 50 if n == 10_000 else None,
                )
            )
            rows.append(
                Row(
                    GROUP,
                    f"(b) append 1 msg to {n:,}-msg thread: time/step",
                    mine["seconds"] * 1000,
                    "ms",
                    theirs["seconds"] * 1000,
                    PEER,
                )
            )
        flat_b = per[10_000]["bytes"] / per[10]["bytes"]
        flat_t = per[10_000]["seconds"] / per[10]["seconds"]
        rows.append(
            Row(
                GROUP,
                "(b) bytes/step 10,000 vs 10 msgs",
                flat_b,
                "x",
                target="<=2x",
                ok=flat_b <= 2,
            )
        )
        rows.append(
            Row(
                GROUP, "(b) time/step 10,000 vs 10 msgs", flat_t, "x", target="<=2x", ok=flat_t <= 2
            )
        )

        cp = store.checkpointer
        load_mine = []
        for _ in range(15):
            start = time.perf_counter()
            got = await cp.aget("t10000", AgentState)
            load_mine.append(time.perf_counter() - start)
            assert got is not None and len(got.state.context) == 10_420
        load_theirs = _median_time(lambda: lg.load("t10000"), 7)
        mine_ms = statistics.median(load_mine) * 1000
        rows.append(
            Row(
                GROUP,
                "(c) load a 10,000-msg thread",
                mine_ms,
                "ms",
                load_theirs * 1000,
                PEER,
                "<150 ms",
                mine_ms < 150,
            )
        )
        old = (await cp.alist("t10000"))[50]
        start = time.perf_counter()
        await cp.aget("t10000", AgentState, old.checkpoint_id)
        rows.append(
            Row(
                GROUP,
                "(c) load an older checkpoint of it",
                (time.perf_counter() - start) * 1000,
                "ms",
            )
        )

        # (d) 100 threads x 1,000 messages
        for t in range(100):
            texts = _texts(1000, seed=100 + t)
            state = AgentState(context=_messages(texts))
            await cp.aput(Checkpoint(f"s{t}", new_checkpoint_id(), None, 0, state), None)
            await loop.run_in_executor(
                None, lg.put, f"s{t}", [lg.message(x, i) for i, x in enumerate(texts)], 0
            )
        queries = [_WORDS[300], f"{_WORDS[40]} {_WORDS[900]}", _WORDS[2500][:3]]
        search_times = []
        for _ in range(10):
            for q in queries:
                start = time.perf_counter()
                await store.search(q, limit=50, include_archived=True)
                search_times.append(time.perf_counter() - start)
        search_ms = statistics.median(search_times) * 1000
        worst_ms = max(search_times) * 1000

        def scan() -> int:
            word = f" {_WORDS[300]} "
            return sum(1 for t in range(100) for m in lg.load(f"s{t}") if word in f" {m.content} ")

        scan_ms = _median_time(scan, 3) * 1000
        rows.append(
            Row(
                GROUP,
                "(d) search 100,000 msgs (median)",
                search_ms,
                "ms",
                scan_ms,
                "LangGraph: load + scan",
                "<50 ms",
                search_ms < 50,
            )
        )
        rows.append(Row(GROUP, "(d) search 100,000 msgs (slowest)", worst_ms, "ms"))
        size = (tmp / "parley.db").stat().st_size + (tmp / "parley.db-wal").stat().st_size
        peer_size = (tmp / "langgraph.db").stat().st_size
        wal = tmp / "langgraph.db-wal"
        peer_size += wal.stat().st_size if wal.exists() else 0
        rows.append(
            Row(GROUP, "database size after the runs", size / 2**20, "MiB", peer_size / 2**20, PEER)
        )
    finally:
        await store.aclose()
        lg.close()
    return rows


def run() -> list[Row]:
    """Run the store benchmarks and return their rows."""
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as tmp:
        return asyncio.run(_run(Path(tmp)))
