"""Killing the indexing process mid-way and starting again finishes the folder without
reading again the files that were finished."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from app.services.knowledge.sync import sync_folder
from app.store.knowledge import KnowledgeIndex, knowledge_path
from tests.media import corpus as media

FILES = 120


def _done(db: Path) -> dict[str, tuple[int, ...]]:
    """Each finished file's passage ids, read from outside the indexing process."""
    if not db.exists():
        return {}
    try:
        conn = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return {}
    try:
        rows = conn.execute(
            "SELECT f.rel, p.id FROM files f JOIN passages p ON p.file_id = f.id "
            "WHERE f.status = 'indexed' ORDER BY p.id"
        ).fetchall()
    except sqlite3.Error:
        return {}
    finally:
        conn.close()
    out: dict[str, tuple[int, ...]] = {}
    for rel, pid in rows:
        out[rel] = (*out.get(rel, ()), pid)
    return out


def test_a_killed_index_resumes_without_reading_finished_files(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    pages = [f"Page {n} of the manual describes valve {n} in detail." for n in range(40)]
    for n in range(FILES):
        (root / f"manual-{n:03}.pdf").write_bytes(media.pdf(pages))
    data = tmp_path / "data"
    db = knowledge_path(data)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.knowledge._index_child", str(data), str(root.resolve())],
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        while len(_done(db)) < 5:
            assert child.poll() is None, "the indexing process ended before it was killed"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
    before = _done(db)
    assert 5 <= len(before) < FILES
    index = KnowledgeIndex.open_data_dir(data)
    try:
        (record,) = index.folders()
        result = sync_folder(index, record, lambda p: None, threading.Event())
        after = _done(db)
        assert len(after) == FILES
        assert result.read == FILES - len(before)  # only the unfinished ones were read
        for rel, ids in before.items():
            assert after[rel] == ids  # the same passages, not written again
        assert index.search("valve 7")[0].page is not None
    finally:
        index.close()
