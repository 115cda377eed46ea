"""The window survives the millions of Qt calls a long session makes (PySide6 6.12 on
Python 3.11 drops a reference to None on each call that returns nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CALLS = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
{guard}
from PySide6.QtGui import QPen
pen = QPen()
for _ in range(300_000):
    pen.setWidth(1)
print("alive")
"""


def _run(guard: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CALLS.format(guard=guard)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_many_calls_that_return_nothing_do_not_abort_the_app() -> None:
    done = _run("import app.ui")
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "alive"


def test_without_the_guard_the_same_calls_abort_on_this_python() -> None:
    done = _run("")
    if sys.version_info >= (3, 12):
        assert done.returncode == 0  # None is immortal there
    else:
        assert done.returncode != 0 and "deallocating None" in done.stderr
