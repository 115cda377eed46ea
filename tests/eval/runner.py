"""Run the public evaluation set on a local model: Parley's default chat and agent, or
llama.cpp's own chat completion (the peer). Used by ``make bench`` and the slow tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from app.core.models.protocol import GenerationConfig, ToolSpec
from app.core.state.message import Message
from app.core.state.message_block import ToolCallBlock, ToolResultBlock
from app.providers.local import LlamaCppChatModel
from app.services.models.service import DEFAULT_SYSTEM_PROMPT
from app.tools.builtin import BUILTIN_TOOLS
from tests.eval.scoring import AfterTool, EvalSet, Tally, score_tool_reply

ANSWER_TOKENS = 48
CALL_TOKENS = 96


def agent_tools(evalset: EvalSet) -> list[ToolSpec]:
    """The tools offered in the tool prompts: the built-in ones and the set's extra ones."""
    return [t.spec for t in BUILTIN_TOOLS] + list(evalset.extra_tools)


def _turn(prompt: str, system: str | None) -> list[Message]:
    first = [Message.text_message(system, role="system")] if system else []
    return [*first, Message.text_message(prompt)]


async def parley_chat(
    model: LlamaCppChatModel,
    evalset: EvalSet,
    *,
    system: str | None = DEFAULT_SYSTEM_PROMPT,
    limit: int | None = None,
) -> Tally:
    """Score Parley's chat as the default thread sends it: its system prompt, the model's
    recipe for everything else."""
    tally = Tally()
    cfg = GenerationConfig(max_tokens=ANSWER_TOKENS, seed=1)
    for q in evalset.questions[:limit]:
        reply = await model.agenerate(_turn(q.prompt, system), config=cfg)
        tally.add_answer(q, reply.text())
    return tally


async def parley_agent(
    model: LlamaCppChatModel,
    evalset: EvalSet,
    *,
    system: str | None = DEFAULT_SYSTEM_PROMPT,
    limit: int | None = None,
) -> Tally:
    """Score the first step of Parley's agent on each tool prompt (tool choice ``auto``)."""
    tools = agent_tools(evalset)
    tally = Tally()
    cfg = GenerationConfig(max_tokens=CALL_TOKENS, seed=1)
    for t in evalset.tool_prompts[:limit]:
        reply = await model.agenerate(_turn(t.prompt, system), tools=tools, config=cfg)
        tally.add_tool(score_tool_reply(t, reply.tool_calls(), tools), t.id)
    return tally


def after_tool_turns(case: AfterTool, system: str | None) -> list[Message]:
    """The conversation as the agent has it when the tool's output is back: the request, the
    model's call and the tool's result."""
    call = ToolCallBlock(id="call_1", name=case.tool, args=case.args)
    return [
        *_turn(case.prompt, system),
        Message(role="assistant", content=[call]),
        Message.tool_message(
            [ToolResultBlock(call_id="call_1", name=case.tool, output=case.output)]
        ),
    ]


async def parley_after_tool(
    model: LlamaCppChatModel,
    evalset: EvalSet,
    *,
    system: str | None = DEFAULT_SYSTEM_PROMPT,
    limit: int | None = None,
) -> Tally:
    """Score the agent's answer once a tool's output is back (tools still offered, as in a
    run): it passes when it states the output."""
    tools = agent_tools(evalset)
    tally = Tally()
    cfg = GenerationConfig(max_tokens=ANSWER_TOKENS, seed=1)
    for case in evalset.after_tool[:limit]:
        reply = await model.agenerate(after_tool_turns(case, system), tools=tools, config=cfg)
        tally.add_answer(case, reply.text())
    return tally


def peer_after_tool(llama: Any, evalset: EvalSet, *, limit: int | None = None) -> Tally:
    """The same through llama.cpp's chat completion with the GGUF's own template: the call as
    the assistant's turn and the output as a ``tool`` turn, as the template writes them."""
    tally = Tally()
    for case in evalset.after_tool[:limit]:
        llama.reset()
        call = json.dumps({"name": case.tool, "arguments": case.args})
        out = llama.create_chat_completion(
            messages=[
                {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
                {"role": "user", "content": case.prompt},
                {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
                {"role": "tool", "content": case.output},
            ],
            max_tokens=ANSWER_TOKENS,
            seed=1,
        )
        tally.add_answer(case, out["choices"][0]["message"]["content"] or "")
    return tally


def peer_chat(llama: Any, evalset: EvalSet, *, limit: int | None = None) -> Tally:
    """Score llama.cpp's ``create_chat_completion`` with the GGUF's own template and its
    default sampling, sent the same system prompt and question."""
    tally = Tally()
    for q in evalset.questions[:limit]:
        llama.reset()
        out = llama.create_chat_completion(
            messages=[
                {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
                {"role": "user", "content": q.prompt},
            ],
            max_tokens=ANSWER_TOKENS,
            seed=1,
        )
        tally.add_answer(q, out["choices"][0]["message"]["content"] or "")
    return tally


def peer_agent(llama: Any, evalset: EvalSet, *, limit: int | None = None) -> Tally:
    """Score llama.cpp's own function calling (``chatml-function-calling``, tool choice
    ``auto``) on the tool prompts."""
    tools = agent_tools(evalset)
    defs = [
        {"type": "function", "function": {"name": t.name, "description": t.description,
                                          "parameters": t.parameters}}
        for t in tools
    ]  # fmt: skip
    tally = Tally()
    for t in evalset.tool_prompts[:limit]:
        llama.reset()
        out = llama.create_chat_completion(
            messages=[
                {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
                {"role": "user", "content": t.prompt},
            ],
            tools=defs,
            tool_choice="auto",
            max_tokens=CALL_TOKENS,
            seed=1,
        )
        calls = _peer_calls(out["choices"][0]["message"].get("tool_calls") or [])
        tally.add_tool(score_tool_reply(t, calls, tools), t.id)
    return tally


def _peer_calls(raw: Sequence[dict[str, Any]]) -> list[ToolCallBlock]:
    calls = []
    for i, c in enumerate(raw):
        text = c["function"].get("arguments") or "{}"
        try:
            args = json.loads(text)
        except ValueError:
            calls.append(ToolCallBlock(id=str(i), name=c["function"]["name"], partial_args=text))
            continue
        calls.append(
            ToolCallBlock(
                id=str(i), name=c["function"]["name"], args=args if isinstance(args, dict) else {}
            )
        )
    return calls
