"""Fixtures for ingest tests: a real store in a temporary directory and an ingestor on it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.media import Ingestor
from app.store import Store


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A fresh store in ``tmp_path``, closed after the test."""
    async with Store.open(tmp_path / "parley.db") as opened:
        yield opened


@pytest.fixture
def ingestor(store: Store) -> Ingestor:
    """An ingestor that stores media in ``store``."""
    return Ingestor(store.store_media)


async def stored_bytes(store: Store, sha: str | None) -> bytes:
    """The bytes the store holds under ``sha``."""
    assert sha is not None
    blob = await store.get_media(sha)
    assert blob is not None, f"nothing stored under {sha}"
    return blob.data
