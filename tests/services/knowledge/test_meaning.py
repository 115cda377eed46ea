"""The knowledge service searching by meaning: the embedding model chosen, vectors made in the
background, fused search, the line that says which search is in use, and a model that fails."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from app.services.bus import EventBus
from app.services.events import KnowledgeProgress, WorkspaceEvent
from app.services.knowledge import KnowledgeService
from tests.knowledge.bindings import (
    hide_sqlean,
    skip_unless_own_sqlite_cannot_load,
    skip_unless_sqlite_vec_can_load,
)
from tests.knowledge.concepts import ConceptEmbedder, write_notes

EVENTS: list[WorkspaceEvent] = []


@pytest.fixture
async def knowledge(tmp_path: Path) -> AsyncIterator[KnowledgeService]:
    bus = EventBus()
    EVENTS.clear()
    bus.subscribe(EVENTS.append)
    opened = await KnowledgeService.open(tmp_path / "data", bus, watch=False)
    yield opened
    await opened.aclose()


async def test_with_an_embedding_model_search_finds_by_meaning(
    knowledge: KnowledgeService, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes")
    assert knowledge.search_mode() == "Search: words (BM25)"
    knowledge.use_embedder(ConceptEmbedder(), "gguf:/models/concepts.gguf")
    assert knowledge.search_mode() == "Search: words and meaning (concepts-v1)"
    await knowledge.add_folder(tmp_path / "notes")
    await knowledge.wait_idle()
    sources = await knowledge.sources("is my kitten happy")
    assert sources[0]["file"] == "pets.txt"
    record = (await knowledge.folders())[0]
    assert (record.passages, record.vectors) == (3, 3)
    knowledge.use_embedder(None)
    await knowledge.wait_idle()
    assert await knowledge.sources("is my kitten happy") == []
    assert knowledge.search_mode() == "Search: words (BM25)"


async def test_choosing_a_model_later_gives_existing_passages_vectors(
    knowledge: KnowledgeService, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes")
    await knowledge.add_folder(tmp_path / "notes")
    await knowledge.wait_idle()
    embedder = ConceptEmbedder()
    EVENTS.clear()
    knowledge.use_embedder(embedder)
    await knowledge.wait_idle()
    assert embedder.calls == 3
    told = [
        (e.passages_done, e.passages_total)
        for e in EVENTS
        if isinstance(e, KnowledgeProgress) and e.passages_total
    ]
    assert told == [(0, 3), (3, 3)]  # the three notes make one batch
    assert (await knowledge.sources("company earnings"))[0]["file"] == "money.txt"


class Broken:
    """An embedding model whose file is gone."""

    name = "gone.gguf"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise OSError("the embedding model gone.gguf is missing")


async def test_a_failing_model_leaves_words_search_and_says_why(
    knowledge: KnowledgeService, tmp_path: Path
) -> None:
    write_notes(tmp_path / "notes")
    knowledge.use_embedder(Broken())
    await knowledge.add_folder(tmp_path / "notes")
    await knowledge.wait_idle()
    assert knowledge.search_mode() == (
        "Search: words (BM25); meaning is off: the embedding model gone.gguf is missing"
    )
    assert [s["file"] for s in await knowledge.sources("router")] == ["home.txt"]
    record = (await knowledge.folders())[0]
    assert (record.files, record.passages, record.vectors) == (3, 3, 0)


async def test_the_workspace_follows_the_setting_and_a_missing_file_is_said(
    tmp_path: Path,
) -> None:
    from app.services.workspace import Workspace

    write_notes(tmp_path / "notes")
    gone = tmp_path / "models" / "bge.gguf"

    async def opened() -> Workspace:
        return await Workspace.open(
            tmp_path / "data", resolve_model=lambda spec: None, secret_resolver=lambda ref: ""
        )

    ws = await opened()
    try:
        assert ws.knowledge.search_mode() == "Search: words (BM25)"
        assert ws.knowledge.choose_embedding is not None
        await ws.knowledge.choose_embedding(f"gguf:{gone}", None)
        assert ws.knowledge.search_mode() == "Search: words and meaning (bge.gguf)"
        await ws.knowledge.add_folder(tmp_path / "notes")
        await ws.knowledge.wait_idle()
        assert ws.knowledge.search_mode() == (
            f"Search: words (BM25); meaning is off: the embedding model {gone} is missing; "
            "choose another in Settings > Knowledge"
        )
        assert [s["file"] for s in await ws.knowledge.sources("router")] == ["home.txt"]
    finally:
        await ws.aclose()
    ws = await opened()  # the choice is kept
    try:
        assert ws.knowledge.embedding_spec == f"gguf:{gone}"
        await ws.settings.update(knowledge_embedding="")
        assert ws.knowledge.search_mode() == "Search: words (BM25)"
    finally:
        await ws.aclose()


async def test_vectors_compared_by_sqlite_vec_need_no_note(knowledge: KnowledgeService) -> None:
    skip_unless_sqlite_vec_can_load()
    assert knowledge.vector_note is None
    knowledge.use_embedder(ConceptEmbedder())
    assert knowledge.vector_note is None


async def test_vectors_compared_by_a_scan_are_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    skip_unless_own_sqlite_cannot_load()
    hide_sqlean(monkeypatch)  # as on this Python without the sqlean.py package
    knowledge = await KnowledgeService.open(tmp_path / "data", EventBus(), watch=False)
    try:
        assert knowledge.vector_note is None  # no model chosen: nothing is compared
        knowledge.use_embedder(ConceptEmbedder())
        assert knowledge.vector_note == (
            "Vectors are compared by a scan in memory, not by sqlite-vec: this Python's SQLite "
            "cannot load extensions."
        )
    finally:
        await knowledge.aclose()
