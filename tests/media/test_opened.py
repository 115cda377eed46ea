"""A file handed to the ingest already opened is read through its descriptor: whatever now
lies at its name is never read, and the caller's file is left as it was."""

from __future__ import annotations

import os
from pathlib import Path

from app.core.state import ImageBlock
from app.media import Ingestor, OpenedFile
from app.store import Store
from tests.media import corpus
from tests.media.conftest import stored_bytes


async def test_an_opened_file_is_read_not_the_file_now_at_its_name(
    tmp_path: Path, ingestor: Ingestor, store: Store
) -> None:
    opened_png = corpus.image("PNG", (32, 32))
    swapped_in = corpus.image("PNG", (48, 48))
    path = tmp_path / "pic.png"
    path.write_bytes(opened_png)
    with path.open("rb") as handle:
        handle.seek(5)
        other = tmp_path / "other.png"
        other.write_bytes(swapped_in)
        os.replace(other, path)  # the name now holds another picture
        result = await ingestor.ingest(OpenedFile(handle, "pic.png"))
        assert handle.tell() == 5  # the caller's offset is left alone
        assert not handle.closed
    assert result.error is None, result.error
    assert isinstance(result.block, ImageBlock) and result.block.media is not None
    assert result.block.media.filename == "pic.png"
    assert await stored_bytes(store, result.block.media.sha256) == opened_png


async def test_an_opened_fifo_is_refused_without_waiting(
    tmp_path: Path, ingestor: Ingestor
) -> None:
    os.mkfifo(tmp_path / "pipe")
    fd = os.open(tmp_path / "pipe", os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        result = await ingestor.ingest(OpenedFile(handle, "pipe"))
    assert result.message == "pipe: it is a named pipe (FIFO), not a regular file"
