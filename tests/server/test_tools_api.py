"""A client's tools through ``parley serve``, with the official ``openai`` and ``anthropic``
SDKs: the model is offered the client's tools and its choice, the same scripted tool call
comes back whole and streamed in each API's shape, a full round trip (call, the client runs
it, sends the result, the final answer), and tools the server cannot pass refused with one
sentence while the server stays up."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.models.scripted import ScriptedChatModel
from app.core.models.streaming import CollectingChatModel
from app.core.state.message import Message
from tests.server.harness import OneModel, Served, serving

WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city now.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
OPENAI_TOOLS: Any = [{"type": "function", "function": WEATHER}]
ANTHROPIC_TOOLS: Any = [
    {
        "name": WEATHER["name"],
        "description": WEATHER["description"],
        "input_schema": WEATHER["parameters"],
    }
]
CALL = {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_oslo"}
ASK: Any = [{"role": "user", "content": "What is the weather in Oslo?"}]


def _openai(served: Served) -> openai.OpenAI:
    return openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)


def _anthropic(served: Served) -> anthropic.Anthropic:
    root = served.base_url.removesuffix("/v1")
    return anthropic.Anthropic(base_url=root, api_key=served.key, max_retries=0)


class Offered(CollectingChatModel):
    """A model that says which tools it was offered (with their arguments) and the
    client's choice of tool."""

    info = ModelInfo(spec="offered", name="offered", provider="scripted")

    async def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        names = ", ".join(
            f"{t.name}({', '.join(t.parameters.get('properties', {}))}): {t.description}"
            for t in tools or []
        )
        choice = config.tool_choice if config is not None else "auto"
        inner = ScriptedChatModel([{"text": f"Offered {names}; choice {choice}."}])
        async for chunk in inner.astream(messages):
            yield chunk


def test_the_model_is_offered_the_clients_tools_and_choice(tmp_path: Path) -> None:
    said = "Offered get_weather(city): The weather in a city now.; choice"
    with serving(tmp_path, models=OneModel(Offered())) as served:
        with _openai(served) as api:
            reply = api.chat.completions.create(
                model="parley",
                messages=ASK,
                tools=OPENAI_TOOLS,
                tool_choice={"type": "function", "function": {"name": "get_weather"}},
            )
            assert reply.choices[0].message.content == f"{said} get_weather."
            reply = api.chat.completions.create(
                model="parley", messages=ASK, tools=OPENAI_TOOLS, tool_choice="required"
            )
            assert reply.choices[0].message.content == f"{said} required."
        with _anthropic(served) as api:
            message = api.messages.create(
                model="parley",
                max_tokens=100,
                messages=ASK,
                tools=ANTHROPIC_TOOLS,
                tool_choice={"type": "any"},
            )
            assert [getattr(b, "text", None) for b in message.content] == [f"{said} required."]


def test_the_same_scripted_tool_call_through_both_sdks_whole_and_streamed(
    tmp_path: Path,
) -> None:
    usage = {"prompt_tokens": 30, "completion_tokens": 9}
    turn = {"text": "", "tool_calls": [CALL], "usage": usage}
    with serving(tmp_path, script=[turn] * 4) as served:
        with _openai(served) as api:
            whole = api.chat.completions.create(model="parley", messages=ASK, tools=OPENAI_TOOLS)
            choice = whole.choices[0]
            assert choice.finish_reason == "tool_calls"
            assert choice.message.content is None
            calls = choice.message.tool_calls or []
            assert [(c.id, c.type, c.function.name) for c in calls] == [
                ("call_oslo", "function", "get_weather")
            ]
            assert json.loads(calls[0].function.arguments) == {"city": "Oslo"}

            chunks = list(
                api.chat.completions.create(
                    model="parley", messages=ASK, tools=OPENAI_TOOLS, stream=True
                )
            )
            deltas = [d for c in chunks for d in (c.choices[0].delta.tool_calls or [])]
            assert [(d.index, d.id, d.function.name) for d in deltas if d.function] == [
                (0, "call_oslo", "get_weather")
            ]
            streamed_args = "".join((d.function and d.function.arguments) or "" for d in deltas)
            assert json.loads(streamed_args) == {"city": "Oslo"}
            assert chunks[-1].choices[0].finish_reason == "tool_calls"

        with _anthropic(served) as api:
            message = api.messages.create(
                model="parley", max_tokens=100, messages=ASK, tools=ANTHROPIC_TOOLS
            )
            assert message.stop_reason == "tool_use"
            assert [(b.type, getattr(b, "id", None)) for b in message.content] == [
                ("tool_use", "call_oslo")
            ]
            used = message.content[0]
            assert isinstance(used, anthropic.types.ToolUseBlock)
            assert (used.name, used.input) == ("get_weather", {"city": "Oslo"})

            with api.messages.stream(
                model="parley", max_tokens=100, messages=ASK, tools=ANTHROPIC_TOOLS
            ) as stream:
                events = list(stream)
                final = stream.get_final_message()
            kinds = [e.type for e in events]
            assert "content_block_start" in kinds
            assert final.stop_reason == "tool_use"
            block = final.content[-1]
            assert isinstance(block, anthropic.types.ToolUseBlock)
            assert (block.id, block.name, block.input) == (
                "call_oslo",
                "get_weather",
                {"city": "Oslo"},
            )
            assert final.usage.output_tokens == 9


def _weather(messages: Sequence[Message]) -> dict[str, Any]:
    """Call get_weather, then say what the client's run of it gave back."""
    last = messages[-1]
    if last.role == "tool":
        result = last.tool_results()[0]
        how = "failed: " if result.status == "error" else ""
        return {"text": f"{result.name} {how}said {result.output}."}
    return {"text": "Let me look.", "tool_calls": [CALL]}


def test_a_whole_round_trip_call_result_and_answer(tmp_path: Path) -> None:
    model = ScriptedChatModel(_weather, info=ModelInfo(spec="w", name="w", provider="scripted"))
    with serving(tmp_path, models=OneModel(model)) as served:
        with _openai(served) as api:
            first = api.chat.completions.create(model="parley", messages=ASK, tools=OPENAI_TOOLS)
            asked = first.choices[0].message
            assert asked.content == "Let me look."
            call = (asked.tool_calls or [])[0]
            ran = {"role": "tool", "tool_call_id": call.id, "content": "Sunny, 21 °C"}
            after: Any = [*ASK, asked.model_dump(exclude_none=True), ran]
            final = api.chat.completions.create(model="parley", messages=after, tools=OPENAI_TOOLS)
            assert final.choices[0].message.content == "get_weather said Sunny, 21 °C."
            assert final.choices[0].finish_reason == "stop"

            with api.chat.completions.stream(  # streamed, as the SDK gathers it
                model="parley", messages=ASK, tools=OPENAI_TOOLS
            ) as stream:
                gathered = stream.get_final_completion().choices[0]
            assert gathered.message.content == "Let me look."
            assert [(c.id, c.function.name) for c in gathered.message.tool_calls or []] == [
                ("call_oslo", "get_weather")
            ]
            assert gathered.finish_reason == "tool_calls"

        with _anthropic(served) as api:
            with api.messages.stream(  # streamed: a text block, then a tool_use block
                model="parley", max_tokens=100, messages=ASK, tools=ANTHROPIC_TOOLS
            ) as stream:
                first_message = stream.get_final_message()
            assert [b.type for b in first_message.content] == ["text", "tool_use"]
            assert getattr(first_message.content[0], "text", None) == "Let me look."
            assert first_message.stop_reason == "tool_use"
            use = first_message.content[-1]
            assert isinstance(use, anthropic.types.ToolUseBlock)
            result = {
                "type": "tool_result",
                "tool_use_id": use.id,
                "content": [{"type": "text", "text": "no such city"}],
                "is_error": True,
            }
            followed: Any = [
                *ASK,
                {"role": "assistant", "content": first_message.content},
                {"role": "user", "content": [result]},
            ]
            final_message = api.messages.create(
                model="parley", max_tokens=100, messages=followed, tools=ANTHROPIC_TOOLS
            )
            assert [getattr(b, "text", None) for b in final_message.content] == [
                "get_weather failed: said no such city."
            ]


def _openai_body(**extra: Any) -> dict[str, Any]:
    return {"model": "parley", "messages": ASK, **extra}


def _tool(name: str, parameters: Any = None) -> dict[str, Any]:
    function = {"name": name} if parameters is None else {"name": name, "parameters": parameters}
    return {"type": "function", "function": function}


_CALLED = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "now", "arguments": "{'hour"}}
    ],
}


@pytest.mark.parametrize(
    ("body", "code", "said"),
    [
        (
            _openai_body(tools=[_tool(f"t{n}") for n in range(129)]),
            "too_many_tools",
            "The request offers 129 tools; Parley passes at most 128",
        ),
        (
            _openai_body(tools=[_tool("read file")]),
            "invalid_tool_name",
            "tools[0].function.name is 'read file': a tool's name is 1 to 64",
        ),
        (
            _openai_body(tools=[_tool("big", {"type": "object", "description": "x" * 70_000})]),
            "schema_too_large",
            "tools[0]'s schema is 70,",
        ),
        (
            _openai_body(messages=[*ASK, _CALLED]),
            "invalid_arguments",
            "messages[1].tool_calls[0].function.arguments is not valid JSON",
        ),
        (
            _openai_body(messages=[*ASK, {"role": "tool", "tool_call_id": "c9", "content": "1"}]),
            "invalid_tool_result",
            "messages[1] answers the call 'c9', which no earlier assistant message made",
        ),
        (
            _openai_body(messages=[*ASK, {"role": "tool", "content": "x"}]),
            "invalid_tool_result",
            "messages[1] is a tool result without tool_call_id",
        ),
        (
            _openai_body(
                tools=[_tool("now")], tool_choice={"type": "function", "function": {"name": "x"}}
            ),
            "invalid_value",
            "tool_choice names 'x', which is not one of the tools sent",
        ),
        (
            _openai_body(functions=[{"name": "now"}]),
            "unsupported_functions",
            "functions is the old form of tools",
        ),
        (
            {"model": "agent:Researcher", "messages": ASK, "tools": [_tool("now")]},
            "agent_tools",
            "agent:Researcher runs with its own tools, so it takes none from the client",
        ),
    ],
)
def test_tools_the_server_cannot_pass_are_refused_in_openais_shape(
    tmp_path: Path, body: dict[str, Any], code: str, said: str
) -> None:
    headers = {"Authorization": "Bearer KEY", "Content-Type": "application/json"}
    with serving(tmp_path) as served:
        headers["Authorization"] = f"Bearer {served.key}"
        refused = httpx.post(
            f"{served.base_url}/chat/completions", content=json.dumps(body), headers=headers
        )
        assert refused.status_code == 400
        error = refused.json()["error"]
        assert error["code"] == code
        assert error["message"].startswith(said)
        assert error["message"].endswith(".")
        assert error["message"].count(". ") == 0  # one sentence
        with _openai(served) as api:  # and the server answers the next request
            assert api.chat.completions.create(model="parley", messages=ASK).choices


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (
            {"tools": [{"type": "web_search_20250305", "name": "web_search"}]},
            "tools[0] is 'web_search_20250305': Parley passes only client tools",
        ),
        ({"tools": [{"name": "a.b"}]}, "tools[0].name is 'a.b'"),
        (
            {"tools": [{"name": "now"}], "tool_choice": {"type": "tool", "name": "later"}},
            "tool_choice names 'later'",
        ),
        (
            {
                "messages": [
                    *ASK,
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "u1", "name": "now", "input": 3}],
                    },
                ]
            },
            "messages[1].content[0].input must be an object",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "u2"}]}
                ]
            },
            "messages[0].content[0] answers 'u2', which no tool_use",
        ),
    ],
)
def test_tools_the_server_cannot_pass_are_refused_in_anthropics_shape(
    tmp_path: Path, extra: dict[str, Any], said: str
) -> None:
    body = {"model": "parley", "max_tokens": 10, "messages": ASK, **extra}
    with serving(tmp_path) as served:
        headers = {"x-api-key": served.key, "content-type": "application/json"}
        refused = httpx.post(
            f"{served.base_url}/messages", content=json.dumps(body), headers=headers
        )
        assert refused.status_code == 400
        shape = refused.json()
        assert shape["error"]["type"] == "invalid_request_error"
        assert shape["error"]["message"].startswith(said)
        assert shape["error"]["message"].endswith(".")
