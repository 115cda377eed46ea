"""What the tool-loop benchmark counts as a turn in circles, on turns as ``parley threads
export`` writes them. (Not a benchmark: no model runs; the model's figures are in
``make bench``.)"""

from __future__ import annotations

from typing import Any

from bench.bench_tool_loops import summarize, summary_rows, turn_figures
from bench.table import render


def _call(number: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_call", "id": f"call_{number}", "name": name, "args": args}


def _assistant(*content: dict[str, Any], **metadata: str) -> dict[str, Any]:
    return {"role": "assistant", "content": list(content), "metadata": metadata}


def _text(role: str, text: str, **metadata: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}], "metadata": metadata}


def _result(number: int, output: str, **metadata: str) -> dict[str, Any]:
    block = {"type": "tool_result", "call_id": f"call_{number}", "output": output}
    return {"role": "tool", "content": [block], "metadata": metadata}


def _export(context: list[dict[str, Any]], model_calls: float, tokens: float) -> dict[str, Any]:
    spent = {"model_calls": model_calls, "tool_calls": 0.0, "tokens": tokens, "cost": 0.0}
    return {"format": "parley.thread", "state": {"context": context,
            "execution_meta": {"status": "completed", "spent": spent}}}  # fmt: skip


NO_FOLDER = "no folder is shared with Parley, so no file can be used"

READ_FIVE_TIMES = _export(
    [
        _text("user", "How do I pretty print a nested dictionary?"),
        *(
            message
            for n in range(4)
            for message in (
                _assistant(_call(n, "read_file", {"path": "test.txt"})),
                _result(n, NO_FOLDER, tool_error="error"),
            )
        ),
        _text("assistant", "I ran out of steps.", end_reason="out_of_steps"),
    ],
    model_calls=5,
    tokens=4100,
)
"""The turn the old code had: the same failing call, again and again, until the limit."""

STOPPED = _export(
    [
        _text("user", "Read notes.txt"),
        _assistant(_call(1, "read_file", {"path": "notes.txt"})),
        _result(1, NO_FOLDER, tool_error="error"),
        _assistant(_call(2, "read_file", {"path": "notes.txt"})),
        _result(2, "Not run: you already called read_file ...", tool_error="repeated"),
        _assistant(
            _call(3, "read_file", {"path": "notes.txt"}),
            {"type": "text", "text": "Helper kept asking for the same failing call; stopped."},
            end_reason="repeated_call",
        ),
    ],
    model_calls=3,
    tokens=1500,
)

ANSWERED = _export(
    [
        _text("user", "What time is it now?"),
        _assistant(_call(1, "current_time", {})),
        _result(1, "2026-12-03T13:07:57+00:00"),
        _text("assistant", "It is 13:07."),
    ],
    model_calls=2,
    tokens=416,
)

DIFFERENT_ARGUMENTS = _export(
    [
        _text("user", "What is 2*3, 2*4 and 2*5?"),
        _assistant(_call(1, "calculator", {"expression": "2*3"})),
        _result(1, "6"),
        _assistant(_call(2, "calculator", {"expression": "2*4"})),
        _result(2, "8"),
        _assistant(_call(3, "calculator", {"expression": "2*5"})),
        _result(3, "10"),
        _text("assistant", "6, 8 and 10."),
    ],
    model_calls=4,
    tokens=900,
)


def test_the_same_failing_call_asked_again_and_again_is_a_turn_in_circles() -> None:
    figures = turn_figures(READ_FIVE_TIMES)
    assert figures.most_same_calls == 4
    assert figures.same_call_loop and not figures.stopped_repeating and figures.in_circles
    assert (figures.model_calls, figures.tokens) == (5, 4100)


def test_a_turn_stopped_for_asking_again_is_in_circles_and_named_apart() -> None:
    figures = turn_figures(STOPPED)
    assert figures.stopped_repeating and figures.in_circles
    assert figures.most_same_calls == 3


def test_calls_with_different_arguments_and_one_answered_call_are_no_loop() -> None:
    assert not turn_figures(DIFFERENT_ARGUMENTS).in_circles
    assert turn_figures(DIFFERENT_ARGUMENTS).most_same_calls == 1
    assert not turn_figures(ANSWERED).in_circles


def test_only_the_last_turn_counts_and_a_delegates_calls_are_its_own() -> None:
    earlier = READ_FIVE_TIMES["state"]["context"]
    last = ANSWERED["state"]["context"]
    delegate = [
        _assistant(_call(7, "current_time", {}), agent="Clock"),
        _assistant(_call(8, "current_time", {}), agent="Clock"),
        _assistant(_call(9, "current_time", {}), agent="Clock"),
    ]
    both = _export([*earlier, *last[:2], *delegate, *last[2:]], model_calls=2, tokens=416)
    assert turn_figures(both).most_same_calls == 1
    assert not turn_figures(both).in_circles


def test_the_rows_give_the_share_in_circles_by_kind_and_the_means_beside_the_peer() -> None:
    after = summarize([turn_figures(t) for t in (ANSWERED, DIFFERENT_ARGUMENTS, STOPPED)])
    before = summarize([turn_figures(t) for t in (ANSWERED, READ_FIVE_TIMES, READ_FIVE_TIMES)])
    assert (after.circles, after.same_call_loops, after.stopped) == (1, 1, 1)
    lines = render(summary_rows(after, before, "old, before")).splitlines()
    circles, tokens, calls = lines[2:5]
    assert "turns in circles (same call asked 3+ times: 1; stopped for asking again: 1)" in circles
    assert "33.33 %" in circles and "66.67 % (old, before)" in circles
    assert circles.split()[-3:] == ["2x", "0%", "NO"]  # better by, target, met
    assert "tokens per turn" in tokens and "938.7 tokens" in tokens and "2872 tokens" in tokens
    assert "model calls per turn" in calls and "3 calls" in calls and "4 calls (old" in calls


def test_no_peer_gives_the_figures_alone_and_no_circles_meets_the_target() -> None:
    alone = summarize([turn_figures(ANSWERED), turn_figures(DIFFERENT_ARGUMENTS)])
    rows = summary_rows(alone, None, "")
    assert [r.peer for r in rows] == [None, None, None]
    assert rows[0].value == 0 and rows[0].ok is True
    assert rows[1].value == (416 + 900) / 2
