"""Attachments reach each model as what it takes: the stored image to a vision model, the
extracted text to every model, and a line in place of what a model cannot take."""

from __future__ import annotations

import asyncio
import base64
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.agent import create_agent
from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.core.models.protocol import ModelInfo
from app.core.state import MediaRef, Message
from app.media import BytesSource, Ingestor
from app.providers.openai_compat import OpenAIChatModel
from app.services.attachments.compose import attach, compose
from app.services.models.access import media_loader
from app.store import Store
from tests.media import corpus
from tests.media.conftest import stored_bytes
from tests.providers.replay_server import ReplayServer, Reply, sse_events

VISION = ModelInfo(
    spec="openai:gpt-4o", name="gpt-4o", provider="openai", input_kinds=frozenset({"text", "image"})
)
TEXT_ONLY = ModelInfo(spec="openai:small", name="small", provider="openai")


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    """A replay server on 127.0.0.1 answering one chat completion."""
    server = ReplayServer().start()
    server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    try:
        yield server
    finally:
        server.stop()


async def _send(replay: ReplayServer, store: Store, info: ModelInfo, message: Message) -> list:
    model = OpenAIChatModel(
        info.name,
        base_url=f"{replay.url}/v1",
        api_key="k",
        info=info,
        media_loader=media_loader(store),
    )
    try:
        await model.agenerate([message])
    finally:
        await model.aclose()
    content: list = replay.requests[-1]["json"]["messages"][0]["content"]
    return content


async def test_a_vision_model_gets_the_stored_image_and_the_text(
    replay: ReplayServer, store: Store
) -> None:
    got = await attach(
        store.store_media,
        [BytesSource(corpus.image("BMP"), "chart.bmp"), BytesSource(b"Q3: 12", "notes.txt")],
    )
    message = compose("Explain", got.blocks, VISION)
    assert "notes" not in message.metadata
    content = await _send(replay, store, VISION, message)
    assert [p["type"] for p in content] == ["text", "image_url", "text"]
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    image = got.blocks[0]
    assert base64.b64decode(url.split(",", 1)[1]) == await stored_bytes(
        store,
        image.media.file_id,  # type: ignore[union-attr]
    )
    assert content[2]["text"] == '<document title="notes.txt">\nQ3: 12\n</document>'


async def test_a_text_only_model_gets_a_line_and_the_user_a_note(
    replay: ReplayServer, store: Store
) -> None:
    got = await attach(store.store_media, [BytesSource(corpus.image("PNG"), "cat.png")])
    message = compose("What is this?", got.blocks, TEXT_ONLY)
    assert message.metadata["notes"] == ["cat.png was left out: small cannot take images."]
    content = await _send(replay, store, TEXT_ONLY, message)
    assert content == (
        "What is this?\n\n[The user attached an image (cat.png) here, but it is not shown: "
        "small cannot take images as input.]"
    )


async def test_the_loader_names_a_blob_that_is_not_stored(store: Store) -> None:
    load = media_loader(store)
    missing = MediaRef(kind="file_id", file_id="ab" * 32)
    with pytest.raises(UserError, match=f"no media with SHA-256 {'ab' * 32} is stored"):
        await asyncio.to_thread(load, missing)


async def test_deleting_the_last_thread_frees_every_blob_of_an_attachment(
    tmp_path: Path, store: Store
) -> None:
    # an image kept as original + model copy + thumbnail, and a PDF with its preview
    ingestor = Ingestor(store.store_media)
    results = await ingestor.ingest_all(
        [BytesSource(corpus.image("TIFF"), "scan.tiff"), BytesSource(corpus.pdf(["x"]), "x.pdf")]
    )
    blocks = [r.block for r in results if r.block is not None]
    thread = await store.create_thread("with files")
    state = {"messages": [compose("see", blocks, VISION)]}
    agent = create_agent(ScriptedChatModel(["ok"]), [], checkpointer=store.checkpointer)
    await agent.ainvoke(state, {"thread_id": thread.id})

    def count(table: str) -> int:
        with sqlite3.connect(tmp_path / "parley.db") as conn:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    assert count("media") == 5
    assert count("thread_media") == 5
    await store.delete_thread(thread.id)
    assert count("media") == 0
