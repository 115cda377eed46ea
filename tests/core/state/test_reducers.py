"""``add_messages``: append, upsert in place, remove, and merge streamed chunks, as laws."""

from __future__ import annotations

import copy
import functools
import operator
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.errors import UserError
from app.core.state import (
    REMOVE_ALL_MESSAGES,
    Message,
    RemoveMessage,
    ToolCallBlock,
    add_messages,
)
from app.core.state.reducers import MessageList
from tests.core.state.strategies import (
    examples,
    small_text,
    streamed,
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
