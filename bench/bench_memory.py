"""Choosing the memories for a model call among 10,000 kept in a real thread database: every
pinned one and the few most related to the question, within the token budget, as a turn
asks for them (``MemoryService.choose``, the word index in SQLite). The peer reads every
memory and ranks them in Python by the question's words they share, as a list kept in a file
would be searched.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import statistics
import tempfile
import time
from pathlib import Path

from app.core.models import ScriptedChatModel
from app.knowledge import normalise
from app.services.bus import EventBus
from app.services.memory import MemoryService
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.store import MemoryRecord, Store
from bench.table import Row

GROUP = "memory"
PEER = "scan every memory in Python"
MEMORIES = 10_000
PINNED = 5
QUESTIONS = 200
TARGET_MS = 5.0
TURNS = 20
DIMS = 384
"""The stand-in embedder's vector length (bge-small's)."""


class _HashedWords:
    """A stand-in embedding model: each word adds 1 to a dimension chosen by its hash, so
    the time measured is Parley's (reading, scoring, fusing), not a model's."""

    name = "hashed-words"

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * DIMS
            for word in text.lower().split():
                vector[
                    int(hashlib.blake2b(word.encode(), digest_size=4).hexdigest(), 16) % DIMS
                ] += 1
            out.append(normalise(vector))
        return out


def _vocabulary(rng: random.Random, count: int = 4000) -> list[str]:
    words: set[str] = set()
    while len(words) < count:
        words.add(
            "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
        )
    return sorted(words)


def _sentence(rng: random.Random, words: list[str], weights: list[float], n: int) -> str:
    return " ".join(rng.choices(words, weights=weights, k=n)).capitalize()


async def _turns(folder: Path, questions: list[str]) -> tuple[float, float]:
    """The median turn (a scripted answer) with memory on and with memory paused, on the
    workspace holding the memories."""
    model = ScriptedChatModel([{"text": "Noted."}] * (2 * len(questions) + 2))
    ws = await Workspace.open(folder, resolve_model=lambda _s: model, secret_resolver=lambda _r: "")
    try:
        ws.settings.use(AppSettings(default_model="scripted:bench"))
        thread = await ws.threads.create()
        await (await ws.runs.send(thread.id, "warm up"))
        medians = []
        for paused in (False, True):
            await ws.settings.update(memory_paused=paused)
            times = []
            for question in questions:
                start = time.perf_counter()
                await (await ws.runs.send(thread.id, question))
                times.append(time.perf_counter() - start)
            medians.append(statistics.median(times))
        return medians[0], medians[1]
    finally:
        await ws.aclose()


def _peer(memories: list[MemoryRecord], question: str, limit: int) -> list[MemoryRecord]:
    asked = set(question.lower().split())
    scored = []
    for memory in memories:
        shared = len(asked & set(memory.text.lower().split()))
        if shared or memory.pinned:
            scored.append((memory.pinned, shared, memory))
    scored.sort(key=lambda item: (not item[0], -item[1]))
    return [m for _, _, m in scored[: PINNED + limit]]


async def _run(folder: Path) -> list[Row]:
    rng = random.Random(7)
    words = _vocabulary(rng)
    weights = [1 / (r + 1) for r in range(len(words))]
    async with Store.open(folder / "parley.db") as store:
        drafts = [
            MemoryRecord(
                id="",
                text=_sentence(rng, words, weights, rng.randint(6, 30)),
                pinned=n < PINNED,
                local_only=n % 10 == 0,
            )
            for n in range(MEMORIES)
        ]
        await store.memories.add(drafts)
        service = MemoryService(store, events=EventBus())
        questions = [
            _sentence(rng, words, weights, rng.randint(4, 14)) + "?" for _ in range(QUESTIONS)
        ]
        await service.choose(questions[0], None)  # warm the page cache
        times, used = [], []
        for question in questions:
            start = time.perf_counter()
            choice = await service.choose(question, None, remote=True)
            times.append(time.perf_counter() - start)
            used.append(choice.tokens)
        kept = await service.list(every=True)
        peer_times = []
        for question in questions[:20]:
            start = time.perf_counter()
            everything = await service.list(every=True)
            _peer(everything, question, 3)
            peer_times.append(time.perf_counter() - start)
        assert len(kept) == MEMORIES
        embedder = _HashedWords()
        meaning = MemoryService(store, events=EventBus(), meaning=lambda: (embedder, "hashed"))
        await meaning.meaning.fill()
        await meaning.choose(questions[0], None)  # the vectors read once
        meaning_times = []
        for question in questions[:50]:
            start = time.perf_counter()
            await meaning.choose(question, None, remote=True)
            meaning_times.append(time.perf_counter() - start)
    on, off = await _turns(folder, questions[:TURNS])
    median = statistics.median(times) * 1000
    return [
        Row(
            GROUP,
            f"a turn with memory on, {MEMORIES:,} memories (median of {TURNS})",
            on * 1000,
            "ms",
            off * 1000,
            "the same turn, memory paused",
            "< paused + 5 ms",
            on < off + TARGET_MS / 1000,
        ),
        Row(
            GROUP,
            f"choose among {MEMORIES:,} memories (median of {QUESTIONS})",
            median,
            "ms",
            peer=statistics.median(peer_times) * 1000,
            peer_name=PEER,
            target=f"< {TARGET_MS:g} ms",
            ok=median < TARGET_MS,
        ),
        Row(
            GROUP,
            f"choose among {MEMORIES:,} by words and meaning ({DIMS}-dim stand-in model)",
            statistics.median(meaning_times) * 1000,
            "ms",
            median,
            "by words alone",
            f"< {TARGET_MS:g} ms",
            statistics.median(meaning_times) * 1000 < TARGET_MS,
        ),
        Row(
            GROUP,
            "tokens of memories put before a call (largest)",
            float(max(used)),
            "tokens",
            target="<= 300 tokens",
            ok=max(used) <= 300,
        ),
    ]


def run() -> list[Row]:
    """Measure choosing memories among 10,000 and return the rows."""
    with tempfile.TemporaryDirectory(prefix="parley-bench-") as tmp:
        rows = asyncio.run(_run(Path(tmp)))
    print(f"[memory: median choose {rows[1].value:.3f} ms]", flush=True)
    return rows
