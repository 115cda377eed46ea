"""The running summary of messages trimmed from the context: the newest lines that fit."""

from __future__ import annotations

from app.core.agent._trim import summarise
from app.core.state import Message


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
