"""Fixtures for store tests: a real database file in a temporary directory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.store import Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh store in ``tmp_path``, closed after the test."""
    async with Store.open(tmp_path / "parley.db") as opened:
        yield opened
