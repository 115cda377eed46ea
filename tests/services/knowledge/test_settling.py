"""A file that keeps growing while the folder is watched (a log being written) is read again
once it has settled, not at every change; its final content is what is indexed."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.knowledge import Passage
from app.services.bus import EventBus
from app.services.knowledge import KnowledgeService
from app.services.knowledge.reader import PassageReader


class CountingReader(PassageReader):
    """The real reader (its child process), counting the files it is given by name."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: Counter[str] = Counter()

    def passages(
        self, data: bytes, name: str, max_text_chars: int, cancel: threading.Event
    ) -> list[Passage]:
        """Count the file, then read it for real."""
        self.reads[name] += 1
        return super().passages(data, name, max_text_chars, cancel)


@pytest.fixture
async def watched(tmp_path: Path) -> AsyncIterator[tuple[KnowledgeService, CountingReader]]:
    reader = CountingReader()
    opened = await KnowledgeService.open(tmp_path / "data", EventBus(), reader=reader)
    yield opened, reader
    await opened.aclose()


async def test_a_growing_log_is_read_once_it_settles(
    watched: tuple[KnowledgeService, CountingReader], tmp_path: Path
) -> None:
    knowledge, reader = watched
    root = tmp_path / "logs"
    root.mkdir()
    log = root / "app.log"
    log.write_text("started the service\n")
    await knowledge.add_folder(root)
    await knowledge.wait_idle()
    knowledge.start()  # watching
    await asyncio.sleep(0.5)
    reader.reads.clear()

    with log.open("a") as out:  # a line every 100 ms for 3 s, as a busy program logs
        for n in range(30):
            out.write(f"request {n} answered in {n} ms\n")
            out.flush()
            await asyncio.sleep(0.1)
        out.write("shutdown complete, the albatross has landed\n")

    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while not await knowledge.search("albatross landed"):
        assert loop.time() < end, "the log's final content was not indexed"
        await asyncio.sleep(0.1)
    await asyncio.sleep(3)  # nothing more is read once the log is quiet
    await knowledge.wait_idle()
    assert reader.reads["app.log"] <= 3, reader.reads
    (hit,) = await knowledge.search("request 29 answered")
    assert hit.rel == "app.log"
