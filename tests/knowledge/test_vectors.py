"""Passages' vectors in a real knowledge index: made by the sync's hook and resumed, kept of
one model only, searched fused with BM25 (by sqlite-vec where it loads, else by a scan), and
the upgrade of a file written before vectors existed."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from app.knowledge import Embedder, Passage, normalise
from app.services.knowledge.embedders import embed_missing
from app.services.knowledge.sync import sync_folder
from app.store.knowledge import KnowledgeIndex, _schema, _vectors, knowledge_path
from tests.knowledge.bindings import (
    hide_sqlean,
    skip_unless_own_sqlite_cannot_load,
    skip_unless_sqlite_vec_can_load,
)
from tests.knowledge.concepts import ConceptEmbedder, write_notes
from tests.knowledge.conftest import folder_record


def _sync(index: KnowledgeIndex, root: Path, embedder: Embedder | None) -> None:
    folder = folder_record(index, root)
    cancel = threading.Event()
    hook = None
    if embedder is not None:
        index.use_embedding_model(embedder.name)

        def hook(rel: str | None) -> None:
            embed_missing(index, embedder, folder.id, rel, cancel)

    sync_folder(index, folder, lambda _: None, cancel, hook)


def _fused(index: KnowledgeIndex, how: _vectors.VectorSearch, query: str) -> list[str]:
    vector = ConceptEmbedder().embed([query])[0]
    hits = index.call(_vectors.fused_search, how, query, vector, 3, None)
    return [hit.rel for hit in hits]


def _sqlite_vec(index: KnowledgeIndex) -> _vectors.VectorSearch:
    """The index's own way, which must be sqlite-vec where a binding here can load it."""
    skip_unless_sqlite_vec_can_load()
    assert index.vectors.sqlite_vec, index.vectors.why_not
    return index.vectors


@pytest.fixture(params=["sqlite-vec", "scan"])
def how(request: pytest.FixtureRequest, index: KnowledgeIndex) -> _vectors.VectorSearch:
    """Each way the nearest vectors are found: by sqlite-vec inside SQLite (skipped, saying
    why, where no binding loads it), and by the numpy scan Parley falls back to."""
    if request.param == "sqlite-vec":
        return _sqlite_vec(index)
    return _vectors.VectorSearch(sqlite_vec=False)


def test_a_passage_close_in_meaning_is_found_without_its_words(
    index: KnowledgeIndex, how: _vectors.VectorSearch, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes")
    _sync(index, tmp_path / "notes", ConceptEmbedder())
    assert index.vector_count() == 3
    question = "is my kitten happy"
    assert [hit.rel for hit in index.search(question)] == []  # no word in common
    assert _fused(index, how, question)[0] == "pets.txt"
    assert _fused(index, how, "company earnings")[0] == "money.txt"
    # words still count: the passage with the word comes first
    assert _fused(index, how, "button wifi")[0] == "home.txt"
    assert _fused(index, how, "?!") == []  # no word, no meaning: nothing is close


def test_meaning_searches_only_the_folders_a_turn_may(
    index: KnowledgeIndex, how: _vectors.VectorSearch, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes")
    _sync(index, tmp_path / "notes", ConceptEmbedder())
    index.call(lambda c: c.execute("UPDATE folders SET agent = 'writer'"))
    vector = ConceptEmbedder().embed(["kitten"])[0]
    assert index.call(_vectors.nearest, how, vector, 5, None) == []
    assert len(index.call(_vectors.nearest, how, vector, 5, "writer")) == 3


class _ScatteredEmbedder:
    """Vectors spread at random over 16 dimensions, the same for the same text: no two
    passages are equally close to a question, so a ranking has one right order."""

    name = "scattered"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            rng = random.Random(text)
            out.append(normalise([rng.uniform(-1.0, 1.0) for _ in range(16)]))
        return out


def test_sqlite_vec_and_the_scan_rank_the_nearest_alike(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    sqlite_vec = _sqlite_vec(index)
    root = tmp_path / "many"
    root.mkdir()
    for n in range(40):
        (root / f"note-{n:02}.txt").write_text(f"Note number {n} about nothing in particular.\n")
    embedder = _ScatteredEmbedder()
    _sync(index, root, embedder)
    assert index.vector_count() == 40
    scan = _vectors.VectorSearch(sqlite_vec=False)
    texts = dict(index.call(lambda c: c.execute("SELECT id, text FROM passages").fetchall()))
    for question in ("first question", "second", "a third one"):
        vector = embedder.embed([question])[0]
        by_sqlite = index.call(_vectors.nearest, sqlite_vec, vector, 10, None)
        assert by_sqlite == index.call(_vectors.nearest, scan, vector, 10, None)
        # nearest first: each passage's cosine similarity to the question is lower than
        # the one's before it
        close = [
            sum(a * b for a, b in zip(embedder.embed([texts[pid]])[0], vector, strict=True))
            for pid in by_sqlite
        ]
        assert len(close) == 10
        assert close == sorted(close, reverse=True)


def _random_vectors(index: KnowledgeIndex, count: int, dims: int) -> dict[int, list[float]]:
    """``count`` passages in a folder of their own, each with a unit vector of ``dims`` at
    random (the same on every run); the vectors by passage id."""
    folder_id, _ = index.add_folder("/random")
    for f in range(count // 100):
        passages = [Passage(f"Passage {f}.{p}.", 0, 12, None, None) for p in range(100)]
        index.save_file(folder_id, f"f{f}.md", 1, 1, str(f), passages)
    index.use_embedding_model("random")
    rng = random.Random(5)
    ids = index.call(lambda c: [r[0] for r in c.execute("SELECT id FROM passages")])
    vectors = {pid: normalise([rng.gauss(0.0, 1.0) for _ in range(dims)]) for pid in ids}
    assert index.save_vectors("random", list(vectors.items())) == count
    return vectors


def test_the_scan_finds_the_nearest_an_exact_comparison_of_every_vector_finds(
    index: KnowledgeIndex,
) -> None:
    """The scan chooses candidates by a quantized copy a quarter the size of the vectors,
    then scores them exactly: its answer is the exact one, best first, with exact scores."""
    vectors = _random_vectors(index, 3000, 48)
    scan = _vectors.VectorSearch(sqlite_vec=False)
    rng = random.Random(9)
    for _ in range(25):
        question = normalise([rng.gauss(0.0, 1.0) for _ in range(48)])
        exact = sorted(
            (
                (pid, sum(a * b for a, b in zip(v, question, strict=True)))
                for pid, v in vectors.items()
            ),
            key=lambda scored: (-scored[1], scored[0]),
        )[:10]
        found = index.call(_vectors.nearest_scored, scan, question, 10, None)
        assert [pid for pid, _ in found] == [pid for pid, _ in exact]
        # the stored float32 vectors' own scores, not the quantized copy's (off by 1e-3)
        assert [score for _, score in found] == pytest.approx([s for _, s in exact], abs=1e-5)
    held = scan._cached
    assert held is not None and len(held.ids) == 3000
    assert held.codes.nbytes == 3000 * 48  # a byte a number, where the table holds four


def test_from_scan_from_vectors_on_the_scan_finds_them_where_sqlite_vec_loads(
    index: KnowledgeIndex,
) -> None:
    """sqlite-vec compares every vector in SQLite, a search of 100,000 taking 170 ms: from
    ``SCAN_FROM`` vectors on the held copy is scanned instead, finding the same passages."""
    loaded = _sqlite_vec(index)
    assert loaded.scan_from == _vectors.SCAN_FROM
    vectors = _random_vectors(index, 300, 32)
    below = _vectors.VectorSearch(sqlite_vec=True, scan_from=301)
    at = _vectors.VectorSearch(sqlite_vec=True, scan_from=300)
    rng = random.Random(4)
    for _ in range(10):
        question = normalise([rng.gauss(0.0, 1.0) for _ in range(32)])
        by_sqlite = index.call(_vectors.nearest, below, question, 8, None)
        assert index.call(_vectors.nearest, at, question, 8, None) == by_sqlite
    assert below._cached is None  # nothing held: sqlite-vec found them
    assert at._cached is not None and len(at._cached.ids) == len(vectors)


def test_the_scan_keeps_the_vectors_in_memory_from_search_to_search_until_they_change(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    """Reading 100,000 vectors again took a search by meaning 250 ms: a search's own
    scratch writes (cutting the question into words) must not count as a change."""
    write_notes(tmp_path / "notes")
    _sync(index, tmp_path / "notes", ConceptEmbedder())
    scan = _vectors.VectorSearch(sqlite_vec=False)
    assert _fused(index, scan, "is my kitten happy")[0] == "pets.txt"
    kept = scan._cached
    assert kept is not None and len(kept[0]) == 3
    assert _fused(index, scan, "company earnings")[0] == "money.txt"
    assert scan._cached is kept  # not read again
    (tmp_path / "notes" / "more.txt").write_text("My puppy wags its tail.\n")
    _sync(index, tmp_path / "notes", ConceptEmbedder())
    assert _fused(index, scan, "company earnings")[0] == "money.txt"
    assert scan._cached is not kept and len(scan._cached[0]) == 4  # read again: it changed


def test_passages_without_vectors_get_them_on_the_next_sync(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes")
    _sync(index, tmp_path / "notes", None)  # as if killed before any vector was made
    assert index.vector_count() == 0
    embedder = ConceptEmbedder()
    _sync(index, tmp_path / "notes", embedder)
    assert index.vector_count() == 3
    assert embedder.calls == 3
    _sync(index, tmp_path / "notes", embedder)
    assert embedder.calls == 3  # nothing is made twice


def test_another_model_drops_the_vectors_and_makes_them_again(
    index: KnowledgeIndex, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes")
    _sync(index, tmp_path / "notes", ConceptEmbedder("first"))
    assert index.use_embedding_model("second") is True
    assert (index.vector_count(), index.embedding_model()) == (0, "second")
    # vectors of the old model arriving late are not kept
    assert index.save_vectors("first", [(1, [1.0, 0, 0, 0, 0, 0])]) == 0
    _sync(index, tmp_path / "notes", ConceptEmbedder("second"))
    assert index.vector_count() == 3
    assert index.use_embedding_model("second") is False


def test_a_file_changed_or_removed_takes_its_vectors_with_it(
    index: KnowledgeIndex, how: _vectors.VectorSearch, tmp_path: Path
) -> None:
    root = tmp_path / "notes"
    write_notes(root)
    embedder = ConceptEmbedder()
    _sync(index, root, embedder)
    (root / "pets.txt").unlink()
    (root / "money.txt").write_text("The oven must be hot before the dough goes in.\n")
    _sync(index, root, embedder)
    assert index.vector_count() == 2
    assert _fused(index, how, "bake a cake")[0] == "money.txt"
    assert "pets.txt" not in _fused(index, how, "kitten")


def test_where_sqlite_cannot_load_extensions_meaning_is_found_by_a_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skip_unless_own_sqlite_cannot_load()
    hide_sqlean(monkeypatch)  # as on this Python without the sqlean.py package
    index = KnowledgeIndex.open_data_dir(tmp_path / "data")
    try:
        assert index.vectors.sqlite_vec is False
        assert index.vectors.why_not == "this Python's SQLite cannot load extensions"
        write_notes(tmp_path / "notes")
        _sync(index, tmp_path / "notes", ConceptEmbedder())
        assert _fused(index, index.vectors, "is my kitten happy")[0] == "pets.txt"
    finally:
        index.close()


_V1 = "BEGIN;" + _schema._SCHEMA + "PRAGMA user_version = 1;COMMIT;"


def test_a_version_1_index_is_upgraded_keeping_its_passages(tmp_path: Path) -> None:
    path = knowledge_path(tmp_path / "data")
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(_V1)
    conn.execute("INSERT INTO folders (path, added_at) VALUES (?, 0)", (str(tmp_path),))
    conn.execute(
        "INSERT INTO files (folder_id, rel, size, mtime_ns, sha256, status, indexed_at) "
        "VALUES (1, 'a.txt', 5, 1, 'x', 'indexed', 0)"
    )
    conn.execute(
        "INSERT INTO passages (file_id, start, \"end\", text) VALUES (1, 0, 5, 'lighthouse')"
    )
    conn.close()
    index = KnowledgeIndex.open_data_dir(tmp_path / "data")
    try:
        version = index.call(lambda c: c.execute("PRAGMA user_version").fetchone()[0])
        assert version == _schema.SCHEMA_VERSION
        assert [hit.rel for hit in index.search("lighthouse")] == ["a.txt"]
        # the file's path is searched too: its passages were given it on the upgrade
        assert [hit.rel for hit in index.search("where is a")] == ["a.txt"]
        assert index.missing_vectors(1) == [(1, "lighthouse")]
        index.use_embedding_model("m")
        assert index.save_vectors("m", [(1, [1.0, 0.0])]) == 1
        assert index.vector_count() == 1
        # a file saved after the upgrade is indexed once: no trigger of version 1 is left
        index.save_file(1, "b.txt", 6, 1, "y", [Passage("the lighthouse keeper", 0, 21)])
        assert [hit.rel for hit in index.search("keeper")] == ["b.txt"]
        index.call(
            lambda c: c.execute(
                "INSERT INTO passages_fts(passages_fts, rank) VALUES ('integrity-check', 1)"
            )
        )
        merge = index.call(
            lambda c: c.execute(
                "SELECT v FROM passages_fts_config WHERE k = 'automerge'"
            ).fetchone()
        )
        assert merge == (16,)  # as a new index's (tests/knowledge/test_index.py)
    finally:
        index.close()


def test_loading_sqlite_vec_does_not_bring_numpy_into_the_window(tmp_path: Path) -> None:
    """sqlite-vec's module imports numpy for a helper Parley never uses; opening the index
    (as the window does at launch) loads the extension without it."""
    skip_unless_sqlite_vec_can_load()
    script = (
        "import sys; from app.store.knowledge import KnowledgeIndex\n"
        f"index = KnowledgeIndex.open_data_dir({str(tmp_path)!r})\n"
        "print(index.vectors.sqlite_vec, 'numpy' in sys.modules); index.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["True", "False"], done.stderr
