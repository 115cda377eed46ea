"""Store work that must grow no faster than its input.

(e) search for a word that one message repeats throughout, against that message's size (0.25
    to 20 MB), beside FTS5's own ``snippet()`` on the same file (only where it finishes in
    reasonable time: its cost grows with the square of the matches);
(f) importing and forking a thread, against its length (2,500 to 20,000 messages), beside
    LangGraph's SqliteSaver writing the same messages as one checkpoint.
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.state import AgentState
from app.store import Store
from bench.bench_store import _LangGraph, _messages, _texts
from bench.table import Row

GROUP = "store scale"
_SIZES_MB = (0.25, 0.5, 1, 2, 5, 10, 20)
_PEER_UP_TO_MB = 0.5
_LENGTHS = (2_500, 5_000, 10_000, 20_000)


def _repeated(megabytes: float) -> str:
    phrase = "alpha beta gamma delta "
    return phrase * int(megabytes * 2**20 / len(phrase))


def _fts_snippet(path: Path, word: str) -> float:
    conn = sqlite3.connect(path)
    try:
        start = time.perf_counter()
        conn.execute(
            "SELECT snippet(messages_fts, 0, '[', ']', '…', 12) FROM messages_fts "
            "WHERE messages_fts MATCH ? ORDER BY rank LIMIT 50",
            (f'"{word}"',),
        ).fetchall()
        return time.perf_counter() - start
    finally:
        conn.close()


async def _search_rows(tmp: Path) -> list[Row]:
    rows = []
    for size in _SIZES_MB:
        path = tmp / f"search-{size}.db"
        async with Store.open(path) as store:
            texts = ["a short note about gamma rays", _repeated(size), "nothing here"]
            state = AgentState(context=_messages(texts))
            start = time.perf_counter()
            await store.checkpointer.aput(
                Checkpoint("t", new_checkpoint_id(), None, 0, state), None
            )
            await store.search("warm the index up")
            saved = time.perf_counter() - start
            hits = await store.search("gamma")
            assert len(hits) == 2 and "[gamma]" in hits[0].snippet + hits[1].snippet
            took = await _best(partial(_search, store, "gamma"))
        peer = _fts_snippet(path, "gamma") if size <= _PEER_UP_TO_MB else None
        rows.append(
            Row(
                GROUP,
                f"(e) search a word repeated in one {size:g} MB message (best of 3)",
                took * 1000,
                "ms",
                None if peer is None else peer * 1000,
                "FTS5 snippet()" if peer is not None else "",
                "<1000 ms",
                took < 1,
            )
        )
        rows.append(Row(GROUP, f"(e) save and index that {size:g} MB message", saved * 1000, "ms"))
    return rows


async def _best(work: Callable[[int], Awaitable[object]], rounds: int = 3) -> float:
    """The fastest of a few rounds (a busy machine only ever adds time)."""
    times = []
    for i in range(rounds):
        start = time.perf_counter()
        await work(i)
        times.append(time.perf_counter() - start)
    return min(times)


async def _search(store: Store, word: str, _round: int) -> None:
    await store.search(word)


async def _first_save(store: Store, state: AgentState, round_: int) -> None:
    await store.checkpointer.aput(
        Checkpoint(f"t{round_}", new_checkpoint_id(), None, 0, state), None
    )


async def _import(store: Store, exported: bytes, _round: int) -> None:
    await store.import_json(exported)


async def _fork(store: Store, thread_id: str, _round: int) -> None:
    await store.fork_thread(thread_id)


async def _peer_put(lg: _LangGraph, thread_id: str, messages: list[Any], round_: int) -> None:
    lg.put(f"{thread_id}-{round_}", messages, 0)


async def _scale_rows(tmp: Path) -> list[Row]:
    rows = []
    lg = _LangGraph(tmp / "langgraph.db")
    try:
        for n in _LENGTHS:
            async with Store.open(tmp / f"scale-{n}.db") as store:
                state = AgentState(context=_messages(_texts(n)))

                first = await _best(partial(_first_save, store, state))
                exported = await store.export_json("t0")
                imported = await _best(partial(_import, store, exported))
                forked = await _best(partial(_fork, store, "t0"))
            peer_messages = [lg.message(t, i) for i, t in enumerate(_texts(n))]
            peer = await _best(partial(_peer_put, lg, f"t{n}", peer_messages))
            target = "<1000 ms" if n <= 10_000 else ""
            for what, value in (("import", imported), ("fork", forked), ("first save of", first)):
                rows.append(
                    Row(
                        GROUP,
                        f"(f) {what} a {n:,}-msg thread (best of 3)",
                        value * 1000,
                        "ms",
                        peer * 1000,
                        "LangGraph SqliteSaver: put",
                        target,
                        value < 1 if target else None,
                    )
                )
    finally:
        lg.close()
    return rows


def run() -> list[Row]:
    """Run the scale benchmarks and return their rows."""
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as tmp:
        rows = asyncio.run(_search_rows(Path(tmp)))
        rows += asyncio.run(_scale_rows(Path(tmp)))
        return rows
