"""For the child-process tests: run a host script as a real process and kill it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the ``app`` and ``tests`` packages under test."""


def host_env() -> dict[str, str]:
    """The environment a host script runs in: it imports Parley from :data:`ROOT`."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def alive(pid: int) -> bool:
    """Whether process ``pid`` is running (an unreaped zombie counts as ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def child_outlives_killed_parent(script: str, tmp_path: Path, settle: float = 1.0) -> bool:
    """Run ``script`` (it prints its child's pid on its first line, then keeps the child
    busy), kill it with SIGKILL once the child has had ``settle`` seconds to get to work, and
    say whether the child was still running ten seconds later (it is then killed, so nothing
    is left behind)."""
    host = tmp_path / "host.py"
    host.write_text(script, encoding="utf-8")
    parent = subprocess.Popen(
        [sys.executable, str(host)], cwd=tmp_path, env=host_env(), stdout=subprocess.PIPE
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        time.sleep(settle)  # the parent hands the child its work
        assert alive(child)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait(30)
        if parent.stdout is not None:
            parent.stdout.close()
    give_up = time.monotonic() + 10
    while alive(child) and time.monotonic() < give_up:
        time.sleep(0.05)
    if not alive(child):
        return False
    os.kill(child, signal.SIGKILL)
    return True
