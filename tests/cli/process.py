"""Run ``parley`` as a user does, in a real process, and read what it says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def parley(
    *args: str, data_dir: Path | None = None, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """``python -m app ARGS`` with ``PARLEY_DATA_DIR`` set to ``data_dir`` (unset when
    ``None``) and ``env`` added to the environment."""
    environ = {k: v for k, v in os.environ.items() if k != "PARLEY_DATA_DIR"}
    if data_dir is not None:
        environ["PARLEY_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, env={**environ, **env},
        check=False,
    )  # fmt: skip


def new_thread_id(stderr: str) -> str:
    """The id ``parley chat`` names on stderr for the thread it started."""
    found = re.search(r"^\(thread (\S+)\)$", stderr, re.MULTILINE)
    assert found, stderr
    return found.group(1)
