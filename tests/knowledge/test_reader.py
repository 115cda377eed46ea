"""The reader's child process: a file that crashes it, keeps it busy or needs more memory
than it may have (a Word bomb) is listed with its reason and the rest of the folder is indexed
by a new child; a cancel stops it; a big file's passages come back whole; offline, it looks
nothing up; it ends when its parent is killed."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from app.core.netgate import install
from app.media.errors import Cancelled, IngestError
from app.services.knowledge.reader import PassageReader, ReaderUnavailable
from app.services.knowledge.sync import SyncResult, sync_folder
from app.store.knowledge import KnowledgeIndex
from tests.core.children import child_outlives_killed_parent
from tests.knowledge._readers import troublesome
from tests.knowledge.conftest import folder_record
from tests.media import bombs


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_file_that_crashes_or_hangs_the_reader_is_listed_and_the_rest_indexed(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    root = _write(
        tmp_path / "docs",
        {
            "a-first.md": "# Tides\n\nThe harbour floods at the spring tide.",
            "crash.md": "anything",
            "hang.md": "anything",
            "z-last.md": "# Bridges\n\nThe copper bridge was painted in March.",
        },
    )
    reader = PassageReader(troublesome, lambda size: 2.0)
    try:
        result = sync_folder(
            index, folder_record(index, root), lambda p: None, threading.Event(), reader=reader
        )
    finally:
        reader.close()
    assert (result.read, result.skipped) == (2, 2)
    reasons = {s.rel: s.reason for s in index.folders()[0].skipped}
    assert reasons == {
        "crash.md": "the reader stopped while reading it; it may be damaged",
        "hang.md": "reading it took too long, so it was stopped; it may be damaged",
    }
    assert index.search("spring tide")[0].rel == "a-first.md"
    assert index.search("copper bridge")[0].rel == "z-last.md"  # read by a fresh child
    assert reader.started == 3
    assert not reader.running


def test_cancel_stops_the_reader_busy_with_a_file(index: KnowledgeIndex, tmp_path: Path) -> None:
    root = _write(tmp_path / "docs", {"hang.md": "anything", "later.md": "Never read."})
    reader = PassageReader(troublesome, lambda size: 3600.0)
    cancel = threading.Event()
    results: list[SyncResult] = []
    record = folder_record(index, root)
    worker = threading.Thread(
        target=lambda: results.append(
            sync_folder(index, record, lambda p: None, cancel, reader=reader)
        )
    )
    try:
        worker.start()
        while not reader.running:
            threading.Event().wait(0.01)
        cancel.set()
        worker.join(60)
    finally:
        reader.close()
    assert results and results[0].cancelled
    assert index.file_rows(record.id) == {}  # the hung file is not listed as unreadable
    assert not reader.running


def test_a_big_file_comes_back_in_parts_and_whole() -> None:
    paragraphs = [f"Paragraph {n} tells of lighthouse {n} and its keeper." for n in range(6000)]
    text = "\n\n".join(paragraphs)
    reader = PassageReader()
    try:
        passages = reader.passages(text.encode(), "big.txt", 20_000_000, threading.Event())
    finally:
        reader.close()
    assert len(passages) > 256  # more than one part
    assert [p.text for p in passages] == [text[p.start : p.end] for p in passages]
    assert "lighthouse 0 " in passages[0].text and "lighthouse 5999 " in passages[-1].text


def test_a_closed_reader_reads_nothing() -> None:
    reader = PassageReader()
    reader.close()
    with pytest.raises(Cancelled):
        reader.passages(b"some text", "a.txt", 1000, threading.Event())
    assert reader.started == 0


def test_a_reader_that_cannot_start_fails_the_sync_and_lists_no_file(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    root = _write(tmp_path / "docs", {"a.md": "The harbour floods at the spring tide."})
    # a reader the child cannot be handed (not a module-level function) never starts
    reader = PassageReader(lambda data, name, limit: [])
    record = folder_record(index, root)
    try:
        with pytest.raises(ReaderUnavailable, match="could not be started"):
            sync_folder(index, record, lambda p: None, threading.Event(), reader=reader)
    finally:
        reader.close()
    assert index.file_rows(record.id) == {}  # the file is not blamed: the next sync reads it
    assert sync_folder(index, record, lambda p: None, threading.Event()).read == 1


def test_a_word_bomb_and_a_file_over_the_memory_cap_are_listed_and_the_rest_indexed(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    root = _write(
        tmp_path / "docs",
        {
            "a-first.md": "# Tides\n\nThe harbour floods at the spring tide.",
            "greedy.md": "anything",
            "z-last.md": "# Bridges\n\nThe copper bridge was painted in March.",
        },
    )
    (root / "bomb.docx").write_bytes(bombs.many_elements())
    reader = PassageReader(troublesome)
    try:
        result = sync_folder(
            index, folder_record(index, root), lambda p: None, threading.Event(), reader=reader
        )
    finally:
        reader.close()
    assert (result.read, result.skipped) == (2, 2)
    reasons = {s.rel: s.reason for s in index.folders()[0].skipped}
    assert reasons == {
        "bomb.docx": "it is a Word document whose parts hold over 1,000,000 XML elements "
        "(a zip bomb?)",
        "greedy.md": "reading it needs more than the 1024 MiB of memory the document reader "
        "may use (a zip bomb?)",
    }
    assert index.search("spring tide")[0].rel == "a-first.md"
    assert index.search("copper bridge")[0].rel == "z-last.md"  # read by a fresh child
    assert reader.started == 2


def test_offline_the_reader_child_refuses_lookups(tmp_path: Path) -> None:
    gate = install()
    was = gate.offline
    gate.offline = True
    reader = PassageReader(troublesome)
    try:
        with pytest.raises(IngestError) as refused:
            reader.passages(b"anything", "lookup.md", 1000, threading.Event())
    finally:
        reader.close()
        gate.offline = was
    assert refused.value.reason.startswith(
        "OfflineRefusal: Parley is offline, so it did not connect to example.com:443."
    )


def test_a_reader_child_started_online_is_replaced_when_offline_mode_comes_on() -> None:
    gate = install()
    was = gate.offline
    gate.offline = False
    reader = PassageReader(troublesome)
    try:
        reader.passages(b"some text", "a.txt", 1000, threading.Event())
        gate.offline = True
        with pytest.raises(IngestError) as refused:
            reader.passages(b"anything", "lookup.md", 1000, threading.Event())
    finally:
        reader.close()
        gate.offline = was
    assert refused.value.reason.startswith("OfflineRefusal: Parley is offline")
    assert reader.started == 2


_KILLED_PARENT = """
import sys, threading
from app.services.knowledge.reader import PassageReader
from tests.knowledge._readers import troublesome
reader = PassageReader(troublesome, lambda size: 3600.0)
reader.passages(b"x", "a.txt", 1000, threading.Event())
print(reader._process.pid, flush=True)
reader.passages(b"x", "hang.md", 1000, threading.Event())
"""


def test_a_busy_reader_child_ends_when_its_parent_is_killed(tmp_path: Path) -> None:
    assert not child_outlives_killed_parent(_KILLED_PARENT, tmp_path)


def test_ctrl_c_in_the_terminal_leaves_the_reader_child_to_its_parent() -> None:
    reader = PassageReader()
    try:
        reader.passages(b"The harbour floods.", "a.txt", 1000, threading.Event())
        assert reader._process is not None
        os.kill(reader._process.pid, signal.SIGINT)  # as the terminal sends it to the group
        passages = reader.passages(b"The copper bridge.", "b.txt", 1000, threading.Event())
    finally:
        reader.close()
    assert [p.text for p in passages] == ["The copper bridge."]
    assert reader.started == 1
