"""The bundled model as a new user meets it: ``parley chat`` in a fresh data directory, in a
real process, answers and saves the thread; with tools, every call it makes is answered and
the turn ends with a reply; on the public set, every call the default agent makes is held by
the grammar. Only what holds on every build is checked here: llama.cpp is compiled for the CPU
it is built on, so greedy decoding, and with it any score or wording, differs from machine to
machine. Scores (Paris, the clock, the public set) are in ``make bench`` (bench_scores)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.models.protocol import GenerationConfig
from app.core.state.message import Message
from app.providers.local import LlamaCppChatModel
from app.services.models.service import DEFAULT_SYSTEM_PROMPT
from app.store import Store
from tests.cli import process
from tests.eval.runner import CALL_TOKENS, agent_tools
from tests.eval.scoring import call_valid, load_set

# a busy machine runs the model many times slower: room for that, not a speed check
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def parley(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return process.parley(*args, data_dir=data_dir, timeout=800)


async def saved_thread(done: subprocess.CompletedProcess[str], data_dir: Path) -> list[Message]:
    """The messages of the thread a ``parley chat`` run started."""
    async with Store.open_data_dir(str(data_dir)) as store:
        return (await store.read_messages(process.new_thread_id(done.stderr))).messages


async def test_a_first_question_is_answered_and_saved(tmp_path: Path) -> None:
    question = "What is the capital of France?"
    done = parley("chat", question, data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    messages = await saved_thread(done, tmp_path)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[0].text() == question
    answer = messages[1].text()
    assert answer.strip(), "the answer is empty"
    assert done.stdout == f"{answer}\n"


async def test_with_tools_every_call_is_answered_and_the_turn_ends_with_a_reply(
    tmp_path: Path,
) -> None:
    done = parley("chat", "--tools", "What time is it now?", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    messages = await saved_thread(done, tmp_path)
    calls = {c.id for m in messages for c in m.tool_calls()}
    answered = {r.call_id for m in messages for r in m.tool_results()}
    assert calls == answered
    for call in (c for m in messages for c in m.tool_calls()):
        assert f"[{call.name}: started]" in done.stdout
    assert messages[-1].role == "assistant" and not messages[-1].tool_calls()


@pytest.fixture(scope="module")
def model() -> Iterator[LlamaCppChatModel]:
    loaded = LlamaCppChatModel(n_ctx=2048)
    try:
        yield loaded
    finally:
        loaded.close()


# 20 grammar-held replies: on a busy machine this takes longer than the other tests
@pytest.mark.timeout(2400)
async def test_every_call_of_the_default_agent_parses_or_is_reported_cut(
    model: LlamaCppChatModel,
) -> None:
    evalset = load_set()
    tools = agent_tools(evalset)
    cfg = GenerationConfig(max_tokens=CALL_TOKENS, seed=1)
    for prompt in evalset.tool_prompts:
        turn = [Message.text_message(DEFAULT_SYSTEM_PROMPT, role="system"),
                Message.text_message(prompt.prompt)]  # fmt: skip
        reply = await model.agenerate(turn, tools=tools, config=cfg)
        finish = reply.metadata["finish_reason"]
        if not reply.tool_calls():
            assert finish in ("stop", "length"), prompt.id
            continue
        if finish == "length":
            assert model.last_run.tokens >= CALL_TOKENS, prompt.id
            continue
        assert finish == "tool_calls", prompt.id
        for call in reply.tool_calls():
            assert call_valid(call, tools), (prompt.id, call)
