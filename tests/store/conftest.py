"""Fixtures for store tests: a real database file in a temporary directory."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from app.store import Store
from tests.store.helpers import mount


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh store in ``tmp_path``, closed after the test."""
    async with Store.open(tmp_path / "parley.db") as opened:
        yield opened


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB file system of its own, unmounted afterwards."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    try:
        mount("-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where))
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False, capture_output=True)
