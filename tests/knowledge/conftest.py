"""What the knowledge tests share: an index in a temporary data folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store.knowledge import FolderRecord, KnowledgeIndex


@pytest.fixture
def index(tmp_path: Path) -> Iterator[KnowledgeIndex]:
    """A knowledge index in ``tmp_path/data``, closed after the test."""
    opened = KnowledgeIndex.open_data_dir(tmp_path / "data")
    yield opened
    opened.close()


def folder_record(index: KnowledgeIndex, root: Path) -> FolderRecord:
    """Add ``root`` to ``index`` as a knowledge folder and give its record."""
    folder_id, _ = index.add_folder(str(root.resolve()))
    return next(f for f in index.folders() if f.id == folder_id)
