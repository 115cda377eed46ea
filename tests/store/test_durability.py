"""Killing a process while it writes checkpoints never loses a commit nor corrupts the file."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from app.core.state import AgentState
from app.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _reported(report: Path) -> list[tuple[str, int]]:
    if not report.exists():
        return []
    lines = report.read_text().splitlines()
    return [
        (cid, int(n))
        for cid, n in (line.split() for line in lines if line.endswith(tuple("0123456789")))
    ]


def _run_until(db: Path, report: Path, at_least: int, extra_sleep: float) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.store._durability_child", str(db), str(report)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_reported(report)) < at_least:
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else ""
            assert time.monotonic() < deadline, "the writer made no progress"
            time.sleep(0.005)
        time.sleep(extra_sleep)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        if child.stderr:
            child.stderr.close()


async def test_sigkill_mid_write_keeps_every_committed_checkpoint(tmp_path: Path) -> None:
    db, report = tmp_path / "parley.db", tmp_path / "committed.txt"
    target = 0
    for round_, pause in enumerate([0.0, 0.013, 0.031, 0.002, 0.057, 0.0, 0.021]):
        target = len(_reported(report)) + 15 + 10 * round_
        _run_until(db, report, target, pause)
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            conn.close()
        committed = _reported(report)
        async with Store.open(db) as store:
            cp = store.checkpointer
            stored = {i.checkpoint_id: i.message_count for i in await cp.alist("t")}
            for cid, count in committed:
                assert stored.get(cid) == count, f"round {round_}: {cid} lost"
            for cid, count in committed[-3:] + committed[:: max(1, len(committed) // 5)]:
                got = await cp.aget("t", AgentState, cid)
                assert got is not None and len(got.state.context) == count
            latest = await cp.aget("t", AgentState)
            assert latest is not None
            await store.search("lorem")  # brings the search index up to date
            # each kill may land between a commit and its report
            assert 0 <= len(stored) - len(committed) <= round_ + 1
        conn = sqlite3.connect(db)
        try:  # the search index agrees with the messages
            conn.execute(
                "INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)"
            )
        finally:
            conn.close()
    assert target >= 100
