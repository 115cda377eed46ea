"""Each HTTP adapter against recorded streams of its provider's documented format: tool calls
(several at once), reasoning, usage, and what the request carried."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.budget import cost_of
from app.core.errors import ModelAuthError, ModelConnectionError, ModelError, UnsupportedContent
from app.core.models.protocol import GenerationConfig, ModelInfo, ModelPrice, ToolSpec
from app.core.state.message import Message
from app.core.state.message_block import (
    AudioBlock,
    DocumentBlock,
    ImageBlock,
    MediaRef,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    VideoBlock,
)
from app.providers._openai_messages import OpenAIMapper
from app.providers.anthropic_api import AnthropicChatModel
from app.providers.ollama import OllamaChatModel, list_ollama_models
from app.providers.openai_compat import OpenAIChatModel
from tests.providers.conftest import FAST_RETRY
from tests.providers.replay_server import (
    FIXTURES,
    ReplayServer,
    Reply,
    free_port,
    json_reply,
    lines,
    sse_events,
)

VISION = ModelInfo(spec="openai:gpt-4o", name="gpt-4o", provider="openai",
                   input_kinds=frozenset({"text", "image"}))  # fmt: skip
PNG = MediaRef(kind="data", data_base64="iVBORw0KGgo=", mime_type="image/png")
PDF = MediaRef(kind="data", data_base64="JVBERi0xLjQK", mime_type="application/pdf")
TOOLS = [
    ToolSpec(name="get_weather", parameters={"type": "object", "properties": {"city": {}}}),
    ToolSpec(name="get_time", parameters={"type": "object", "properties": {"tz": {}}}),
]
HISTORY = [
    Message.text_message("Be brief.", role="system"),
    Message(role="user", content=[TextBlock(text="Look:"), ImageBlock(media=PNG)]),
    Message(
        role="assistant",
        content=[
            ReasoningBlock(text="hmm", signature="sig-1"),
            ToolCallBlock(id="c1", name="get_weather", args={"city": "Oslo"}),
        ],
    ),
    Message.tool_message(
        [ToolResultBlock(call_id="c1", output={"temp": 4}), ImageBlock(media=PNG)]
    ),
]


def sse(name: str) -> Reply:
    return Reply(chunks=sse_events(name))


async def test_openai_parallel_tool_calls_and_usage(replay: ReplayServer) -> None:
    replay.add("/v1/chat/completions", sse("openai_parallel_tools.sse"))
    model = OpenAIChatModel(
        "gpt-4o", base_url=f"{replay.url}/v1", api_key="k", retry=FAST_RETRY, info=VISION
    )
    try:
        chunks = [c async for c in model.astream(HISTORY, tools=TOOLS)]
    finally:
        await model.aclose()
    whole = chunks[0]
    for piece in chunks[1:]:
        whole = whole + piece
    calls = whole.tool_calls()
    assert [(c.id, c.name, c.args) for c in calls] == [
        ("call_weather", "get_weather", {"city": "Oslo"}),
        ("call_time", "get_time", {"tz": "CET"}),
    ]
    assert chunks[-1].metadata["finish_reason"] == "tool_calls"
    assert chunks[-1].usages is not None and chunks[-1].usages.total_tokens == 80


async def test_openai_request_maps_every_block(replay: ReplayServer) -> None:
    replay.add("/v1/chat/completions", sse("openai_text.sse"))
    model = OpenAIChatModel("gpt-4o", base_url=f"{replay.url}/v1", api_key="sk-1", info=VISION)
    try:
        reply = await model.agenerate(HISTORY, tools=TOOLS)
    finally:
        await model.aclose()
    assert reply.usages is not None and reply.usages.cache_read_input_tokens == 8
    req = replay.requests[0]
    assert req["headers"]["authorization"] == "Bearer sk-1"
    msgs = req["json"]["messages"]
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "tool", "user"]
    assert msgs[1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert msgs[2]["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Oslo"}',
    }
    assert msgs[3] == {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 4}'}
    assert msgs[4]["content"][1]["type"] == "image_url", "a tool's image follows as user input"
    assert req["json"]["stream"] is True


@pytest.mark.parametrize(
    "block",
    [
        AudioBlock(media=MediaRef(kind="data", data_base64="AAAA", mime_type="audio/wav")),
        VideoBlock(media=MediaRef(kind="data", data_base64="AAAA", mime_type="video/mp4")),
        DocumentBlock(media=PDF),
    ],
    ids=["audio", "video", "pdf"],
)
async def test_text_only_server_is_told_what_it_cannot_see(
    replay: ReplayServer, block: AudioBlock | VideoBlock | DocumentBlock
) -> None:
    # Bytes the model would reject are never sent; a line in their place says what was there.
    replay.add("/v1/chat/completions", sse("openai_text.sse"))
    model = OpenAIChatModel("local-llm", base_url=f"{replay.url}/v1", api_key="k")
    try:
        await model.agenerate([Message(role="user", content=[TextBlock(text="Look:"), block])])
    finally:
        await model.aclose()
    kind = {"audio": "a sound clip", "video": "a video", "document": "a document"}[block.type]
    many = {"audio": "audio", "video": "video", "document": "documents"}[block.type]
    assert replay.requests[0]["json"]["messages"] == [
        {
            "role": "user",
            "content": f"Look:\n\n[The user attached {kind} here, but it is not shown: "
            f"local-llm cannot take {many} as input.]",
        }
    ]


async def test_anthropic_thinking_tool_use_and_cache_usage(replay: ReplayServer) -> None:
    replay.add("/v1/messages", sse("anthropic_thinking_tool.sse"))
    model = AnthropicChatModel("claude-sonnet-4-6", api_key="sk-ant", base_url=replay.url)
    try:
        reply = await model.agenerate(HISTORY, tools=TOOLS)
    finally:
        await model.aclose()
    reasoning = [b for b in reply.content if isinstance(b, ReasoningBlock)]
    assert reasoning[0].text == "The user wants the weather."
    assert reasoning[0].signature == "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"
    assert reply.text() == "Let me check."
    [call] = reply.tool_calls()
    assert (call.id, call.name, call.args) == ("toolu_01", "get_weather", {"city": "Oslo"})
    assert reply.metadata["finish_reason"] == "tool_calls"
    usage = reply.usages
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens) == (25 + 100 + 2000, 89)
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (100, 2000)
    req = replay.requests[0]
    headers = req["headers"]
    assert "sk-ant" in (headers.get("x-api-key", ""), headers.get("authorization", ""))[0] + (
        headers.get("authorization", "")
    )
    body = req["json"]
    assert body["system"] == "Be brief."
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][0]["content"][1]["source"]["type"] == "base64"
    assert body["messages"][1]["content"][0] == {
        "type": "thinking", "thinking": "hmm", "signature": "sig-1",
    }  # fmt: skip
    result = body["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "c1"
    assert result["content"][1]["type"] == "image", "the tool's image rides in its result"


async def test_anthropic_takes_pdfs_natively(replay: ReplayServer) -> None:
    replay.add("/v1/messages", sse("anthropic_text.sse"))
    model = AnthropicChatModel("claude-sonnet-4-6", api_key="k", base_url=replay.url)
    doc = DocumentBlock(media=PDF, title="Report")
    try:
        await model.agenerate([Message(role="user", content=[doc])])
    finally:
        await model.aclose()
    part = replay.requests[0]["json"]["messages"][0]["content"][0]
    assert part["type"] == "document" and part["source"]["media_type"] == "application/pdf"


async def test_anthropic_without_a_key_says_so() -> None:
    model = AnthropicChatModel("claude-sonnet-4-6", api_key=None)
    with pytest.raises(ModelAuthError, match="anthropic/api-key"):
        model.astream([Message.text_message("hi")])


async def test_ollama_tools_thinking_and_request(replay: ReplayServer) -> None:
    replay.add("/api/chat", Reply(chunks=lines("ollama_tools.ndjson")))
    info = ModelInfo(spec="ollama:qwen3", name="qwen3", provider="ollama",
                     input_kinds=frozenset({"text", "image"}))  # fmt: skip
    model = OllamaChatModel("qwen3", base_url=replay.url, retry=FAST_RETRY, info=info)
    try:
        reply = await model.agenerate(
            HISTORY[2:], tools=TOOLS, config=GenerationConfig(temperature=0.1, max_tokens=9)
        )
    finally:
        await model.aclose()
    assert [b.text for b in reply.content if isinstance(b, ReasoningBlock)] == [
        "I should call the tool."
    ]
    assert [(c.name, c.args) for c in reply.tool_calls()] == [
        ("get_weather", {"city": "Oslo"}),
        ("get_time", {"tz": "CET"}),
    ]
    assert len({c.id for c in reply.tool_calls()}) == 2
    assert reply.metadata["finish_reason"] == "tool_calls"
    body = replay.requests[0]["json"]
    assert body["options"] == {"temperature": 0.1, "num_predict": 9}
    assert body["messages"][0]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert body["messages"][1]["role"] == "tool"
    assert body["messages"][2]["role"] == "user" and body["messages"][2]["images"] == [
        "iVBORw0KGgo="
    ]


async def test_ollama_text_models_get_a_line_instead_of_an_image(replay: ReplayServer) -> None:
    replay.add("/api/chat", Reply(chunks=lines("ollama_text.ndjson")))
    model = OllamaChatModel("llama3.2", base_url=replay.url)
    try:
        await model.agenerate(HISTORY[1:2])
    finally:
        await model.aclose()
    sent = replay.requests[0]["json"]["messages"][0]
    assert "images" not in sent
    assert sent["content"].endswith(
        "[The user attached an image here, but it is not shown: llama3.2 cannot take images "
        "as input.]"
    )


async def test_ollama_lists_installed_models(replay: ReplayServer) -> None:
    tags = (FIXTURES / "ollama_tags.json").read_text()
    replay.add("/api/tags", Reply(chunks=[tags.encode()], content_type="application/json"))
    models = await list_ollama_models(replay.url)
    assert [m["name"] for m in models] == ["gemma3:4b", "llama3.2:latest"]
    assert models[0]["details"]["parameter_size"] == "4.3B"


async def test_ollama_list_when_the_server_is_down() -> None:
    with pytest.raises(ModelConnectionError, match="Ollama"):
        await list_ollama_models(f"http://127.0.0.1:{free_port()}")


async def test_ollama_list_says_what_the_server_answered_instead(replay: ReplayServer) -> None:
    replay.add("/api/tags", json_reply({"error": "busy"}, 503))
    with pytest.raises(ModelError, match="Ollama"):
        await list_ollama_models(replay.url)


async def test_ollama_list_says_when_the_reply_is_not_a_model_list(replay: ReplayServer) -> None:
    replay.add("/api/tags", Reply(chunks=[b"<html>not a list</html>"], content_type="text/html"))
    with pytest.raises(ModelError, match="unexpected reply: <html>not a list"):
        await list_ollama_models(replay.url)


def test_listing_ollama_models_does_not_load_an_http_client_library() -> None:
    code = "import sys, app.providers.ollama_tags; print('httpx' in sys.modules)"
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


async def test_ollama_unknown_model(replay: ReplayServer) -> None:
    replay.add("/api/chat", json_reply({"error": "model 'nope' not found"}, 404))
    model = OllamaChatModel("nope", base_url=replay.url)
    try:
        with pytest.raises(Exception, match="does not know the model 'nope'"):
            await model.agenerate([Message.text_message("hi")])
    finally:
        await model.aclose()


async def test_openai_tool_images_wait_until_every_parallel_result_is_sent(
    replay: ReplayServer,
) -> None:
    # Parallel calls give one tool message each; a user message may only follow the last one.
    history = [
        Message.text_message("Shoot both screens."),
        Message(
            role="assistant",
            content=[
                ToolCallBlock(id="c1", name="get_weather", args={}),
                ToolCallBlock(id="c2", name="get_time", args={}),
            ],
        ),
        Message.tool_message([ToolResultBlock(call_id="c1", output="one"), ImageBlock(media=PNG)]),
        Message.tool_message([ToolResultBlock(call_id="c2", output="two"), ImageBlock(media=PNG)]),
        Message.text_message("Compare them."),
    ]
    replay.add("/v1/chat/completions", sse("openai_text.sse"))
    model = OpenAIChatModel("gpt-4o", base_url=f"{replay.url}/v1", api_key="k", info=VISION)
    try:
        await model.agenerate(history, tools=TOOLS)
    finally:
        await model.aclose()
    msgs = replay.requests[0]["json"]["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "tool", "user", "user"]
    images = [p for p in msgs[4]["content"] if p["type"] == "image_url"]
    assert len(images) == 2


async def test_openai_arguments_that_never_parsed_are_sent_back_as_valid_json(
    replay: ReplayServer,
) -> None:
    # A model wrote broken argument JSON; the call failed and the conversation goes on.
    broken = ToolCallBlock(id="c1", name="get_weather", partial_args='{"city": "Os')
    history = [
        Message.text_message("Weather in Oslo?"),
        Message(role="assistant", content=[broken]),
        Message.tool_message(
            [ToolResultBlock(call_id="c1", output="arguments are not JSON", status="error")]
        ),
    ]
    replay.add("/v1/chat/completions", sse("openai_text.sse"))
    model = OpenAIChatModel("gpt-4o", base_url=f"{replay.url}/v1", api_key="k", info=VISION)
    try:
        await model.agenerate(history, tools=TOOLS)
    finally:
        await model.aclose()
    [call] = replay.requests[0]["json"]["messages"][1]["tool_calls"]
    assert isinstance(json.loads(call["function"]["arguments"]), dict)


def _sse(kind: str, data: dict[str, object]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


async def test_anthropic_thinking_then_redacted_thinking_go_back_unchanged(
    replay: ReplayServer,
) -> None:
    # Claude may send a thinking block and a redacted one in a row; both must be sent back
    # exactly, each with its own signature or data.
    usage = {"input_tokens": 5, "output_tokens": 1}
    message = {"id": "m", "type": "message", "role": "assistant", "content": [],
               "model": "claude-sonnet-4-6", "usage": usage}  # fmt: skip
    events = [
        _sse("message_start", {"message": message}),
        _sse("content_block_start",
             {"index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        _sse("content_block_delta",
             {"index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me see."}}),
        _sse("content_block_delta",
             {"index": 0, "delta": {"type": "signature_delta", "signature": "sig-A"}}),
        _sse("content_block_stop", {"index": 0}),
        _sse("content_block_start",
             {"index": 1, "content_block": {"type": "redacted_thinking", "data": "opaque"}}),
        _sse("content_block_stop", {"index": 1}),
        _sse("content_block_start", {"index": 2, "content_block": {"type": "text", "text": "Hi"}}),
        _sse("content_block_stop", {"index": 2}),
        _sse("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": usage}),
        _sse("message_stop", {}),
    ]  # fmt: skip
    replay.add("/v1/messages", Reply(chunks=events))
    model = AnthropicChatModel("claude-sonnet-4-6", api_key="k", base_url=replay.url)
    try:
        reply = await model.agenerate([Message.text_message("hi")])
    finally:
        await model.aclose()
    again = model.request([Message.text_message("hi"), reply], None, GenerationConfig())
    assert again["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "Let me see.", "signature": "sig-A"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Hi"},
    ]


async def test_openai_file_parts_take_only_pdf_bytes() -> None:
    # Chat Completions' file part reads base64 PDF data only: a link is refused up front
    # instead of failing at the server, and a document of another type is left out with a
    # line saying so.
    docs = ModelInfo(spec="openai:gpt-4o", name="gpt-4o", provider="openai",
                     input_kinds=frozenset({"text", "image", "document"}))  # fmt: skip
    model = OpenAIChatModel("gpt-4o", base_url=f"http://127.0.0.1:{free_port()}/v1", info=docs)
    link = MediaRef(kind="url", url="https://example.com/paper.pdf", mime_type="application/pdf")
    with pytest.raises(UnsupportedContent):
        model.astream([Message(role="user", content=[DocumentBlock(media=link)])])
    word = MediaRef(
        kind="data", data_base64="UEsDBA==", mime_type="application/msword", filename="a.doc"
    )
    mapper = OpenAIMapper("gpt-4o", docs.input_kinds, None)
    assert mapper.part(DocumentBlock(media=word)) == {
        "type": "text",
        "text": "[The user attached a document (a.doc) here, but it is not shown: gpt-4o reads "
        "only PDFs.]",
    }


async def test_anthropic_never_sends_whitespace_only_text() -> None:
    # The API rejects the whole request for a text block with no visible text
    # ("text content blocks must contain non-whitespace text").
    history = [
        Message(role="user", content=[TextBlock(text="\n"), ImageBlock(media=PNG)]),
        Message(
            role="assistant",
            content=[TextBlock(text="\n\n"), ToolCallBlock(id="t1", name="get_time", args={})],
        ),
        Message.tool_message([ToolResultBlock(call_id="t1", output="noon")]),
        Message(role="assistant", content=[TextBlock(text=" ")]),
        Message.text_message("Thanks"),
    ]
    model = AnthropicChatModel("claude-sonnet-4-6", api_key="k", base_url="http://127.0.0.1:9")
    turns = model.request(history, TOOLS, GenerationConfig())["messages"]
    texts = [b["text"] for t in turns for b in t["content"] if b["type"] == "text"]
    assert texts == ["Thanks"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]


async def test_anthropic_usage_prices_every_input_token(replay: ReplayServer) -> None:
    # Anthropic counts cached input apart from input_tokens; a reply's prompt_tokens is the
    # whole prompt (as OpenAI reports it), so the cost of the fresh part is not lost.
    replay.add("/v1/messages", sse("anthropic_text.sse"))
    model = AnthropicChatModel("claude-sonnet-4-6", api_key="k", base_url=replay.url)
    try:
        reply = await model.agenerate([Message.text_message("hi")])
    finally:
        await model.aclose()
    usage = reply.usages
    assert usage is not None
    assert usage.prompt_tokens == 25 + 100 + 2000
    price = ModelPrice(
        input_per_mtok=3.0, output_per_mtok=15.0, cache_read_per_mtok=0.3, cache_write_per_mtok=3.75
    )
    expected = (25 * 3.0 + 5 * 15.0 + 2000 * 0.3 + 100 * 3.75) / 1_000_000
    assert cost_of(usage, price) == pytest.approx(expected)


async def test_openai_an_error_event_is_a_model_error_with_the_servers_words(
    replay: ReplayServer,
) -> None:
    # llama.cpp's server (and OpenAI) report a failure inside a 200 stream as an error event.
    event = {"error": {"message": "the request exceeds the context size", "code": 400}}
    replay.add("/v1/chat/completions", Reply(chunks=[f"data: {json.dumps(event)}\n\n".encode()]))
    model = OpenAIChatModel("m", base_url=f"{replay.url}/v1", retry=FAST_RETRY)
    try:
        with pytest.raises(ModelError, match="exceeds the context size") as err:
            await model.agenerate([Message.text_message("hi")])
    finally:
        await model.aclose()
    assert "HTTP 400" in str(err.value)


async def test_anthropic_an_overloaded_event_is_retried(replay: ReplayServer) -> None:
    # Claude reports overload inside a 200 stream, as an error event before any content.
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    event = f"event: error\ndata: {json.dumps(overloaded)}\n\n".encode()
    replay.add("/v1/messages", Reply(chunks=[event]), sse("anthropic_text.sse"))
    model = AnthropicChatModel(
        "claude-sonnet-4-6", api_key="k", base_url=replay.url, retry=FAST_RETRY
    )
    try:
        reply = await model.agenerate([Message.text_message("hi")])
    finally:
        await model.aclose()
    assert reply.text() == "Hello there!"
    assert len(replay.requests) == 2


def test_openai_itself_gets_max_completion_tokens() -> None:
    # OpenAI's reasoning models (o-series, gpt-5) refuse max_tokens; every OpenAI model takes
    # max_completion_tokens. Other servers keep the max_tokens they understand.
    cfg = GenerationConfig(max_tokens=300)
    hosted = OpenAIChatModel("gpt-5-mini", api_key="sk-1").request([], None, cfg)
    assert hosted["max_completion_tokens"] == 300 and "max_tokens" not in hosted
    local = OpenAIChatModel("qwen", base_url="http://127.0.0.1:9/v1").request([], None, cfg)
    assert local["max_tokens"] == 300 and "max_completion_tokens" not in local


async def test_a_tool_that_returned_only_an_image_is_not_reported_as_null() -> None:
    # A screenshot tool's result has no text (output None); "null" would tell the model the
    # tool returned nothing.
    history = [
        Message.text_message("Take a screenshot."),
        Message(role="assistant", content=[ToolCallBlock(id="s1", name="get_time", args={})]),
        Message.tool_message([ToolResultBlock(call_id="s1", output=None), ImageBlock(media=PNG)]),
    ]
    openai = OpenAIChatModel("gpt-4o", api_key="k", info=VISION)
    msgs = openai.request(history, TOOLS, GenerationConfig())["messages"]
    assert msgs[2] == {"role": "tool", "tool_call_id": "s1", "content": ""}
    claude = AnthropicChatModel("claude-sonnet-4-6", api_key="k")
    turns = claude.request(history, TOOLS, GenerationConfig())["messages"]
    assert [b["type"] for b in turns[2]["content"][0]["content"]] == ["image"]


async def test_ollama_error_before_any_content_is_said_plainly(replay: ReplayServer) -> None:
    replay.add(
        "/api/chat",
        Reply(chunks=[b'{"error": "model requires more system memory (5.2 GiB)"}\n'],
              content_type="application/x-ndjson"),
    )  # fmt: skip
    model = OllamaChatModel("big", base_url=replay.url)
    try:
        with pytest.raises(ModelError, match="could not answer with big: model requires more"):
            await model.agenerate([Message.text_message("hi")])
    finally:
        await model.aclose()
