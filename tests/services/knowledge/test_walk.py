"""Walking a knowledge folder that is very deep: the walk and the sync finish, what lies
within the depth limit is indexed, and the deeper part is listed with its reason."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.services.knowledge.sync import sync_folder
from app.services.knowledge.walk import MAX_DEPTH, walk_folder
from app.store.knowledge import KnowledgeIndex

MARKED = (1, 30, MAX_DEPTH, MAX_DEPTH + 1, 1200)
"""The levels that hold a file (``atN.txt``, mentioning ``markerN``)."""


@pytest.fixture
def deep() -> Iterator[Path]:
    """A folder 1,200 levels deep (one short name per level), made a level at a time. It
    lies outside pytest's temporary folders and is removed here level by level: a recursive
    removal (``shutil.rmtree``, which pytest uses on its old temporary folders) would end
    in a recursion error on it."""
    root = Path(tempfile.mkdtemp(prefix="parley-deep-"))
    levels = [root]
    try:
        for depth in range(1, 1201):
            levels.append(levels[-1] / "d")
            levels[-1].mkdir()
            if depth in MARKED:
                (levels[-1] / f"at{depth}.txt").write_text(f"Level {depth} holds marker{depth}.\n")
        yield root
    finally:
        for level in reversed(levels):
            for child in level.glob("*.txt"):
                child.unlink()
            level.rmdir()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[KnowledgeIndex]:
    opened = KnowledgeIndex.open_data_dir(tmp_path / "data")
    yield opened
    opened.close()


def _at(depth: int) -> str:
    return "/".join(["d"] * depth)


def test_a_1200_level_tree_is_walked_to_the_limit_and_the_rest_is_listed(
    deep: Path, index: KnowledgeIndex
) -> None:
    descriptors = len(os.listdir("/proc/self/fd"))
    walk = walk_folder(deep)
    assert len(os.listdir("/proc/self/fd")) == descriptors  # each folder closed after it
    assert len(walk.folders) == MAX_DEPTH + 1  # "." and one folder per level
    assert [f.rel for f in walk.found] == [f"{_at(n)}/at{n}.txt" for n in (1, 30, MAX_DEPTH)]
    assert walk.refused == {
        _at(MAX_DEPTH + 1): f"it lies more than {MAX_DEPTH} folders deep in the knowledge "
        "folder, so Parley does not look inside it"
    }

    folder_id, _ = index.add_folder(str(deep.resolve()))
    (record,) = index.folders()
    result = sync_folder(index, record, lambda _: None, threading.Event())
    assert (result.read, result.skipped, result.cancelled) == (3, 1, False)
    rows = index.file_rows(folder_id)
    assert {rel: row.status for rel, row in rows.items()} == {
        f"{_at(1)}/at1.txt": "indexed",
        f"{_at(30)}/at30.txt": "indexed",
        f"{_at(MAX_DEPTH)}/at{MAX_DEPTH}.txt": "indexed",
        _at(MAX_DEPTH + 1): "skipped",
    }
    assert [h.rel for h in index.search(f"marker{MAX_DEPTH}")] == [
        f"{_at(MAX_DEPTH)}/at{MAX_DEPTH}.txt"
    ]
    assert index.search(f"marker{MAX_DEPTH + 1}") == []
    (shown,) = index.folders()[0].skipped
    assert "more than 64 folders deep" in str(shown)
