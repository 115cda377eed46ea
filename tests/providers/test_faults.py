"""Every fault, through real sockets, on every HTTP adapter: each becomes a clear ModelError
subclass and nothing already received is lost."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from app.core.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelRateLimited,
    ModelStreamInterrupted,
    ModelTimeout,
)
from app.core.state.message import Message
from app.providers._retry import RetryPolicy
from tests.providers.conftest import FAST_RETRY
from tests.providers.kits import KITS, Kit
from tests.providers.replay_server import ReplayServer, Reply, free_port, json_reply

pytestmark = pytest.mark.parametrize("kit", KITS, ids=lambda k: k.name)
HI = [Message.text_message("hi")]
ERROR_BODY = {"type": "error", "error": {"type": "some_error", "message": "server says no"}}


@asynccontextmanager
async def adapter(
    kit: Kit, url: str, retry: RetryPolicy = FAST_RETRY, read_timeout: float = 10.0
) -> AsyncIterator[Any]:
    model = kit.make(url, retry, read_timeout)
    try:
        yield model
    finally:
        await model.aclose()


def good(kit: Kit, **kw: Any) -> Reply:
    return Reply(chunks=kit.text_fixture(), content_type=kit.content_type, **kw)


async def test_a_good_stream_for_reference(kit: Kit, replay: ReplayServer) -> None:
    replay.add(kit.path, good(kit))
    async with adapter(kit, replay.url) as model:
        reply = await model.agenerate(HI)
    assert reply.text() == kit.expected_text
    assert reply.delta is False


async def test_connection_refused(kit: Kit) -> None:
    async with adapter(kit, f"http://127.0.0.1:{free_port()}") as model:
        with pytest.raises(ModelConnectionError, match="Could not connect") as err:
            await model.agenerate(HI)
    assert "Check that the server is running" in str(err.value)


async def test_timeout(kit: Kit, replay: ReplayServer) -> None:
    replay.add(kit.path, good(kit, delay=30))
    async with adapter(kit, replay.url, read_timeout=0.3) as model:
        with pytest.raises(ModelTimeout, match="did not answer in time"):
            await model.agenerate(HI)


async def test_401_says_check_the_api_key(kit: Kit, replay: ReplayServer) -> None:
    replay.add(kit.path, json_reply(ERROR_BODY, status=401))
    async with adapter(kit, replay.url) as model:
        with pytest.raises(ModelAuthError, match="Check the API key"):
            await model.agenerate(HI)
    assert len(replay.requests) == 1, "an auth failure is not retried"


@pytest.mark.parametrize("status", [429, 503])
async def test_retries_then_succeeds(kit: Kit, replay: ReplayServer, status: int) -> None:
    replay.add(kit.path, json_reply(ERROR_BODY, status, {"retry-after": "0"}), good(kit))
    async with adapter(kit, replay.url) as model:
        reply = await model.agenerate(HI)
    assert reply.text() == kit.expected_text
    assert len(replay.requests) == 2


@pytest.mark.parametrize("status", [429, 500])
async def test_bounded_retries(kit: Kit, replay: ReplayServer, status: int) -> None:
    replay.add(kit.path, json_reply(ERROR_BODY, status))
    async with adapter(kit, replay.url) as model:
        with pytest.raises(ModelRateLimited, match="after 3 attempts"):
            await model.agenerate(HI)
    assert len(replay.requests) == 3


async def test_a_long_retry_after_is_not_waited_out(kit: Kit, replay: ReplayServer) -> None:
    replay.add(kit.path, json_reply(ERROR_BODY, 429, {"retry-after": "3600"}))
    async with adapter(kit, replay.url) as model:
        with pytest.raises(ModelRateLimited, match="long wait"):
            await model.agenerate(HI)
    assert len(replay.requests) == 1


async def test_stream_cut_mid_message_keeps_the_partial(kit: Kit, replay: ReplayServer) -> None:
    replay.add(kit.path, good(kit, cut_after=3))
    received: list[Message] = []
    async with adapter(kit, replay.url) as model:
        with pytest.raises(ModelStreamInterrupted, match="cut off") as err:
            async for piece in model.astream(HI):
                received.append(piece)
    partial = err.value.partial
    assert isinstance(partial, Message)
    streamed = "".join(m.text() for m in received)
    assert streamed and partial.text() == streamed
    assert kit.expected_text.startswith(streamed) and streamed != kit.expected_text
    assert partial.metadata["interrupted"] is True
    assert received[-1].metadata["interrupted"] is True, "the stream marks its last chunk"
    assert len(replay.requests) == 1, "a reply that started is never sent twice"


async def test_malformed_chunk_keeps_the_partial(kit: Kit, replay: ReplayServer) -> None:
    chunks = kit.text_fixture()
    chunks.insert(3, kit.malformed)
    replay.add(kit.path, Reply(chunks=chunks, content_type=kit.content_type))
    async with adapter(kit, replay.url) as model:
        with pytest.raises(ModelStreamInterrupted, match="malformed") as err:
            await model.agenerate(HI)
    partial = err.value.partial
    assert isinstance(partial, Message)
    assert partial.text() and kit.expected_text.startswith(partial.text())


async def test_bad_request_is_a_model_error_with_the_servers_words(
    kit: Kit, replay: ReplayServer
) -> None:
    replay.add(kit.path, json_reply(ERROR_BODY, 400))
    async with adapter(kit, replay.url) as model:
        with pytest.raises(ModelError, match="rejected the request"):
            await model.agenerate(HI)
