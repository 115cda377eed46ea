"""Memories found by meaning where meaning search is on: a memory phrased unlike the question
(no word shared) is found by meaning and not by words, both in a search and in the memories
chosen for a model call; an edit gives it its new meaning; older memories get their vectors
when memories are next searched; and nothing changes while search is by words alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.core.models import ScriptedChatModel
from app.services.workspace import Workspace
from tests.knowledge.concepts import ConceptEmbedder

CAT = "Our cat purred on the warm windowsill all afternoon"
MONEY = "Quarterly revenue rose twelve percent in Europe"
ROUTER = "Hold the button behind the router for ten seconds"


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[Workspace]:
    def resolve(spec: str) -> Any:
        return ScriptedChatModel([])

    opened = await Workspace.open(tmp_path, resolve_model=resolve, secret_resolver=lambda r: "")
    yield opened
    await opened.aclose()


async def test_a_memory_phrased_unlike_the_question_is_found_by_meaning(ws: Workspace) -> None:
    embedder = ConceptEmbedder()
    ws.knowledge.use_embedder(embedder, "gguf:/models/concepts.gguf", resync=False)
    cat = await ws.memory.add(CAT)
    await ws.memory.add(MONEY)
    await ws.memory.add(ROUTER)
    assert embedder.calls == 3  # each memory got its vector as it was kept
    # no word of the question is in the memory: words alone find nothing
    ws.knowledge.use_embedder(None)
    assert await ws.memory.search("is my kitten happy") == []
    assert (await ws.memory.choose("is my kitten happy", None)).used == ()
    ws.knowledge.use_embedder(embedder, "gguf:/models/concepts.gguf", resync=False)
    found = await ws.memory.search("is my kitten happy")
    assert [m.text for m in found] == [CAT]  # the others are under the relevance floor
    assert embedder.calls == 4  # the vectors were kept: only the question was embedded
    chosen = await ws.memory.choose("is my kitten happy", None)
    assert [m.id for m in chosen.used] == [cat.id]
    assert [m.text for m in await ws.memory.search("company earnings")] == [MONEY]


async def test_an_edit_gives_a_memory_its_new_meaning(ws: Workspace) -> None:
    ws.knowledge.use_embedder(ConceptEmbedder(), "gguf:/models/concepts.gguf", resync=False)
    kept = await ws.memory.add(CAT)
    await ws.memory.edit(kept.id, "The harbour floods at the highest tides")
    assert await ws.memory.search("kitten") == []
    assert [m.id for m in await ws.memory.search("ocean")] == [kept.id]


async def test_older_memories_get_their_vectors_on_the_first_search(ws: Workspace) -> None:
    await ws.memory.add(CAT)  # kept while search was by words alone: no vector
    private = await ws.memory.add(MONEY, local_only=True)
    assert await ws.memory.search("kitten") == []
    embedder = ConceptEmbedder()
    ws.knowledge.use_embedder(embedder, "gguf:/models/concepts.gguf", resync=False)
    assert [m.text for m in await ws.memory.search("kitten")] == [CAT]
    assert embedder.calls == 3  # both memories, then the question
    assert await ws.memory.search("kitten") != []
    assert embedder.calls == 4  # the vectors are kept: only the question again
    # a local-only memory found by meaning is still held back from a remote model
    remote = await ws.memory.choose("sales figures", None, remote=True)
    assert remote.used == () and [m.id for m in remote.held_back] == [private.id]
    local = await ws.memory.choose("sales figures", None)
    assert [m.id for m in local.used] == [private.id]


async def test_another_embedding_model_makes_the_vectors_again(ws: Workspace) -> None:
    ws.knowledge.use_embedder(ConceptEmbedder("v1"), "gguf:/models/v1.gguf", resync=False)
    await ws.memory.add(CAT)
    second = ConceptEmbedder("v2")
    ws.knowledge.use_embedder(second, "gguf:/models/v2.gguf", resync=False)
    assert [m.text for m in await ws.memory.search("feline")] == [CAT]
    assert second.calls == 2  # the memory again with its own model, then the question
