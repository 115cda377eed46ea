"""Choosing the embedding model: the catalogue's embedding model downloaded from a hub on
127.0.0.1 is offered for knowledge, never by the chat model picker; added GGUF files and the
bundled stand-in are offered too, and each choice names the embedder it makes."""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path

import pytest

from app.providers.llama_embed import LlamaEmbedder
from app.services.knowledge.embedders import (
    BUNDLED_EMBEDDING,
    BUNDLED_TITLE,
    embedder_for,
    embedding_choices,
)
from app.services.models.catalogue import CATALOGUE, ModelLibrary
from app.services.models.downloads import ModelDownloads
from tests.services.hub_server import HostedFile, HubServer, serving

hub = pytest.fixture(serving, name="hub")
DATA = b"GGUF" + os.urandom(99_996)
BGE = next(e for e in CATALOGUE if e.kind == "embedding")
TINY_BGE = replace(BGE, size_bytes=len(DATA), sha256=hashlib.sha256(DATA).hexdigest())
CHAT = next(e for e in CATALOGUE if e.kind == "chat")


def test_the_catalogue_has_one_small_embedding_model() -> None:
    assert [e.name for e in CATALOGUE if e.kind == "embedding"] == ["bge-small-en-v1.5"]
    assert BGE.filename.endswith(".gguf") and BGE.size_bytes < 100_000_000
    assert BGE.sha256 is not None and len(BGE.sha256) == 64


async def test_a_downloaded_embedding_model_is_offered_for_knowledge_only(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(TINY_BGE.repo, TINY_BGE.filename, HostedFile(DATA))
    library = ModelLibrary(tmp_path, hub_url=hub.url, catalogue=(CHAT, TINY_BGE))
    before = [c.spec for c in embedding_choices(library)]
    assert before == ["", BUNDLED_EMBEDDING, "download:bge-small-en-v1.5"]
    assert [c.label for c in await ModelDownloads(tmp_path, library).choices()] == [CHAT.title]
    model = await library.download(TINY_BGE.name)
    added = tmp_path / "nomic.gguf"
    added.write_bytes(b"GGUF")
    choices = embedding_choices(library, [str(added), str(tmp_path / "gone.gguf")])
    assert [(c.spec, c.title) for c in choices[2:]] == [
        (model.spec, TINY_BGE.title),
        (f"gguf:{added}", "nomic.gguf (added file)"),
    ]
    assert [c.label for c in await ModelDownloads(tmp_path, library).choices()] == [CHAT.title]


def test_each_choice_makes_its_embedder(tmp_path: Path) -> None:
    assert embedder_for("") is None
    bundled = embedder_for(BUNDLED_EMBEDDING)
    assert isinstance(bundled, LlamaEmbedder) and bundled.name == BUNDLED_TITLE
    chosen = embedder_for(f"gguf:{tmp_path / 'bge.gguf'}")
    assert isinstance(chosen, LlamaEmbedder) and chosen.name == "bge.gguf"
