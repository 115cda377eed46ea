"""A client that goes away stops the generation it asked for: streamed (it closes the
stream after a few pieces, by either SDK) or whole (it stops waiting)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from app.core.models.protocol import ModelInfo
from app.core.models.scripted import ScriptedChatModel
from app.core.state.message import Message
from app.services.network import saved_connections
from tests.server.harness import OneModel, serving

PIECES = 400
"""How many pieces the long answer streams in."""


class Watched:
    """A scripted model's long answer, counting the pieces it made and noting when its
    stream was closed."""

    def __init__(self) -> None:
        self.model = ScriptedChatModel([{"text": "wave " * PIECES}] * 4, chunk_size=5, delay=0.02)
        self.made = 0
        self.closed = threading.Event()

    @property
    def info(self) -> ModelInfo:
        return self.model.info

    async def agenerate(self, messages: Sequence[Message], **options: Any) -> Message:
        raise AssertionError("the server streams from the model")

    async def astream(self, messages: Sequence[Message], **options: Any) -> AsyncIterator[Message]:
        try:
            async for chunk in self.model.astream(messages, **options):
                self.made += 1
                yield chunk
        finally:
            self.closed.set()


ASK = [{"role": "user", "content": "Tell me about waves."}]


def gone_in_ledger(data_dir: Path) -> bool:
    """Whether the ledger's last request row says the client went away."""
    rows = asyncio.run(saved_connections(data_dir, limit=10))
    last = next(row for row in rows if row.kind == "request")
    return last.purpose.endswith("by key ci-bot, model parley: client went away")


def test_closing_a_stream_stops_the_generation(tmp_path: Path) -> None:
    watched = Watched()
    with serving(tmp_path, models=OneModel(watched)) as served:
        api = openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)
        with api, api.chat.completions.create(model="parley", messages=ASK, stream=True) as stream:
            seen = [next(stream) for _ in range(5)]
        assert "".join(c.choices[0].delta.content or "" for c in seen).startswith("wave wave")
        assert watched.closed.wait(30), "the model's stream was never closed"
    assert watched.made < PIECES  # it stopped well before the end
    assert gone_in_ledger(served.data_dir)


def test_closing_an_anthropic_stream_stops_the_generation(tmp_path: Path) -> None:
    watched = Watched()
    with serving(tmp_path, models=OneModel(watched)) as served:
        root = served.base_url.removesuffix("/v1")
        claude = anthropic.Anthropic(base_url=root, api_key=served.key, max_retries=0)
        with (
            claude,
            claude.messages.stream(model="parley", max_tokens=4096, messages=ASK) as stream,
        ):
            pieces = stream.text_stream
            seen = "".join(next(pieces) for _ in range(3))
        assert seen.startswith("wave wave")
        assert watched.closed.wait(30), "the model's stream was never closed"
    assert watched.made < PIECES  # it stopped well before the end
    assert gone_in_ledger(served.data_dir)


def test_a_client_that_stops_waiting_stops_a_whole_reply(tmp_path: Path) -> None:
    watched = Watched()
    with serving(tmp_path, models=OneModel(watched)) as served:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(
                f"{served.base_url}/chat/completions",
                json={"model": "parley", "messages": ASK},
                headers={"Authorization": f"Bearer {served.key}"},
                timeout=httpx.Timeout(30, read=0.5),
            )
        assert watched.closed.wait(30), "the model's stream was never closed"
    assert watched.made < PIECES
    assert gone_in_ledger(served.data_dir)
