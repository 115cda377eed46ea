"""The in-process adapter against the bundled model itself. Its wording is not checked (it is a
135M model); structure is: a real answer, streaming, stopping, and a tool call that parses."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.core.errors import ModelError
from app.core.models.protocol import GenerationConfig, ToolSpec
from app.core.state.message import Message
from app.core.state.message_block import (
    ImageBlock,
    MediaRef,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from app.providers._llama_reply import plain_messages
from app.providers._llama_template import ChatTemplate
from app.providers.local import FIRST_CONTEXT, LlamaCppChatModel, context_for

pytestmark = pytest.mark.slow

QUESTION = [
    Message.text_message("You are a helpful assistant.", role="system"),
    Message.text_message("What is the capital of France?"),
]
WEATHER = ToolSpec(
    name="get_weather",
    description="Get the current weather for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
)
CLOCK = ToolSpec(
    name="get_time",
    description="Get the time in a time zone.",
    parameters={"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]},
)
GREEDY = GenerationConfig(temperature=0, max_tokens=48, seed=1)


async def test_a_real_answer_streams_in_chunks(local_model: LlamaCppChatModel) -> None:
    chunks = [c async for c in local_model.astream(QUESTION, config=GREEDY)]
    assert len(chunks) > 3, "tokens stream one by one"
    assert all(c.delta and c.role == "assistant" for c in chunks)
    assert len({c.message_id for c in chunks}) == 1
    last = chunks[-1]
    assert last.metadata["finish_reason"] in ("stop", "length")
    assert last.usages is not None and last.usages.prompt_tokens > 10
    assert last.usages.completion_tokens > 0
    whole = chunks[0]
    for piece in chunks[1:]:
        whole = whole + piece
    assert whole.text().strip()


async def test_a_reply_cut_at_its_limit_counts_the_tokens_it_was_allowed(
    local_model: LlamaCppChatModel,
) -> None:
    ask = [Message.text_message("Count from one to one hundred in words.")]
    config = GenerationConfig(temperature=0, max_tokens=6, seed=1)
    last = [c async for c in local_model.astream(ask, config=config)][-1]
    assert last.metadata["finish_reason"] == "length"
    assert last.usages is not None
    assert last.usages.completion_tokens == 6  # the check after the last token is not one
    assert local_model.last_run.tokens == 6


async def test_agenerate_returns_the_whole_message(local_model: LlamaCppChatModel) -> None:
    reply = await local_model.agenerate(QUESTION, config=GREEDY)
    assert reply.delta is False
    assert reply.text().strip()
    assert reply.metadata["provider"] == "llama.cpp"


async def test_closing_the_stream_stops_decoding_within_one_token(
    local_model: LlamaCppChatModel,
) -> None:
    stream = local_model.astream(QUESTION, config=GenerationConfig(max_tokens=400))
    got = 0
    async for _ in stream:
        got += 1
        if got == 3:
            break
    await stream.aclose()  # type: ignore[attr-defined]
    stats = local_model.last_run
    assert stats.finished
    assert stats.stop_requested_at is not None
    assert stats.tokens_after_stop <= 1
    assert stats.tokens < 400
    # The model is free again at once.
    assert (await local_model.agenerate(QUESTION, config=GREEDY)).text()


async def test_cancelling_the_task_stops_decoding(local_model: LlamaCppChatModel) -> None:
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in local_model.astream(QUESTION, config=GenerationConfig(max_tokens=400)):
            first.set()

    task = asyncio.create_task(consume())
    await first.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert local_model.last_run.finished
    assert local_model.last_run.tokens_after_stop <= 1
    assert local_model.last_run.tokens < 400


def assert_held_by_the_grammar(reply: Message, offered: list[ToolSpec]) -> None:
    """What the grammar guarantees on any build: every call names an offered tool and its
    arguments parse with every required one, or the reply says it was cut at the token limit."""
    calls = reply.tool_calls()
    assert calls, "the constrained reply held no tool call"
    if reply.metadata["finish_reason"] == "length":
        return
    assert reply.metadata["finish_reason"] == "tool_calls"
    for call in calls:
        spec = next(t for t in offered if t.name == call.name)
        assert call.partial_args is None, "the arguments parsed as JSON"
        assert isinstance(call.args, dict)
        assert set(spec.parameters["required"]) <= set(call.args)
        json.dumps(call.args)


async def test_required_tool_call_is_grammar_constrained_and_parses(
    local_model: LlamaCppChatModel,
) -> None:
    ask = [Message.text_message("What's the weather like in Oslo?")]
    cfg = GenerationConfig(temperature=0.8, max_tokens=80, tool_choice="required", seed=7)
    reply = await local_model.agenerate(ask, tools=[WEATHER, CLOCK], config=cfg)
    assert 1 <= len(reply.tool_calls()) <= local_model.max_parallel_calls
    assert_held_by_the_grammar(reply, [WEATHER, CLOCK])


async def test_a_named_tool_choice_forces_that_tool(local_model: LlamaCppChatModel) -> None:
    ask = [Message.text_message("What time is it in Paris?")]
    cfg = GenerationConfig(temperature=0.5, max_tokens=60, tool_choice="get_time", seed=3)
    reply = await local_model.agenerate(ask, tools=[WEATHER, CLOCK], config=cfg)
    assert {c.name for c in reply.tool_calls()} == {"get_time"}
    assert_held_by_the_grammar(reply, [CLOCK])


async def test_a_call_cut_at_the_token_limit_is_reported_as_cut(
    local_model: LlamaCppChatModel,
) -> None:
    ask = [Message.text_message("What's the weather like in Oslo?")]
    # the opening tag fits in ten tokens, the call's JSON never does
    cfg = GenerationConfig(temperature=0, max_tokens=10, tool_choice="required", seed=1)
    reply = await local_model.agenerate(ask, tools=[WEATHER], config=cfg)
    [call] = reply.tool_calls()
    assert call.partial_args is not None and call.partial_args.startswith("{")
    assert reply.metadata["finish_reason"] == "length"


UNITS = ToolSpec(
    name="set_units",
    description="Set the units temperatures are shown in.",
    parameters={
        "type": "object",
        "properties": {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["unit"],
    },
)


def nudged(path: Path, bias: float) -> LlamaCppChatModel:
    """The bundled model whose first token, when it may answer or call, leans ``bias`` towards
    opening a call: far enough either way to pick the branch on every build."""
    return LlamaCppChatModel(path, n_ctx=2048, recipe_overrides={"tool_bias": bias})


async def test_auto_tool_choice_lets_a_reply_open_as_a_call_held_by_the_grammar(
    bundled_path: Path,
) -> None:
    model = nudged(bundled_path, 100.0)
    try:
        ask = [Message.text_message("Show temperatures in fahrenheit, please.")]
        cfg = GenerationConfig(temperature=0, max_tokens=60, seed=1)
        reply = await model.agenerate(ask, tools=[UNITS], config=cfg)
    finally:
        model.close()
    # the enum leaves the call a few tokens long: it always closes within the limit
    [call] = reply.tool_calls()
    assert call.name == "set_units" and call.partial_args is None
    assert call.args in ({"unit": "celsius"}, {"unit": "fahrenheit"})
    assert reply.text() == ""
    assert reply.metadata["finish_reason"] == "tool_calls"


async def test_auto_tool_choice_lets_a_reply_open_as_plain_text(bundled_path: Path) -> None:
    model = nudged(bundled_path, -100.0)
    try:
        ask = [Message.text_message("Show temperatures in fahrenheit, please.")]
        reply = await model.agenerate(ask, tools=[UNITS], config=GREEDY)
    finally:
        model.close()
    assert reply.tool_calls() == []
    assert reply.text().strip(), "the grammar's free text has at least one character"
    assert not reply.text().startswith("<"), "free text never opens like a call"
    assert reply.metadata["finish_reason"] in ("stop", "length")


async def test_a_conversation_with_tool_results_renders(local_model: LlamaCppChatModel) -> None:
    history = [
        Message.text_message("Weather in Oslo?"),
        Message(
            role="assistant",
            content=[ToolCallBlock(id="c1", name="get_weather", args={"city": "Oslo"})],
        ),
        Message.tool_message([ToolResultBlock(call_id="c1", output={"temp_c": 4})]),
    ]
    reply = await local_model.agenerate(history, tools=[WEATHER], config=GREEDY)
    assert reply.text() or reply.tool_calls()


async def test_the_system_prompt_reaches_the_prompt(local_model: LlamaCppChatModel) -> None:
    await local_model.aload()
    template = local_model.template
    assert template is not None and not template.is_fallback
    prompt = template.render([{"role": "system", "content": "SYS-MARK"},
                              {"role": "user", "content": "hi"}], [])  # fmt: skip
    assert "SYS-MARK" in prompt
    with_tools = template.render([{"role": "user", "content": "hi"}], [WEATHER])
    assert "get_weather" in with_tools


async def test_an_image_is_left_out_with_a_line_saying_so(local_model: LlamaCppChatModel) -> None:
    image = ImageBlock(
        media=MediaRef(
            kind="data", data_base64="iVBORw0KGgo=", mime_type="image/png", filename="cat.png"
        )
    )
    msg = Message(role="user", content=[TextBlock(text="What is in this picture?"), image])
    assert plain_messages([msg], "SmolLM2")[0]["content"] == (
        "What is in this picture?\n[The user attached an image (cat.png) here, but it is not "
        "shown: SmolLM2 is a text-only model.]"
    )
    reply = await local_model.agenerate([msg], config=GREEDY)
    assert reply.text().strip()


async def test_a_prompt_longer_than_the_context_is_a_clear_error(
    local_model: LlamaCppChatModel,
) -> None:
    huge = [Message.text_message("word " * 5000)]
    with pytest.raises(ModelError, match="does not fit"):
        await local_model.agenerate(huge, config=GREEDY)


async def test_a_conversation_longer_than_the_first_context_is_answered(
    bundled_path: Path,
) -> None:
    # the model loads with a small context and grows it when a conversation needs more
    model = LlamaCppChatModel(bundled_path, n_ctx=4096)
    try:
        short = await model.agenerate(QUESTION[1:], config=GenerationConfig(max_tokens=8))
        assert short.text().strip()
        assert model.llama is not None and model.llama.n_ctx() == FIRST_CONTEXT
        long = [Message.text_message("Here is a list: " + "apple, pear, plum, " * 300 + "Go on.")]
        answer = await model.agenerate(long, config=GenerationConfig(max_tokens=8))
        assert answer.text().strip()
        assert model.llama is not None and model.llama.n_ctx() > FIRST_CONTEXT
        huge = [Message.text_message("word " * 5000)]
        with pytest.raises(ModelError, match=r"context window \(4096 tokens\)"):
            await model.agenerate(huge, config=GREEDY)
    finally:
        model.close()


def test_the_context_grows_in_powers_of_two_up_to_the_limit() -> None:
    assert context_for(0, 4096) == FIRST_CONTEXT
    assert context_for(FIRST_CONTEXT + 1, 4096) == 2 * FIRST_CONTEXT
    assert context_for(100_000, 4096) == 4096
    assert context_for(0, 512) == 512


def test_missing_template_falls_back_to_chatml_and_says_so() -> None:
    tpl = ChatTemplate.from_metadata({}, eos="</s>", bos="<s>")
    assert tpl.is_fallback and "no chat template" in tpl.note
    prompt = tpl.render([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}], [])
    assert "<|im_start|>system\nS" in prompt


def test_a_template_that_drops_system_prompts_gets_them_folded_in() -> None:
    source = (
        "{% for m in messages %}{% if m['role'] != 'system' %}<{{ m['role'] }}>{{ m['content'] }}"
        "{% endif %}{% endfor %}<assistant>"
    )
    tpl = ChatTemplate.from_metadata({"tokenizer.chat_template": source}, eos="", bos="")
    assert not tpl.keeps_system and "system" in tpl.note
    prompt = tpl.render(
        [{"role": "system", "content": "BE KIND"}, {"role": "user", "content": "U"}], []
    )
    assert "BE KIND" in prompt


async def test_a_missing_file_is_a_model_error(tmp_path: object) -> None:
    model = LlamaCppChatModel(f"{tmp_path}/nope.gguf")
    try:
        with pytest.raises(ModelError, match="does not exist"):
            await model.agenerate(QUESTION)
    finally:
        model.close()
