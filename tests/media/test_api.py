"""The ingest API the window uses: progress, cancellation, storing once, clipboard data."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from app.core.state import DocumentBlock, ImageBlock
from app.media import (
    BytesSource,
    IngestLimits,
    Ingestor,
    IngestProgress,
    Job,
    page_texts,
    sources_from_clipboard,
)
from app.media.errors import Cancelled
from app.media.ingest import extract
from app.store import Store
from tests.media import corpus


def _media_rows(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "parley.db") as conn:
        return int(conn.execute("SELECT count(*) FROM media").fetchone()[0])


async def test_progress_runs_page_by_page_on_the_event_loop(ingestor: Ingestor) -> None:
    data = corpus.pdf([f"Page {n}" for n in range(1, 31)])
    loop_thread = threading.get_ident()
    seen: list[IngestProgress] = []
    threads: set[int] = set()

    def on_progress(p: IngestProgress) -> None:
        seen.append(p)
        threads.add(threading.get_ident())

    result = await ingestor.ingest(BytesSource(data, "thirty.pdf"), on_progress)
    assert isinstance(result.block, DocumentBlock)
    assert page_texts(result.block.text)[29] == "Page 30"
    assert threads == {loop_thread}
    stages = [p.stage for p in seen]
    assert stages[0] == "queued"
    assert stages[-1] == "done"
    assert [s for s in stages if s.startswith("page")] == [f"page {n} of 30" for n in range(1, 31)]
    fractions = [p.fraction for p in seen]
    assert fractions == sorted(fractions)
    assert fractions[-1] == 1.0
    assert {p.name for p in seen} == {"thirty.pdf"}


def test_a_cancelled_read_stops_at_the_next_page() -> None:
    # the worker's side of a cancel: the flag set while page 3 is read (as cancelling the
    # ingest's task sets it) ends the page loop before page 4
    data = corpus.pdf([f"Page {n}" for n in range(1, 401)])
    job = Job()
    reported: list[str] = []

    def report(fraction: float, stage: str) -> None:
        if stage.startswith("page"):
            reported.append(stage)
            if len(reported) == 3:
                job.cancel_event.set()

    job.report = report
    with pytest.raises(Cancelled):
        extract(BytesSource(data, "long.pdf"), IngestLimits(), job)
    assert reported == ["page 1 of 400", "page 2 of 400", "page 3 of 400"]


async def test_cancelling_stops_inside_the_page_loop_and_stores_nothing(
    tmp_path: Path, ingestor: Ingestor
) -> None:
    # one worker thread: work handed to it after the cancel runs only once the read is gone
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-test")
    loop = asyncio.get_running_loop()
    loop.set_default_executor(worker)
    data = corpus.pdf([f"Page {n}" for n in range(1, 401)])
    pages_seen: list[str] = []
    task: asyncio.Task[object] | None = None

    def on_progress(p: IngestProgress) -> None:
        if p.stage.startswith("page"):
            pages_seen.append(p.stage)
            if len(pages_seen) == 3 and task is not None:
                task.cancel()

    task = asyncio.create_task(ingestor.ingest(BytesSource(data, "long.pdf"), on_progress))
    try:
        await task
        raise AssertionError("the ingest was not cancelled")
    except asyncio.CancelledError:
        pass
    assert task.cancelled()
    seen_at_cancel = len(pages_seen)
    # the read has left the worker (at its next page, or at its end had it gone on), and what
    # it reported on its way has reached the loop before this
    await loop.run_in_executor(None, lambda: None)
    assert len(pages_seen) == seen_at_cancel < 100
    assert _media_rows(tmp_path) == 0
    # the ingestor is still usable afterwards
    again = await ingestor.ingest(BytesSource(b"still works", "after.txt"))
    assert isinstance(again.block, DocumentBlock)


async def test_the_same_file_twice_is_stored_once(
    tmp_path: Path, ingestor: Ingestor, store: Store
) -> None:
    data = corpus.image("PNG")
    for name in ("a.png", "b.png"):
        (tmp_path / name).write_bytes(data)
    first, second = await ingestor.ingest_all([tmp_path / "a.png", tmp_path / "b.png"])
    assert isinstance(first.block, ImageBlock)
    assert isinstance(second.block, ImageBlock)
    assert first.block.media.file_id == second.block.media.file_id
    assert first.block.thumbnail == second.block.thumbnail
    assert _media_rows(tmp_path) == 2  # the picture and its thumbnail, once each


async def test_a_failing_store_is_reported_for_that_file_only(store: Store) -> None:
    async def full_disk(data: bytes, mime: str) -> str:
        if mime == "text/csv":
            raise OSError(28, "No space left on device")
        return await store.store_media(data, mime)

    ingestor = Ingestor(full_disk)
    results = await ingestor.ingest_all(
        [BytesSource(b"a,b\n1,2\n", "t.csv"), BytesSource(b"hello", "h.txt")]
    )
    assert (
        results[0].message == "t.csv: it could not be stored ([Errno 28] No space left on device)"
    )
    assert isinstance(results[1].block, DocumentBlock)


def test_clipboard_files_images_and_plain_text() -> None:
    uris = b"# copied\r\nfile:///tmp/My%20Notes.txt\r\nhttps://example.invalid/x\r\n"
    assert sources_from_clipboard({"text/uri-list": uris, "text/plain": b"x"}) == [
        Path("/tmp/My Notes.txt")
    ]
    png = corpus.image("PNG", (8, 8))
    assert sources_from_clipboard({"image/png": png, "text/plain": b"x"}) == [
        BytesSource(png, "pasted image.png")
    ]
    assert sources_from_clipboard({"application/pdf": b"%PDF-"}) == [
        BytesSource(b"%PDF-", "pasted.pdf")
    ]
    assert sources_from_clipboard({"text/plain": b"just words"}) == []


async def test_a_pasted_image_attaches(ingestor: Ingestor) -> None:
    (source,) = sources_from_clipboard({"image/png": corpus.image("PNG", (8, 8))})
    result = await ingestor.ingest(source)
    assert isinstance(result.block, ImageBlock)
    assert result.block.media.filename == "pasted image.png"


async def test_a_batch_reports_which_file_of_how_many(ingestor: Ingestor) -> None:
    seen: list[tuple[int, int, str, str]] = []
    sources = [BytesSource(b"one", "a.txt"), BytesSource(b"", "b.txt"), BytesSource(b"3", "c.txt")]
    results = await ingestor.ingest_all(sources, lambda p: seen.append(
        (p.index, p.total, p.name, p.stage)
    ))  # fmt: skip
    assert [r.error for r in results] == [None, "the file is empty (0 bytes)", None]
    ends = [s for s in seen if s[3] in ("done", "failed")]
    assert ends == [(0, 3, "a.txt", "done"), (1, 3, "b.txt", "failed"), (2, 3, "c.txt", "done")]


def test_every_warm_up_sample_reads_as_a_file_of_its_kind() -> None:
    """load_readers reads a tiny sample of each kind to set its decoder up; a sample that
    fails would quietly leave that decoder cold for the first drop."""
    from app.core.state import MediaRef
    from app.media._util import Job
    from app.media.ingest import _samples, extract

    kinds = {}
    for name, data in _samples():
        draft = extract(BytesSource(data, name), IngestLimits(), Job())
        refs = {role: MediaRef(kind="file_id", file_id=role) for role in draft.blobs}
        kinds[name] = draft.build(refs).type
    assert kinds == {
        "sample.jpeg": "image",
        "sample.png": "image",
        "sample.wav": "audio",
        "sample.pdf": "document",
        "sample.md": "document",
    }


def test_the_ingest_api_loads_no_decoder_until_a_file_is_read() -> None:
    """What the window imports on its event loop (sources, limits, the ingestor) must not
    load the decoders: they take ~250 ms and would stall the first drop. PyAV is never loaded:
    the readers decode no audio or video (the bundle ships without it)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from app.media import IngestLimits, Ingestor, sources_from_clipboard\n"
        "from app.media.ingest import source_name\n"
        "IngestLimits()\n"
        "heavy = ('av', 'mutagen', 'pypdfium2', 'docx', 'lxml', 'charset_normalizer', 'PIL')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "from app.media.ingest import load_readers\n"
        "load_readers()\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert out[0] == "[]"
    # Word documents are read with the standard library (app/media/_docx.py): no docx, no lxml
    assert out[1] == str(sorted(["mutagen", "pypdfium2", "charset_normalizer", "PIL"]))
