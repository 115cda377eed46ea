"""A paused run resumes in a different process, from the SQLite file alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _child(db: Path, action: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.services._approval_child", str(db), action, "thread-1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_interrupt_in_one_process_resumes_in_another(tmp_path: Path) -> None:
    db = tmp_path / "parley.db"
    first = _child(db, "start")
    assert first["status"] == "interrupted"
    assert len(first["interrupts"]) == 1
    second = _child(db, "resume")
    assert second["status"] == "completed"
    assert second["results"] == ["sent to a@b.c: hi"]
    assert second["texts"][-1] == "Email sent."
