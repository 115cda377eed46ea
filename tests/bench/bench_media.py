"""Attaching files: a 24-megapixel photo and a 300-page PDF, each through the whole ingest
(read, recognise, decode, thumbnail, store in a real SQLite store).

Every figure is measured in a fresh child process, warmed up on a small file of the same kind;
the extra memory is the highest resident set seen (sampled every 2 ms) during a first
ingest minus the resident set just before it; the time is that of a second ingest, unsampled.
Peers, in the same run: for the photo, Pillow decoding it at full size and making the same
2048-pixel copy and thumbnail (what a plain implementation does); for the PDF, pypdf
extracting the text of the same pages.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench.table import Row
from tests.media import corpus

GROUP = "media"
ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import asyncio, io, json, os, sys, threading, time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")

def rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * PAGE / 1e6

class Peak(threading.Thread):
    # samples the resident set every millisecond while the measured code runs
    def __init__(self):
        super().__init__(daemon=True)
        self.before = rss_mb()
        self.peak = self.before
        self.running = True
        self.start()

    def run(self):
        while self.running:
            self.peak = max(self.peak, rss_mb())
            time.sleep(0.002)

    def extra(self):
        self.running = False
        self.join()
        return max(self.peak, rss_mb()) - self.before

mode, path, db = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
from PIL import Image
import pypdf
from app.media import Ingestor
from app.store import Store
data = path.read_bytes()
events = []

async def ingest():
    async with Store.open(db) as store:
        ingestor = Ingestor(store.store_media)
        # warm up (imports, first SQLite write) on a small file of the same kind, so the peak
        # RSS measured is the big file's own
        await ingestor.ingest(path.with_name("warm" + path.suffix))
        events.clear()
        peak = Peak()
        result = await ingestor.ingest(path)
        extra = peak.extra()
        assert result.block is not None, result.message
    # timed apart from the sampling (which would slow it down), into a store without it
    async with Store.open(db + "-timed") as store:
        ingestor = Ingestor(store.store_media)
        await ingestor.ingest(path.with_name("warm" + path.suffix))
        start = time.perf_counter()
        result = await ingestor.ingest(path, events.append)
        took = time.perf_counter() - start
        assert result.block is not None, result.message
        return took, extra

def pillow():
    peak = Peak()
    decode_and_copy()
    extra = peak.extra()
    start = time.perf_counter()
    decode_and_copy()
    return time.perf_counter() - start, extra

def decode_and_copy():
    with Image.open(io.BytesIO(data)) as im:
        im.load()
        copy = im.copy()
        copy.thumbnail((2048, 2048))
        copy.save(io.BytesIO(), "JPEG", quality=88)
        copy.thumbnail((256, 256))
        copy.save(io.BytesIO(), "JPEG")

def pypdf_text():
    peak = Peak()
    extract_all()
    extra = peak.extra()
    start = time.perf_counter()
    extract_all()
    return time.perf_counter() - start, extra

def extract_all():
    reader = pypdf.PdfReader(io.BytesIO(data))
    texts = [page.extract_text() for page in reader.pages]
    assert len(texts) > 1

took, extra = asyncio.run(ingest()) if mode == "ingest" else globals()[mode]()
print(json.dumps({"s": took, "extra_mb": extra, "events": len(events)}))
"""


def _child(mode: str, path: Path, tmp: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, str(path), str(tmp / f"{mode}-{path.stem}.db")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def run() -> list[Row]:
    """Ingest a 24-megapixel JPEG and a 300-page PDF; report time, memory and progress."""
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        photo = tmp / "photo.jpg"
        photo.write_bytes(corpus.big_jpeg(6000, 4000))
        (tmp / "warm.jpg").write_bytes(corpus.image("JPEG"))
        (tmp / "warm.pdf").write_bytes(corpus.pdf(["warm"]))
        pdf = tmp / "book.pdf"
        pdf.write_bytes(corpus.pdf([f"Page {n}: the quick brown fox jumps." for n in range(300)]))
        ours = _child("ingest", photo, tmp)
        peer = _child("pillow", photo, tmp)
        book = _child("ingest", pdf, tmp)
        book_peer = _child("pypdf_text", pdf, tmp)
    return [
        Row(GROUP, "24 MP JPEG, ingest time", ours["s"] * 1000, "ms",
            peer["s"] * 1000, "Pillow full decode", "< 300 ms", ours["s"] < 0.3),
        Row(GROUP, "24 MP JPEG, extra peak RSS", ours["extra_mb"], "MB",
            peer["extra_mb"], "Pillow full decode", "< 150 MB", ours["extra_mb"] < 150),
        Row(GROUP, "300-page PDF, ingest time", book["s"], "s",
            book_peer["s"], "pypdf extract_text", "< 2 s", book["s"] < 2),
        Row(GROUP, "300-page PDF, progress updates", book["events"], "events",
            target="one a page", ok=book["events"] >= 300, higher_is_better=True),
    ]  # fmt: skip
