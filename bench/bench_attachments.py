"""The chat with attachments: scrolling a thread of 1,000 image messages, frame by frame,
beside a plain ``QListWidget`` of the same thumbnails measured in the same run (each side in
a fresh process)."""

from __future__ import annotations

import asyncio
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, ImageBlock, MediaRef, Message, TextBlock
from app.store import Store
from app.store.paths import database_path
from bench.bench_window import RUNS, median_and_spread
from bench.table import Row

ROOT = Path(__file__).resolve().parents[1]
IMAGES = 1000


def _picture(i: int, size: tuple[int, int], fmt: str) -> bytes:
    image = Image.new("RGB", size, ((i * 37) % 256, (i * 91) % 256, (i * 53) % 256))
    ImageDraw.Draw(image).text((10, 10), f"photo {i}", fill="white")
    out = io.BytesIO()
    image.save(out, fmt, quality=85)
    return out.getvalue()


async def _image_thread(data_dir: Path) -> str:
    """A thread of ``IMAGES`` user messages, each with its own 1024x768 photo and thumbnail."""
    async with Store.open(database_path(data_dir)) as store:
        thread = await store.create_thread("Holiday photos")
        messages = []
        for i in range(IMAGES):
            refs = []
            for data, mime in (
                (_picture(i, (1024, 768), "JPEG"), "image/jpeg"),
                (_picture(i, (256, 192), "JPEG"), "image/jpeg"),
            ):
                sha = await store.store_media(data, mime, thread_id=thread.id)
                refs.append(
                    MediaRef(
                        kind="file_id",
                        file_id=sha,
                        sha256=sha,
                        mime_type=mime,
                        filename=f"photo-{i}.jpg",
                        size_bytes=len(data),
                    )
                )
            block = ImageBlock(media=refs[0], thumbnail=refs[1], width=1024, height=768)
            messages.append(Message(role="user", content=[TextBlock(text=f"Photo {i}"), block]))
        state = AgentState(context=messages)
        await store.checkpointer.aput(
            Checkpoint(thread.id, new_checkpoint_id(), None, 0, state, source="input"), None
        )
        return thread.id


def _twenty_files(folder: Path) -> None:
    """Twenty files of every kind, as one drop: photos, PDFs, sound, text, an archive."""
    from tests.media import corpus

    folder.mkdir(parents=True)
    for i in range(8):
        (folder / f"photo-{i}.jpg").write_bytes(_picture(i, (3000, 2000), "JPEG"))
    for i in range(4):
        pages = [f"Page {n} of report {i}: revenue, costs and outlook." for n in range(40)]
        (folder / f"report-{i}.pdf").write_bytes(corpus.pdf(pages))
    for i in range(3):
        (folder / f"memo-{i}.wav").write_bytes(corpus.wav(30.0, rate=16000))
    for i in range(3):
        (folder / f"notes-{i}.md").write_text("# Notes\n\n" + "- a point worth making\n" * 2000)
    (folder / "data.zip").write_bytes(corpus.zipped({"a.csv": b"x,y\n" * 100_000}))
    (folder / "broken.jpg").write_bytes(_picture(99, (800, 600), "JPEG")[:5000])


def _child(*args: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-m", "bench._images_child", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{args[0]} failed ({out.returncode}): {out.stderr[-2000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _drop_row(name: str, stalls: list[float], drops: list[dict[str, float]], limit: float) -> Row:
    median, spread = median_and_spread(stalls)
    idle = statistics.median(d["idle_ms"] for d in drops)
    return Row(
        "attachments", f"{name} ({spread} ms)", median, "ms", idle, "idle window",
        f"< {limit:g} ms", median < limit,
    )  # fmt: skip


def run(keep: Path | None = None) -> list[Row]:
    """Measure scrolling the 1,000-image thread."""
    with tempfile.TemporaryDirectory(dir=keep) as tmp:
        data = Path(tmp) / "data"
        thread_id = asyncio.run(_image_thread(data))
        ours = _child("parley", str(data), thread_id)
        peer = _child("peer", str(data), thread_id)
        folder = Path(tmp) / "drop"
        _twenty_files(folder)
        drops = [
            _child("drop", str(Path(tmp) / f"drop-data-{i}"), str(folder)) for i in range(RUNS)
        ]
    name = f"scroll {IMAGES:,} image messages"
    return [
        _drop_row(
            f"drop {drops[0]['files']:.0f} files at once ({drops[0]['attached']:.0f} attach in "
            f"{statistics.median(d['took_s'] for d in drops):.1f} s): longest loop stall",
            [d["stall_ms"] for d in drops],
            drops,
            16,
        ),
        _drop_row(
            "the same, first drop after start (the app's warm-up done, as seconds after start)",
            [d["cold_stall_ms"] for d in drops],
            drops,
            33,
        ),
        Row(
            "attachments",
            f"{name}: median frame",
            ours["p50_ms"],
            "ms",
            peer["p50_ms"],
            "QListWidget with icons",
            "< 16 ms",
            ours["p50_ms"] < 16,
        ),
        Row(
            "attachments",
            f"{name}: 95th percentile frame",
            ours["p95_ms"],
            "ms",
            peer["p95_ms"],
            "QListWidget with icons",
            "< 33 ms",
            ours["p95_ms"] < 33,
        ),
        Row(
            "attachments",
            f"{name}: slowest frame",
            ours["max_ms"],
            "ms",
            peer["max_ms"],
            "QListWidget with icons",
            "< 100 ms",
            ours["max_ms"] < 100,
        ),
        Row(
            "attachments",
            "open it to first paint",
            ours["open_s"] * 1000,
            "ms",
            peer["open_s"] * 1000,
            f"QListWidget decoding all {IMAGES:,} icons",
            "< 500 ms",
            ours["open_s"] < 0.5,
        ),
        Row(
            "attachments",
            f"pictures decoded during the scroll (of {IMAGES:,})",
            ours["decoded"],
            "",
            peer["decoded"],
            "QListWidget (all, up front)",
            "",
            None,
        ),
    ]


if __name__ == "__main__":
    from bench.table import render

    t = time.perf_counter()
    print(render(run()))
    print(f"({time.perf_counter() - t:.1f} s)")
