"""``add_messages``: append, upsert in place, remove, and merge streamed chunks, as laws."""

from __future__ import annotations

import copy
import functools
import itertools
import operator
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.errors import UserError
from app.core.state import (
    REMOVE_ALL_MESSAGES,
    Message,
    ReasoningBlock,
    RemoveMessage,
    TextBlock,
    TokenUsages,
    ToolCallBlock,
    add_messages,
)
from app.core.state.reducers import MessageList
from tests.core.state.strategies import (
    examples,
    floats,
    int64s,
    json_objects,
    opt_text,
    small_text,
    split_count,
    split_text,
    tool_call_json,
    usages,
)

LAWS = examples(150)


def text(message_id: str | int, body: str = "") -> Message:
    """A small user message with a chosen id."""
    return Message.text_message(body or f"m{message_id}", message_id=message_id)


ids = st.text(max_size=4) | st.integers(-5, 5)
histories = st.lists(ids, unique=True, max_size=12).map(lambda xs: [text(i) for i in xs])


def ids_of(messages: list[Message]) -> list[str | int]:
    return [m.message_id for m in messages]


# --- append, upsert, remove -------------------------------------------------------------------


@LAWS
@given(histories, histories)
def test_new_ids_are_appended_in_order(left: list[Message], right: list[Message]) -> None:
    fresh = [m for m in right if m.message_id not in set(ids_of(left))]
    assert add_messages(left, fresh) == [*left, *fresh]


@LAWS
@given(histories, st.data())
def test_upsert_keeps_position(left: list[Message], data: st.DataObject) -> None:
    if not left:
        return
    pos = data.draw(st.integers(0, len(left) - 1))
    replacement = text(left[pos].message_id, data.draw(st.text(min_size=1)))
    out = add_messages(left, replacement)
    assert out == [*left[:pos], replacement, *left[pos + 1 :]]


@LAWS
@given(histories, st.data())
def test_remove_then_add_moves_the_message_to_the_end(
    left: list[Message], data: st.DataObject
) -> None:
    if not left:
        return
    victim = data.draw(st.sampled_from(left))
    again = text(victim.message_id, "back")
    out = add_messages(left, [RemoveMessage(id=victim.message_id), again])
    assert out == [*(m for m in left if m is not victim), again]
    assert add_messages(add_messages(left, RemoveMessage(victim.message_id)), again) == out


@LAWS
@given(histories, histories)
def test_remove_all_keeps_only_what_follows(left: list[Message], right: list[Message]) -> None:
    assert add_messages(left, [RemoveMessage(REMOVE_ALL_MESSAGES), *right]) == right


@LAWS
@given(histories, histories, histories)
def test_adding_in_two_steps_equals_adding_at_once(
    a: list[Message], b: list[Message], c: list[Message]
) -> None:
    assert add_messages(add_messages(a, b), c) == add_messages(a, [*b, *c])


@LAWS
@given(histories, histories)
def test_adding_twice_is_adding_once(left: list[Message], right: list[Message]) -> None:
    once = add_messages(left, right)
    assert add_messages(once, right) == once


@LAWS
@given(histories, histories)
def test_left_is_never_modified(left: list[Message], right: list[Message]) -> None:
    before = copy.deepcopy(left)
    add_messages(left, [*right, *(RemoveMessage(m.message_id) for m in left[:1])])
    assert left == before


def test_removing_an_unknown_id_is_a_user_error() -> None:
    with pytest.raises(UserError, match="'nope'"):
        add_messages([text("a")], RemoveMessage("nope"))


def test_other_item_kinds() -> None:
    out = add_messages(None, [{"role": "user", "content": "hi", "message_id": "d"}, "plain"])
    assert (out[0].message_id, out[0].role, out[0].text()) == ("d", "user", "hi")
    assert out[1].text() == "plain"
    with pytest.raises(UserError, match="int"):
        add_messages([], 42)


def test_the_index_follows_changes_made_outside_the_reducer() -> None:
    history = add_messages([], [text("1"), text("2")])
    history.pop()
    history.append(text("3"))
    out = add_messages(history, text("3", "updated"))
    assert ids_of(out) == ["1", "3"]
    assert out[1].text() == "updated"

    history = add_messages([], [text("1"), text("2")])
    history[0] = text("9")
    assert ids_of(add_messages(history, text("9", "again"))) == ["9", "2"]


def test_a_shallow_copy_has_its_own_index() -> None:
    history = add_messages([], [text("1")])
    twin = copy.copy(history)
    assert isinstance(twin, MessageList)
    add_messages(twin, text("2"))
    twin.append(text("3"))
    assert ids_of(add_messages(history, text("3"))) == ["1", "3"]
    assert ids_of(add_messages(twin, text("3", "x"))) == ["1", "3"]


def test_deep_copies_and_pickles_keep_working() -> None:
    history = add_messages([], [text("1"), text("2")])
    for twin in (copy.deepcopy(history), pickle.loads(pickle.dumps(history))):
        assert isinstance(twin, MessageList)
        assert twin == history
        assert ids_of(add_messages(twin, [text("2", "new"), text("3")])) == ["1", "2", "3"]
    history.sort(key=lambda m: str(m.message_id), reverse=True)
    assert ids_of(add_messages(history, text("1", "x"))) == ["2", "1"]


# --- streamed chunks --------------------------------------------------------------------------


def _one_delta_per_block(events: list[Any]) -> list[Any]:
    """Join a chunk's adjacent pieces of one block, as a provider sends one delta per block."""
    out: list[Any] = []
    for event in events:
        last = out[-1] if out else None
        if type(event) is type(last) and isinstance(event, TextBlock | ReasoningBlock):
            out[-1] = event.model_copy(update={"text": last.text + event.text})
        elif isinstance(event, ToolCallBlock) and isinstance(last, ToolCallBlock):
            if last.id == event.id:
                joined = (last.partial_args or "") + (event.partial_args or "")
                out[-1] = ToolCallBlock(
                    id=last.id,
                    name=last.name,
                    tool_type=last.tool_type,
                    args=last.args,
                    partial_args=joined or None,
                )
            else:
                out.append(event)
        else:
            out.append(event)
    return out


@st.composite
def streamed(draw: st.DrawFn) -> tuple[Message, list[Message]]:
    """A whole assistant message and the ``delta=True`` chunks a provider would stream for it.

    Text and reasoning are split anywhere, tool-call arguments arrive as JSON fragments split
    anywhere, usages are split into parts that sum up, metadata keys are spread over chunks.
    """
    n = draw(st.integers(1, 6))
    message_id = draw(st.text(min_size=1, max_size=8) | int64s)
    thinking = draw(st.none() | st.text())
    body = draw(st.text())
    calls = [
        ToolCallBlock(
            id=call_id,
            name=draw(st.text(min_size=1, max_size=8)),
            args=draw(json_objects),
            tool_type=draw(st.sampled_from([None, "web_search"])),
        )
        for call_id in draw(st.lists(st.text(min_size=1, max_size=6), unique=True, max_size=3))
    ]
    content: list[Any] = []
    events: list[Any] = []
    if thinking is not None:
        content.append(ReasoningBlock(text=thinking))
        pieces = split_text(draw, thinking, draw(st.integers(1, 4)))
        events += [ReasoningBlock(text=p) for p in pieces]
    if body:
        content.append(TextBlock(text=body))
        events += [TextBlock(text=p) for p in split_text(draw, body, draw(st.integers(1, 5)))]
    for call in calls:
        content.append(call)
        fragments = split_text(draw, tool_call_json(call.args), draw(st.integers(1, 5)))
        for k, fragment in enumerate(fragments):
            events.append(
                ToolCallBlock(
                    id=call.id,
                    name=call.name if k == 0 else "",
                    tool_type=call.tool_type if k == 0 else None,
                    partial_args=fragment,
                )
            )
    whole = Message(
        message_id=message_id,
        role="assistant",
        content=content,
        reasoning=draw(opt_text),
        timestamp=draw(st.none() | floats),
        metadata=draw(json_objects),
        usages=draw(st.none() | usages),
        tools_calls=draw(st.none() | st.lists(json_objects, max_size=3)),
        raw=draw(st.none() | json_objects),
    )

    # spread each part of the whole over the n chunks
    cuts = sorted(draw(st.lists(st.integers(0, len(events)), min_size=n - 1, max_size=n - 1)))
    bounds = [0, *cuts, len(events)]
    blocks_per_chunk = [_one_delta_per_block(events[a:b]) for a, b in itertools.pairwise(bounds)]
    reasoning = [None] * n if whole.reasoning is None else split_text(draw, whole.reasoning, n)
    usage_parts: list[TokenUsages | None] = [None] * n
    if whole.usages is not None:
        split = {
            name: split_count(draw, getattr(whole.usages, name), n)
            for name in TokenUsages.model_fields
        }
        usage_parts = [TokenUsages(**{k: v[i] for k, v in split.items()}) for i in range(n)]
    owner = {key: draw(st.integers(0, n - 1)) for key in whole.metadata}
    calls_cut = sorted(
        draw(st.lists(st.integers(0, len(whole.tools_calls or [])), min_size=n, max_size=n))
    )
    calls_cut[0] = 0
    calls_bounds = [*calls_cut, len(whole.tools_calls or [])]
    chunks = []
    for i in range(n):
        chunks.append(
            Message(
                message_id=message_id,
                role="assistant",
                delta=True,
                content=blocks_per_chunk[i],
                reasoning=reasoning[i],
                timestamp=whole.timestamp
                if i == 0 or whole.timestamp is None
                else draw(st.none() | floats),
                metadata={k: v for k, v in whole.metadata.items() if owner[k] == i},
                usages=usage_parts[i],
                tools_calls=None
                if whole.tools_calls is None
                else whole.tools_calls[calls_bounds[i] : calls_bounds[i + 1]],
                raw=whole.raw if i == n - 1 else draw(st.none() | json_objects),
            )
        )
    if whole.raw is None:
        chunks = [c.model_copy(update={"raw": None}) for c in chunks]
    return whole.model_copy(update={"delta": True}), chunks


@LAWS
@given(streamed())
def test_chunks_added_together_make_the_whole_message(case: tuple[Message, list[Message]]) -> None:
    whole, chunks = case
    assert functools.reduce(operator.add, chunks) == whole


@LAWS
@given(streamed(), histories)
def test_chunks_through_the_reducer_make_the_whole_message(
    case: tuple[Message, list[Message]], history: list[Message]
) -> None:
    whole, chunks = case
    history = [m for m in history if m.message_id != whole.message_id]
    assert add_messages(history, chunks) == [*history, whole]
    one_at_a_time: list[Message] = history
    for chunk in chunks:
        one_at_a_time = add_messages(one_at_a_time, chunk)
    assert one_at_a_time == [*history, whole]


def test_a_final_whole_message_replaces_its_chunks() -> None:
    chunks = [Message(role="assistant", message_id="m", delta=True, content="Hel")]
    final = Message(role="assistant", message_id="m", content="Hello")
    assert add_messages(add_messages([], chunks), final) == [final]


def test_tool_call_fragments_found_by_index_when_the_id_comes_once() -> None:
    first = ToolCallBlock(id="call_1", name="get_weather", index=0, partial_args='{"loca')
    rest = ToolCallBlock(id="", name="", index=0, partial_args='tion": "Tokyo"}')
    merged = Message(role="assistant", message_id="m", delta=True, content=[first]) + Message(
        role="assistant", message_id="m", delta=True, content=[rest]
    )
    [call] = merged.tool_calls()
    assert (call.id, call.name, call.args, call.partial_args) == (
        "call_1",
        "get_weather",
        {"location": "Tokyo"},
        None,
    )


def test_unparsable_fragments_stay_partial() -> None:
    chunk = Message(
        role="assistant",
        message_id="m",
        delta=True,
        content=[ToolCallBlock(id="c", name="f", partial_args='{"a": ')],
    )
    [call] = add_messages([], [chunk])[0].tool_calls()
    assert (call.args, call.partial_args) == ({}, '{"a": ')


@given(small_text)
def test_text_chunks_concatenate(body: str) -> None:
    parts = [Message(role="assistant", message_id="m", delta=True, content=c) for c in body]
    if parts:
        assert functools.reduce(operator.add, parts).text() == body
