"""The running summary of messages trimmed from the context: the newest lines that fit."""

from __future__ import annotations

import random
from collections.abc import Iterator

from app.core.agent._trim import summarise, summarise_newest, trim, trim_newest
from app.core.agent.factory import _model_input_newest_first
from app.core.state import Message
from app.core.state.message_block import ToolCallBlock, ToolResultBlock
from app.core.state.message_marks import marks


def _history(count: int) -> list[Message]:
    return [
        Message.text_message(f"message number {i}", role="user" if i % 2 else "assistant")
        for i in range(count)
    ]


def test_a_long_history_is_summarised_by_its_newest_lines() -> None:
    text = summarise("- user: what came before", _history(10_000), limit_chars=400)
    assert text.startswith("…\n")
    assert len(text) == 402
    assert text.endswith("- user: message number 9999")
    assert "- assistant: message number 9998\n- user: message number 9999" in text
    assert "message number 9000" not in text
    assert "what came before" not in text


def test_a_short_history_keeps_the_summary_before_it_and_every_line() -> None:
    text = summarise("- user: what came before", _history(3), limit_chars=400)
    assert text == (
        "- user: what came before\n- assistant: message number 0\n"
        "- user: message number 1\n- assistant: message number 2"
    )


NOT_RUN = "Not run: the conversation moved on before it was approved."


def _forward_input(context: list[Message]) -> list[Message]:
    """What the model is sent, made the plain way: every message, front to back."""
    context = [m for m in context if m.agent is None]
    answered = {r.call_id for m in context if m.role == "tool" for r in m.tool_results()}
    out: list[Message] = []
    for i, message in enumerate(context):
        out.append(message)
        if message.role != "assistant" or i == len(context) - 1:
            continue
        missing = [c.id for c in message.tool_calls() if c.id not in answered]
        if missing and context[i + 1].role != "tool":
            out.append(
                Message.tool_message([ToolResultBlock(call_id=c, output=NOT_RUN) for c in missing])
            )
    return out


def _random_history(rng: random.Random, count: int) -> list[Message]:
    out: list[Message] = []
    for i in range(count):
        kind = rng.random()
        if kind < 0.15:
            call = ToolCallBlock(id=f"c{i}", name="look_up", args={"q": "x" * rng.randint(0, 90)})
            out.append(Message(role="assistant", content=[call]))
            if rng.random() < 0.7:  # some calls are answered, some left behind
                out.append(Message.tool_message([ToolResultBlock(call_id=f"c{i}", output="ok")]))
        elif kind < 0.2:
            out.append(
                Message(role="assistant", content="a delegate's step", metadata=marks(agent="R"))
            )
        else:
            role = "user" if i % 2 else "assistant"
            out.append(Message.text_message(f"message {i} " + "w" * rng.randint(0, 400), role=role))
    return out


def _shape(messages: list[Message]) -> list[tuple[str, str, list[str]]]:
    return [
        (m.role, m.text(), [r.call_id for r in m.tool_results()] or [c.id for c in m.tool_calls()])
        for m in messages
    ]


def test_reading_back_from_the_newest_sends_and_summarises_what_the_whole_walk_did() -> None:
    rng = random.Random(11)
    for _ in range(60):
        history = _random_history(rng, rng.randint(1, 120))
        budget = rng.randint(20, 3000)
        dropped, kept = trim(_forward_input(history), budget)
        got, rest = trim_newest(_model_input_newest_first(history), budget)
        assert _shape(got) == _shape(kept)
        rest_list = list(rest)
        assert _shape(rest_list[::-1]) == _shape(dropped)
        assert summarise_newest(None, iter(rest_list)) == summarise(None, dropped)


class _Counted(list[Message]):
    """A history that counts how many of its messages were walked back over."""

    walked = 0

    def __reversed__(self) -> Iterator[Message]:
        for message in super().__reversed__():
            self.walked += 1
            yield message


def test_a_long_history_is_walked_back_only_as_far_as_the_window_holds() -> None:
    history = _Counted(_history(10_000))
    kept, dropped = trim_newest(_model_input_newest_first(history), 500)
    assert kept[-1].text() == "message number 9999" and len(kept) < 100
    summary = summarise_newest(None, dropped, limit_chars=400)
    assert summary.endswith(f"message number {9999 - len(kept)}")
    assert history.walked < 200  # not 10,000
