"""Knowledge folders: indexing throughput (MB of text a second) on a generated folder, query
time over 100,000 passages, the time to resync after one file changes and the longest
event-loop stall while a folder is indexed, against ``rank-bm25`` over the same passages; and
for search by meaning, a fused query over 100,000 vectors (as Parley finds the nearest at that
size, by the scan of their quantized copy) beside sqlite-vec alone where it loads, and how
many passages a second the bundled stand-in model gives vectors.

The generated folder is ``PARLEY_BENCH_KNOWLEDGE_MB`` megabytes of Markdown (200 by default,
the full figure; ``PARLEY_BENCH_KNOWLEDGE_MB=20 make bench`` for a quicker look). It is
generated once into ``$XDG_CACHE_HOME/parley-bench`` (``~/.cache`` without it;
``PARLEY_BENCH_CACHE`` names another folder) and read from there on later runs. rank-bm25 keeps
every token in memory, so it is measured over the passages of the first :data:`PEER_MB`
megabytes only.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path

from app.knowledge import Passage
from app.services.bus import EventBus
from app.services.knowledge import KnowledgeService
from app.services.knowledge.sync import sync_folder
from app.store.knowledge import KnowledgeIndex
from bench._knowledge_meaning import FusedTimes, embedding_rate, fused_query_ms
from bench.table import Row

QUERY_TARGET_MS = 30.0
RESYNC_TARGET_S = 1.0
STALL_TARGET_MS = 16.0
PASSAGES = 100_000
FILE_BYTES = 200_000
PEER_MB = 40.0
STALL_MB = 5.0
CHANGED = "doc-00003.md"
_CACHE_FORMAT = 1
_WORD = re.compile(r"\w+")


def _vocabulary(rng: random.Random, size: int = 20_000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(size)}
    common = ["harbour", "lighthouse", "keeper", "glacier", "walk", "bridge", "saffron",
              "harvest", "autumn", "invoice", "total", "tax", "tide", "tables", "march",
              "copper", "tape", "slugs"]  # fmt: skip
    return sorted(words) + common


def _paragraph(rng: random.Random, words: list[str], n: int = 70) -> str:
    # a few words common, most rare: roughly how real text spreads
    picked = [words[min(int(rng.paretovariate(1.1)) - 1, len(words) - 1)] for _ in range(n)]
    return " ".join(picked).capitalize() + "."


def _make_folder(root: Path, megabytes: float, rng: random.Random) -> int:
    words = _vocabulary(rng)
    rng.shuffle(words)
    root.mkdir(parents=True)
    total = 0
    n = 0
    while total < megabytes * 1_000_000:
        parts = [f"# Document {n}"]
        size = 0
        while size < FILE_BYTES:
            para = _paragraph(rng, words)
            if rng.random() < 0.1:
                parts.append(f"## Section {len(parts)}")
            parts.append(para)
            size += len(para) + 2
        text = "\n\n".join(parts)
        (root / f"doc-{n:05}.md").write_text(text, encoding="utf-8")
        total += len(text.encode())
        n += 1
    return total


def _cache_root() -> Path:
    named = os.environ.get("PARLEY_BENCH_CACHE")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "parley-bench"


def _corpus(megabytes: float) -> tuple[Path, int]:
    """The generated folder of ``megabytes`` MB and its size in bytes, made once and kept in
    the cache (hidden files beside the documents, which the index leaves out, say it is
    complete and keep the file the resync changes as it was)."""
    root = _cache_root() / f"knowledge-{megabytes:g}mb-v{_CACHE_FORMAT}"
    done = root / ".complete"
    if not done.exists():
        shutil.rmtree(root, ignore_errors=True)
        size = _make_folder(root, megabytes, random.Random(7))
        shutil.copyfile(root / CHANGED, root / f".{CHANGED}.orig")
        done.write_text(str(size))
    shutil.copyfile(root / f".{CHANGED}.orig", root / CHANGED)  # undo a last run's change
    return root, int(done.read_text())


def _indexing(tmp: Path, megabytes: float) -> tuple[float, float, float]:
    """MB/s of Parley's sync, MB/s of rank-bm25 over the same passages (the first
    :data:`PEER_MB` MB of them), and the resync time after one file changes."""
    from rank_bm25 import BM25Okapi

    root, size = _corpus(megabytes)
    index = KnowledgeIndex.open_data_dir(tmp / "index-data")
    try:
        folder_id, _ = index.add_folder(str(root.resolve()))
        record = next(f for f in index.folders() if f.id == folder_id)
        start = time.perf_counter()
        sync_folder(index, record, lambda p: None, threading.Event())
        ours = size / 1e6 / (time.perf_counter() - start)
        texts = _first_passages(index, min(megabytes, PEER_MB) * 1e6)
        start = time.perf_counter()
        tokens = [_WORD.findall(t.lower()) for t in texts]
        BM25Okapi(tokens)
        peer = sum(len(t) for t in texts) / 1e6 / (time.perf_counter() - start)
        del texts, tokens
        changed = root / CHANGED
        changed.write_text(changed.read_text() + "\n\nA new closing paragraph.\n")
        start = time.perf_counter()
        sync_folder(index, record, lambda p: None, threading.Event())
        resync = time.perf_counter() - start
    finally:
        index.close()
        shutil.copyfile(root / f".{CHANGED}.orig", root / CHANGED)
    return ours, peer, resync


def _first_passages(index: KnowledgeIndex, chars: float) -> list[str]:
    """The passages' texts in the order they were saved, up to about ``chars`` characters."""

    def read(conn: sqlite3.Connection) -> list[str]:
        out: list[str] = []
        total = 0
        for (text,) in conn.execute("SELECT text FROM passages ORDER BY id"):
            if total >= chars:
                break
            out.append(text)
            total += len(text)
        return out

    return index.call(read)


def _query_times(tmp: Path) -> tuple[float, float, FusedTimes, list[str]]:
    """Median ms per query over 100,000 passages: Parley's FTS5, rank-bm25's and Parley's
    fused with the nearest vectors; and some passages' texts."""
    from rank_bm25 import BM25Okapi

    rng = random.Random(11)
    words = _vocabulary(rng)
    # words of every frequency, as a question mixes a common word with rarer ones
    queries = [" ".join(words[rng.randint(5, 3000)] for _ in range(3)) for _ in range(20)]
    index = KnowledgeIndex.open_data_dir(tmp / "query-data")
    corpus: list[list[str]] = []
    try:
        folder_id, _ = index.add_folder("/bench")
        per_file = 100
        for f in range(PASSAGES // per_file):
            passages = []
            for p in range(per_file):
                text = _paragraph(rng, words)
                corpus.append(_WORD.findall(text.lower()))
                passages.append(Passage(text, p * 500, p * 500 + len(text), None, None))
            index.save_file(folder_id, f"f{f}.md", 1, 1, f"{f}", passages)
        index.search("warm the cache")
        assert all(index.search(q, 8) for q in queries), "a query found nothing"
        ours = []
        for _ in range(3):
            for query in queries:
                start = time.perf_counter()
                index.search(query, 8)
                ours.append((time.perf_counter() - start) * 1000)
        fused = fused_query_ms(index, queries)
    finally:
        index.close()
    bm25 = BM25Okapi(corpus)
    peer = []
    for query in queries[:3]:
        start = time.perf_counter()
        bm25.get_top_n(query.split(), corpus, n=8)
        peer.append((time.perf_counter() - start) * 1000)
    texts = [" ".join(words) for words in corpus[:16]]
    return statistics.median(ours), statistics.median(peer), fused, texts


async def _stall(tmp: Path) -> float:
    """The longest gap between 1 ms ticks of the event loop while a folder is indexed."""
    rng = random.Random(5)
    root = tmp / "stall-folder"
    _make_folder(root, STALL_MB, rng)
    knowledge = await KnowledgeService.open(tmp / "stall-data", EventBus(), watch=False)
    worst = 0.0
    done = False

    async def tick() -> None:
        nonlocal worst
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst = max(worst, now - last)
            last = now

    ticker = asyncio.create_task(tick())
    try:
        await knowledge.add_folder(root)
        await knowledge.wait_idle()
    finally:
        done = True
        await ticker
        await knowledge.aclose()
    return worst * 1000


def run() -> list[Row]:
    """Measure and return the rows."""
    megabytes = float(os.environ.get("PARLEY_BENCH_KNOWLEDGE_MB", "200"))
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        ours, peer, resync = _indexing(tmp, megabytes)
        query, peer_query, fused, texts = _query_times(tmp)
        stall = asyncio.run(_stall(tmp))
        rate = embedding_rate(texts)
    return [
        Row("knowledge", f"indexing a {megabytes:g} MB folder of Markdown", ours, "MB/s",
            peer=peer, peer_name=f"rank-bm25, in memory, {min(megabytes, PEER_MB):g} MB",
            target=">= the peer", ok=ours >= peer, higher_is_better=True),
        Row("knowledge", "query over 100,000 passages (median)", query, "ms",
            peer=peer_query, peer_name="rank-bm25", target=f"< {QUERY_TARGET_MS:.0f} ms",
            ok=query < QUERY_TARGET_MS),
        Row("knowledge", f"query by words and meaning, 100,000 vectors (median; the scan "
            f"holds {fused.held_mb:.0f} MB)", fused.ours, "ms",
            peer=query if fused.sqlite_vec is None else fused.sqlite_vec,
            peer_name="BM25 alone" if fused.sqlite_vec is None else "sqlite-vec alone",
            target=f"< {QUERY_TARGET_MS:.0f} ms", ok=fused.ours < QUERY_TARGET_MS),
        Row("knowledge", "passages given vectors, bundled stand-in model", rate, "passages/s",
            higher_is_better=True),
        Row("knowledge", f"resync of the {megabytes:g} MB folder, one file changed", resync, "s",
            target=f"< {RESYNC_TARGET_S:.0f} s", ok=resync < RESYNC_TARGET_S),
        Row("knowledge", f"longest event-loop stall while indexing {STALL_MB:g} MB", stall, "ms",
            target=f"< {STALL_TARGET_MS:.0f} ms", ok=stall < STALL_TARGET_MS),
    ]  # fmt: skip
