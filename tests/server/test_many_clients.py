"""Many clients at once: the model answers them in turn, up to a bounded number waiting; a
request finding the queue full is refused at once with 429 and Retry-After, in the error
shape of the API it asked, and the queue takes requests again once it has room."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from app.core.models.protocol import ModelInfo
from app.core.models.scripted import ScriptedChatModel
from app.core.state.message import Message
from tests.server.harness import OneModel, serving

ANSWER = "The sea rises twice a day as the earth turns under the moon's pull."
ASK = [{"role": "user", "content": "Why are there tides?"}]


class Gated:
    """A slow scripted model: each answer waits until the gate opens, then comes in pieces."""

    def __init__(self, turns: int = 20) -> None:
        self.model = ScriptedChatModel([{"text": ANSWER}] * turns, chunk_size=8, delay=0.01)
        self.gate = threading.Event()
        self.at_once = 0
        self.most_at_once = 0

    @property
    def info(self) -> ModelInfo:
        return self.model.info

    async def agenerate(self, messages: Sequence[Message], **options: Any) -> Message:
        raise AssertionError("the server streams from the model")

    async def astream(self, messages: Sequence[Message], **options: Any) -> AsyncIterator[Message]:
        self.at_once += 1
        self.most_at_once = max(self.most_at_once, self.at_once)
        try:
            assert await asyncio.to_thread(self.gate.wait, 60), "the gate never opened"
            async for chunk in self.model.astream(messages, **options):
                yield chunk
        finally:
            self.at_once -= 1


def ask_openai(base_url: str, key: str) -> httpx.Response:
    return httpx.post(
        f"{base_url}/chat/completions",
        json={"model": "parley", "messages": ASK},
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    )


def ask_anthropic(base_url: str, key: str) -> httpx.Response:
    return httpx.post(
        f"{base_url}/messages",
        json={"model": "parley", "max_tokens": 99, "messages": ASK},
        headers={"x-api-key": key},
        timeout=60,
    )


def test_a_full_queue_is_429_with_retry_after_and_the_rest_are_answered(tmp_path: Path) -> None:
    gated = Gated()
    with (
        serving(tmp_path, models=OneModel(gated), waiting=2) as served,
        ThreadPoolExecutor(8) as pool,
    ):
        asks = [ask_openai, ask_anthropic] * 4
        pending: set[Future[httpx.Response]] = {
            pool.submit(ask, served.base_url, served.key) for ask in asks
        }
        # the model is held: one request generates, two wait, the other five are refused now
        refused: list[httpx.Response] = []
        while len(refused) < 5:
            done, pending = wait(pending, timeout=30, return_when=FIRST_COMPLETED)
            assert done, "the refusals did not come while the model was busy"
            refused += [f.result() for f in done]
        assert [r.status_code for r in refused] == [429] * 5
        for response in refused:
            assert response.headers["retry-after"] == "2"
            said = response.json()
            if response.url.path.endswith("/messages"):
                assert said["type"] == "error"
                assert said["error"]["type"] == "rate_limit_error"
                message = said["error"]["message"]
            else:
                assert said["error"]["code"] == "queue_full"
                message = said["error"]["message"]
            assert message == (
                "The model is busy: 2 requests are already waiting for it. Try again in 2 seconds."
            )
        gated.gate.set()
        answered = [f.result() for f in pending]
        assert [r.status_code for r in answered] == [200] * 3
        for response in answered:
            body = response.json()
            text = (
                body["choices"][0]["message"]["content"]
                if "choices" in body
                else body["content"][0]["text"]
            )
            assert text == ANSWER
        assert gated.most_at_once == 1  # the model took them in turn

        # the queue has room again: the SDKs are answered
        with openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as api:
            again = api.chat.completions.create(model="parley", messages=ASK)
        assert again.choices[0].message.content == ANSWER


def test_the_anthropic_sdk_reads_a_full_queue_as_a_rate_limit(tmp_path: Path) -> None:
    gated = Gated()
    with (
        serving(tmp_path, models=OneModel(gated), waiting=0) as served,
        ThreadPoolExecutor(1) as pool,
    ):
        first = pool.submit(ask_anthropic, served.base_url, served.key)
        while gated.at_once == 0:  # until the first request holds the model
            time.sleep(0.01)
        root = served.base_url.removesuffix("/v1")
        claude = anthropic.Anthropic(base_url=root, api_key=served.key, max_retries=0)
        with claude, pytest.raises(anthropic.RateLimitError) as refused:
            claude.messages.create(model="parley", max_tokens=9, messages=ASK)
        full = refused.value
        assert full.status_code == 429
        assert full.response.headers["retry-after"] == "2"
        gated.gate.set()
        assert first.result().status_code == 200


def test_many_clients_at_once_are_all_answered_in_turn(tmp_path: Path) -> None:
    gated = Gated()
    gated.gate.set()
    with serving(tmp_path, models=OneModel(gated)) as served, ThreadPoolExecutor(9) as pool:
        asks = [ask_openai, ask_anthropic] * 4 + [ask_openai]  # one answered, eight waiting
        answered = list(pool.map(lambda ask: ask(served.base_url, served.key), asks))
    assert [r.status_code for r in answered] == [200] * 9
    assert gated.most_at_once == 1
