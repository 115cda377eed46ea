"""``MessageLog`` is ``add_messages`` done in place, and says exactly which rows changed."""

from __future__ import annotations

import functools
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.errors import UserError
from app.core.state import (
    REMOVE_ALL_MESSAGES,
    ChunkMerge,
    LogChange,
    Message,
    MessageLog,
    ReasoningBlock,
    RemoveMessage,
    TextBlock,
    ToolCallBlock,
    add_messages,
    merge_chunk,
)
from tests.core.state.strategies import (
    annotation_refs,
    blocks,
    examples,
    messages_of,
    small_text,
    streamed,
)

LAWS = examples(80)

# A few ids shared by all drawn items, so updates hit, miss and remove existing messages; blocks
# that merge when streamed (text, reasoning, tool-call fragments) beside any other block.
pool_ids = st.sampled_from(["a", "b", "c", "d", 1, 2, -3])
fragments = st.sampled_from(['{"a": ', "1}", " ", '"}"', "{}", "[1]", "}\n"])
stream_blocks = st.one_of(
    st.builds(TextBlock, text=small_text, annotations=st.lists(annotation_refs, max_size=1)),
    st.builds(ReasoningBlock, text=small_text, signature=st.none() | st.just("sig")),
    st.builds(
        ToolCallBlock,
        id=st.sampled_from(["", "c1", "c2"]),
        name=st.sampled_from(["", "f"]),
        args=st.dictionaries(st.sampled_from("ab"), st.integers(), max_size=1),
        partial_args=st.none() | fragments,
        index=st.none() | st.integers(0, 1),
    ),
    blocks,
)
small_metadata = st.dictionaries(st.sampled_from("xy"), st.integers(), max_size=2)
pooled = messages_of(pool_ids, stream_blocks, small_metadata)
removals = st.builds(RemoveMessage, pool_ids) | st.just(RemoveMessage(REMOVE_ALL_MESSAGES))
items = st.one_of(pooled, pooled, removals)
updates = items | st.lists(items, max_size=4) | st.lists(items, max_size=4).map(tuple)
starts = st.lists(pooled, max_size=5, unique_by=lambda m: m.message_id)
one_stream = st.lists(
    messages_of(st.just("s"), stream_blocks, small_metadata), min_size=1, max_size=6
)


def text(message_id: str | int, body: str = "", delta: bool = False) -> Message:
    """An assistant message (or chunk) with a chosen id."""
    return Message.text_message(body or f"m{message_id}", "assistant", message_id, delta=delta)


def ids_of(messages: list[Message]) -> list[str | int]:
    return [m.message_id for m in messages]


def as_items(update: Any) -> list[Any]:
    return list(update) if isinstance(update, list | tuple) else [update]


def replay(before: list[Message], changes: list[LogChange]) -> tuple[list[Any], set[int]]:
    """Replay ``changes`` on ``before`` as a list view would; return its ids and refreshed rows.

    Every step must name rows that exist at that moment, with their ids.
    """
    rows: list[tuple[Any, bool]] = [(m.message_id, False) for m in before]
    for change in changes:
        assert change.last - change.first + 1 == len(change.ids) > 0
        span = slice(change.first, change.last + 1)
        if change.kind == "inserted":
            assert 0 <= change.first <= len(rows)
            rows[change.first : change.first] = [(i, True) for i in change.ids]
        else:
            assert change.last < len(rows)
            assert tuple(i for i, _ in rows[span]) == change.ids
            if change.kind == "removed":
                del rows[span]
            else:
                rows[span] = [(i, True) for i in change.ids]
    return [i for i, _ in rows], {row for row, (_, fresh) in enumerate(rows) if fresh}


def check_changes(
    before: list[Message], update: Any, after: list[Message], changes: list[LogChange]
) -> None:
    """The changes turn ``before`` into ``after``: rows not reported are unchanged."""
    ids, fresh = replay(before, changes)
    assert ids == ids_of(after)
    old = {m.message_id: m for m in before}
    for row, message in enumerate(after):
        if row not in fresh:
            assert old[message.message_id] == message
    # nothing is reported that the update did not do
    put = {m.message_id for m in as_items(update) if isinstance(m, Message)}
    named = {r.id for r in as_items(update) if isinstance(r, RemoveMessage)}
    for change in changes:
        if change.kind == "removed" and REMOVE_ALL_MESSAGES not in named:
            assert set(change.ids) <= named
        elif change.kind != "removed":
            assert set(change.ids) <= put


# --- the same results as add_messages ----------------------------------------------------------


@LAWS
@given(starts, st.lists(updates, max_size=6))
def test_applying_updates_equals_folding_add_messages(
    start: list[Message], sequence: list[Any]
) -> None:
    log = MessageLog(start)
    expected: list[Message] = start
    for update in sequence:
        before = log.snapshot()
        try:
            expected = add_messages(expected, update)
        except UserError as error:
            refusal = str(error)
        else:
            refusal = None
        if refusal is not None:
            with pytest.raises(UserError, match=f"^{re.escape(refusal)}$"):
                log.apply(update)
            assert log.snapshot() == before  # a refused update changes nothing
            continue
        changes = log.apply(update)
        after = log.snapshot()
        assert after == expected
        assert len(log) == len(expected)
        assert [log.index_of(m.message_id) for m in expected] == list(range(len(expected)))
        check_changes(before, update, after, changes)


@examples(60)
@given(streamed(), starts, st.booleans())
def test_a_stream_applied_chunk_by_chunk_is_the_whole_message(
    case: tuple[Message, list[Message]], start: list[Message], read_between: bool
) -> None:
    whole, chunks = case
    start = [m for m in start if m.message_id != whole.message_id]
    log = MessageLog(start)
    first, *rest = chunks
    assert log.apply(first) == [LogChange("inserted", len(start), len(start), (whole.message_id,))]
    for k, chunk in enumerate(rest, start=2):
        expected = LogChange("updated", len(start), len(start), (whole.message_id,))
        assert log.apply(chunk) == [expected]
        if read_between:
            assert log[-1] == functools.reduce(merge_chunk, chunks[:k])
    assert log.snapshot() == [*start, whole]


@LAWS
@given(
    st.lists(pooled.map(lambda m: m.model_copy(update={"message_id": "s"})), min_size=1, max_size=6)
)
def test_merging_as_a_stream_equals_merging_pairwise(chunks: list[Message]) -> None:
    pairwise = functools.reduce(merge_chunk, chunks)
    merge = ChunkMerge(chunks[0])
    for chunk in chunks[1:]:
        merge.add(chunk)
    assert merge.message() == pairwise
    reading = ChunkMerge(chunks[0])
    for k, chunk in enumerate(chunks[1:], start=2):
        reading.add(chunk)
        assert reading.message() == functools.reduce(merge_chunk, chunks[:k])


# --- change reports ----------------------------------------------------------------------------


def test_each_kind_of_change_is_reported_with_its_rows_and_ids() -> None:
    log = MessageLog([text("a"), text("b")])
    assert log.apply([text("c"), text("d")]) == [LogChange("inserted", 2, 3, ("c", "d"))]
    assert log.apply(text("b", "new")) == [LogChange("updated", 1, 1, ("b",))]
    assert log.apply(RemoveMessage("b")) == [LogChange("removed", 1, 1, ("b",))]
    assert (len(log), log.index_of("d"), log.index_of("b")) == (3, 2, None)
    assert log.apply(RemoveMessage(REMOVE_ALL_MESSAGES)) == [
        LogChange("removed", 0, 2, ("a", "c", "d"))
    ]
    assert log.apply(RemoveMessage(REMOVE_ALL_MESSAGES)) == []
    assert len(log) == 0


def test_a_batch_reports_its_steps_in_order_folding_runs() -> None:
    log = MessageLog([text("a"), text("b"), text("c"), text("d")])
    changes = log.apply(
        [
            text("a", "1"),
            text("b", "2"),  # the next row: one "updated" step for both
            text("e", "Hel", delta=True),
            text("e", "lo", delta=True),  # merged into the row just inserted: not reported again
            RemoveMessage("b"),
            RemoveMessage("c"),  # the row that moved up into b's place: one step
            text("b", "back"),
        ]
    )
    assert changes == [
        LogChange("updated", 0, 1, ("a", "b")),
        LogChange("inserted", 4, 4, ("e",)),
        LogChange("removed", 1, 2, ("b", "c")),
        LogChange("inserted", 3, 3, ("b",)),
    ]
    assert [(m.message_id, m.text()) for m in log.snapshot()] == [
        ("a", "1"),
        ("d", "md"),
        ("e", "Hello"),
        ("b", "back"),
    ]


# --- reading and building ------------------------------------------------------------------------


def test_rows_read_like_a_list() -> None:
    log = MessageLog((text("a"), text("b")))
    assert (log[0].message_id, log[-1].message_id) == ("a", "b")
    with pytest.raises(IndexError):
        log[2]
    assert repr(log) == "MessageLog(2 messages)"
    snapshot = log.snapshot()
    snapshot.clear()
    assert len(log) == 2  # a snapshot is the caller's own list


def test_a_final_message_replaces_its_streamed_chunks() -> None:
    log = MessageLog()
    log.apply([text("r", "Hel", delta=True), text("r", "lo", delta=True)])
    final = text("r", "Hello, world")
    assert log.apply(final) == [LogChange("updated", 0, 0, ("r",))]
    assert log.snapshot() == [final]


def test_other_item_kinds() -> None:
    log = MessageLog()
    log.apply([{"role": "user", "content": "hi", "message_id": "d"}, "plain"])
    assert (log[0].message_id, log[0].text(), log[1].role, log[1].text()) == (
        "d",
        "hi",
        "user",
        "plain",
    )
    with pytest.raises(UserError, match=r"^MessageLog.apply takes .* not int$"):
        log.apply([text("x"), 42])
    assert ids_of(log.snapshot()) == ["d", log[1].message_id]


def test_removing_an_unknown_id_changes_nothing() -> None:
    log = MessageLog([text("a")])
    with pytest.raises(
        UserError, match=r"^cannot remove message 'nope': it is not in the context$"
    ):
        log.apply([text("b"), RemoveMessage("a"), RemoveMessage("nope")])
    with pytest.raises(UserError, match="'a'"):
        log.apply([RemoveMessage(REMOVE_ALL_MESSAGES), RemoveMessage("a")])
    assert ids_of(log.snapshot()) == ["a"]
    assert log.apply([text("b"), RemoveMessage("b"), text("b", "again")]) == [
        LogChange("inserted", 1, 1, ("b",)),
        LogChange("removed", 1, 1, ("b",)),
        LogChange("inserted", 1, 1, ("b",)),
    ]


def test_two_messages_with_one_id_are_refused() -> None:
    with pytest.raises(
        UserError, match=r"^cannot hold two messages with the id 'a' in one thread$"
    ):
        MessageLog([text("a"), text("b"), text("a", "again")])


# --- tool-call arguments streamed in fragments ----------------------------------------------------


def call_fragment(partial: str, first: bool = False) -> Message:
    block = ToolCallBlock(id="c1", name="write" if first else "", partial_args=partial)
    return Message(role="assistant", message_id="r", delta=True, content=[block])


def test_arguments_parse_once_they_form_an_object_and_not_before() -> None:
    pieces = ['{"body": "', "if x {", " y }", '"}\n', " \t"]
    stream = [call_fragment(p, first=not k) for k, p in enumerate(pieces)]
    log = MessageLog()
    calls = []
    for chunk in stream:
        log.apply(chunk)
        [call] = log[0].tool_calls()
        calls.append((call.name, call.args, call.partial_args))
    assert calls == [
        ("write", {}, '{"body": "'),
        ("write", {}, '{"body": "if x {'),
        ("write", {}, '{"body": "if x { y }'),  # ends in "}" but is not whole yet
        ("write", {"body": "if x { y }"}, None),
        ("write", {"body": "if x { y }"}, " \t"),  # kept after a whole call, as add_messages does
    ]
    assert log.snapshot() == add_messages([], stream)


def test_text_and_reasoning_streamed_in_many_pieces() -> None:
    pieces = [f"word{i} " for i in range(2_000)]
    log = MessageLog()
    for k, piece in enumerate(pieces):
        log.apply(
            Message(
                role="assistant",
                message_id="r",
                delta=True,
                reasoning=piece,
                content=[TextBlock(text=piece)],
            )
        )
        if k == 1_000:
            assert log[0].text() == "".join(pieces[: k + 1])
    assert log[0].text() == log[0].reasoning == "".join(pieces)
