"""The bundled model on Parley's public evaluation set, and its speed.

Quality: the default offline chat (Parley's system prompt, the model's recipe) beside
llama.cpp's own ``create_chat_completion`` with the GGUF's template and default sampling; the
recipes tried for the bundled model, each on the same set (the default must reach 85% of the
best); the default offline agent's first step on the tool prompts beside llama.cpp's own
function calling. Speed: prompt processing in Parley beside llama-cpp-python called directly
and how batch size changes it; decoding beside llama-cpp-python at every thread count (see
:mod:`bench._local_decode`).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from typing import Any

import llama_cpp

from app.core.models.protocol import GenerationConfig
from app.core.state.message import Message
from app.providers._llama_load import load_llama, model_params
from app.providers.bundled import bundled_model_path
from app.providers.local import LlamaCppChatModel
from bench._local_decode import decode_rows
from bench.table import Row
from tests.eval.runner import (
    CALL_TOKENS,
    parley_after_tool,
    parley_agent,
    parley_chat,
    peer_after_tool,
    peer_agent,
    peer_chat,
)
from tests.eval.scoring import load_set

GROUP = "local models"
VARIANTS: dict[str, dict[str, Any]] = {
    "file template, system kept, sampled 0.7 (before recipes)": {
        "system": "keep", "file_template": True, "temperature": 0.7, "repeat_penalty": 1.0},
    "file template, system kept, greedy": {"system": "keep", "file_template": True},
    "system folded into the user turn, greedy": {"system": "fold", "file_template": True},
}  # fmt: skip
LONG_PROMPT = " ".join(["The quick brown fox jumps over the lazy dog."] * 40)
DECODE_TOKENS = 128


def inside_context(llama: llama_cpp.Llama, budget: int) -> llama_cpp.Llama:
    """Keep llama.cpp's own function calling inside its context window.

    Its handler asks each step (a call's arguments, whether another call follows) for as many
    tokens as the context holds, whatever ``max_tokens`` the caller gave; a model that keeps
    writing arguments fills the context, and the next step then asks for more than fits
    ("Requested tokens (2049) exceed context window"). Here each step gets ``budget`` tokens,
    fewer when less room is left, and a step with no room left writes nothing (which ends
    the calls), as a server would stop at its context's end.
    """
    complete = llama.create_completion

    def bounded(prompt: str | list[int], **kwargs: Any) -> Any:
        text = prompt.encode("utf-8") if isinstance(prompt, str) else b""
        used = len(llama.tokenize(text, special=True)) if text else len(prompt)
        room = llama.n_ctx() - used - 1
        if room < 1:
            choice = {"text": "", "index": 0, "logprobs": None, "finish_reason": "length"}
            usage = {"prompt_tokens": used, "completion_tokens": 0, "total_tokens": used}
            return {"id": "cmpl-full", "object": "text_completion", "created": int(time.time()),
                    "model": llama.model_path, "choices": [choice], "usage": usage}  # fmt: skip
        kwargs["max_tokens"] = min(kwargs.get("max_tokens") or budget, room)
        return complete(prompt, **kwargs)

    llama.create_completion = bounded  # type: ignore[method-assign]
    return llama


def _model(**overrides: Any) -> LlamaCppChatModel:
    return LlamaCppChatModel(n_ctx=2048, recipe_overrides=overrides or None)


async def _quality_rows() -> list[Row]:
    evalset = load_set()
    path = bundled_model_path()
    assert path is not None
    default = _model()
    try:
        chat = await parley_chat(default, evalset)
        agent = await parley_agent(default, evalset)
        after = await parley_after_tool(default, evalset)
    finally:
        default.close()
    after_scores = {"plain": after.answer_rate}
    for how in ("turns", "facts"):
        model = _model(after_tools=how)
        try:
            after_scores[how] = (await parley_after_tool(model, evalset)).answer_rate
        finally:
            model.close()
    scores: dict[str, float] = {"default recipe (no system turn, greedy)": chat.answer_rate}
    for label, overrides in VARIANTS.items():
        model = _model(**overrides)
        try:
            scores[label] = (await parley_chat(model, evalset)).answer_rate
        finally:
            model.close()
    with model_params():
        peer = llama_cpp.Llama(model_path=str(path), n_ctx=2048, verbose=False)
        calling = inside_context(
            llama_cpp.Llama(
                model_path=str(path),
                n_ctx=2048,
                verbose=False,
                chat_format="chatml-function-calling",
            ),
            CALL_TOKENS,
        )
    peer_tally = peer_chat(peer, evalset)
    peer_tools = peer_agent(calling, evalset)
    peer_after = peer_after_tool(peer, evalset)
    peer.close()
    calling.close()
    best = max(scores.values())
    n = chat.questions
    rows = [
        Row(GROUP, f"default chat: {n} questions answered right", chat.answer_rate, "%",
            peer_tally.answer_rate, "llama.cpp chat completion, GGUF template",
            ">= peer and >= 85% of best recipe",
            chat.answer_rate >= peer_tally.answer_rate and chat.answer_rate >= 0.85 * best,
            higher_is_better=True),
    ]  # fmt: skip
    for label, score in scores.items():
        rows.append(Row(GROUP, f"recipe: {label}", score, "%", peer_tally.answer_rate,
                        "llama.cpp chat completion", higher_is_better=True))  # fmt: skip
    m = agent.tool_prompts
    for name, ours, theirs in [
        (f"default agent: right decision (call or not) of {m}", agent.decision_rate,
         peer_tools.decision_rate),
        ("default agent: calls made that are valid", agent.valid_rate, peer_tools.valid_rate),
        (f"default agent: whole call right of {m}", agent.correct_rate, peer_tools.correct_rate),
    ]:  # fmt: skip
        rows.append(Row(GROUP, name, ours, "%", theirs, "llama.cpp chatml-function-calling",
                        higher_is_better=True))  # fmt: skip
    k = after.questions
    rows.append(Row(GROUP, f"default agent: answer states the tool's output, of {k}",
                    after.answer_rate, "%", peer_after.answer_rate,
                    "llama.cpp chat completion, GGUF template", ">= peer",
                    after.answer_rate >= peer_after.answer_rate,
                    higher_is_better=True))  # fmt: skip
    for how, label in [("turns", "tool listing and <tool_response> turns (before)"),
                       ("facts", "request restated after the outputs")]:  # fmt: skip
        rows.append(Row(GROUP, f"after a tool: {label}", after_scores[how], "%",
                        peer_after.answer_rate, "llama.cpp chat completion",
                        higher_is_better=True))  # fmt: skip
    return rows


def _direct_speed(llama: llama_cpp.Llama, tokens: list[int]) -> tuple[float, float]:
    """Prompt tokens/s and decode tokens/s of llama-cpp-python called directly."""
    llama.reset()
    start = time.perf_counter()
    llama.eval(tokens)
    pp = len(tokens) / (time.perf_counter() - start)
    start = time.perf_counter()
    made = 0
    # the prompt is cached: generate() reuses it and decodes from its last token
    for tok in llama.generate(tokens, temp=0.0, reset=True):
        made += 1
        if made >= DECODE_TOKENS or tok == llama.token_eos():
            break
    return pp, made / (time.perf_counter() - start)


async def _parley_speed(model: LlamaCppChatModel, text: str) -> tuple[float, float]:
    """Prompt tokens/s (to the first token) and decode tokens/s through Parley's adapter."""
    llama = model.llama
    assert llama is not None
    llama.reset()
    cfg = GenerationConfig(temperature=0, max_tokens=DECODE_TOKENS, seed=1, extra={"min_p": 0})
    start = time.perf_counter()
    first = 0.0
    async for piece in model.astream([Message.text_message(text)], config=cfg):
        if piece.text() and not first:
            first = time.perf_counter()
    end = time.perf_counter()
    stats = model.last_run
    return stats.prompt_tokens / (first - start), (stats.tokens - 1) / (end - first)


async def _speed_rows() -> list[Row]:
    model = _model()
    rows = []
    try:
        await model.aload()
        llama, template = model.llama, model.template
        assert llama is not None and template is not None and model.recipe is not None
        text = f"Summarise this text: {LONG_PROMPT}"
        tokens = model.prompt_tokens(
            llama, template.render([{"role": "user", "content": text}], [], model.recipe)
        )
        await model.aload(len(tokens) + DECODE_TOKENS)  # the context this prompt grows it to
        llama = model.llama
        assert llama is not None
        # on the thread Parley decodes on: llama.cpp slows down once a second thread runs it
        direct = [await model.on_worker(lambda: _direct_speed(llama, tokens)) for _ in range(3)]
        ours = [await _parley_speed(model, text) for _ in range(3)]
    finally:
        model.close()
    d_pp = statistics.median(x[0] for x in direct)
    o_pp = statistics.median(x[0] for x in ours)
    rows += [
        Row(GROUP, f"prompt processing ({len(tokens)} tokens)", o_pp, "tok/s", d_pp,
            "llama-cpp-python", ">= 90% of peer", o_pp >= 0.9 * d_pp, higher_is_better=True),
    ]  # fmt: skip
    rows += _settings_rows(tokens, d_pp)
    return rows


def _settings_rows(tokens: list[int], pp: float) -> list[Row]:
    """Direct llama-cpp-python prompt processing with other batch sizes, beside the one
    Parley uses (batch 512 read 256 tokens a pass, every core)."""
    path = bundled_model_path()
    cores = os.cpu_count() or 1
    rows = []
    for label, batch in [("batch 64", 64), ("batch 2048", 2048)]:
        llama = load_llama(path or "", n_ctx=2048, n_batch=batch, n_ubatch=batch)
        try:
            got = [_direct_speed(llama, tokens) for _ in range(2)]
        finally:
            llama.close()
        rows.append(Row(GROUP, f"llama.cpp prompt processing with {label}",
                        statistics.median(x[0] for x in got), "tok/s", pp,
                        f"{cores} threads, batch 512/256", higher_is_better=True))  # fmt: skip
    return rows


def run() -> list[Row]:
    """Measure and return the rows."""

    async def main() -> list[Row]:
        return [*(await _quality_rows()), *(await _speed_rows())]

    # the decode rows are measured once a run, the same figures as the providers' group
    return [*asyncio.run(main()), *decode_rows(GROUP, detail=True)]
