"""Run the public evaluation set on a local model: Parley's default chat and agent, or
llama.cpp's own chat completion (the peer). Used by ``make bench`` and the slow tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from app.core.models.protocol import GenerationConfig, ToolSpec
from app.core.state.message import Message
from app.core.state.message_block import ToolCallBlock
from app.providers.local import LlamaCppChatModel
from app.services.workspace import DEFAULT_SYSTEM_PROMPT
from app.tools.builtin import BUILTIN_TOOLS
from tests.eval.scoring import EvalSet, Tally, score_tool_reply

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
