"""The OpenAI-compatible adapter against llama-cpp-python's own server running the bundled
model (started once for this module)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.core.models.protocol import GenerationConfig, ToolSpec
from app.core.state.message import Message
from app.core.state.message_block import ToolCallBlock, ToolResultBlock
from app.providers.openai_compat import OpenAIChatModel
from tests.providers.conftest import FAST_RETRY

pytestmark = pytest.mark.slow

QUESTION = [
    Message.text_message("Answer briefly.", role="system"),
    Message.text_message("What is the capital of France?"),
]
WEATHER = ToolSpec(
    name="get_weather",
    description="Get the current weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.fixture
async def model(llama_server: str) -> AsyncIterator[OpenAIChatModel]:
    adapter = OpenAIChatModel("smollm2", base_url=llama_server, retry=FAST_RETRY)
    try:
        yield adapter
    finally:
        await adapter.aclose()


async def test_streams_a_real_answer(model: OpenAIChatModel) -> None:
    cfg = GenerationConfig(temperature=0, max_tokens=32)
    chunks = [c async for c in model.astream(QUESTION, config=cfg)]
    assert len(chunks) > 3
    assert len({c.message_id for c in chunks}) == 1
    assert chunks[-1].metadata["finish_reason"] in ("stop", "length")
    whole = chunks[0]
    for piece in chunks[1:]:
        whole = whole + piece
    assert whole.text().strip()


async def test_agenerate_and_closing_early(model: OpenAIChatModel) -> None:
    stream = model.astream(QUESTION, config=GenerationConfig(max_tokens=200))
    async for _ in stream:
        break
    await stream.aclose()  # type: ignore[attr-defined]
    reply = await model.agenerate(QUESTION, config=GenerationConfig(temperature=0, max_tokens=24))
    assert reply.delta is False and reply.text().strip()


CITIES = ["Oslo", "Paris", "Tokyo"]
WEATHER_IN = ToolSpec(
    name="get_weather",
    description="Get the current weather in one of the cities served.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string", "enum": CITIES}},
        "required": ["city"],
    },
)


async def test_a_forced_tool_call_comes_back_as_a_tool_call(model: OpenAIChatModel) -> None:
    ask = [Message.text_message("What's the weather in Oslo?")]
    cfg = GenerationConfig(temperature=0, max_tokens=40, tool_choice="get_weather")
    reply = await model.agenerate(ask, tools=[WEATHER_IN], config=cfg)
    [call] = reply.tool_calls()
    assert call.name == "get_weather"
    assert call.id
    # A named tool's arguments are held by the server's grammar for its schema; the enum keeps
    # them a few tokens long, so on every build they close within the limit and parse whole.
    assert call.partial_args is None
    assert call.args in [{"city": city} for city in CITIES]
    assert reply.metadata["finish_reason"] == "tool_calls"
    assert reply.text() == ""


TEXT_LESS_CALL = [
    Message.text_message("What's the weather in Oslo?"),
    Message(
        role="assistant",
        content=[ToolCallBlock(id="call_1", name="get_weather", args={"city": "Oslo"})],
    ),
    Message.tool_message([ToolResultBlock(call_id="call_1", output="Sunny, 21 C")]),
    Message(role="assistant", content=[]),
    Message.text_message("So, is it sunny?"),
]
"""The second model call of every tool-using turn: the assistant's earlier reply holds only a
tool call, with no text beside it (and an empty reply after the result)."""


async def test_a_history_with_a_text_less_tool_call_is_accepted(model: OpenAIChatModel) -> None:
    # the reply is held to one word by the server's grammar: its shape is the same on every build
    cfg = GenerationConfig(temperature=0, max_tokens=8, extra={"grammar": 'root ::= "Yes" | "No"'})
    sent = model.request(TEXT_LESS_CALL, [WEATHER], cfg)["messages"]
    assert sent[1:4] == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21 C"},
        {"role": "assistant", "content": ""},
    ]
    reply = await model.agenerate(TEXT_LESS_CALL, tools=[WEATHER], config=cfg)
    assert reply.text() in ("Yes", "No")
    assert reply.tool_calls() == []
    assert reply.metadata["finish_reason"] == "stop"
