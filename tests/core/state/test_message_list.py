"""``MessageList``: a list of messages whose versions share storage yet never see each
other's changes; it reads, compares, changes, validates and saves as a list does."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Annotated, Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from app.core.state import (
    AgentState,
    Message,
    MessageList,
    RemoveMessage,
    TextBlock,
    add_messages,
    apply_update,
)
from app.core.state.serde import dump_state, load_state
from tests.core.state.strategies import examples

LAWS = examples(120)

# longer than one storage chunk (64 messages), so the chunks' edges are crossed
POOL = [Message.text_message(f"m{i}", message_id=f"m{i}") for i in range(300)]


def msgs(n: int, start: int = 0) -> list[Message]:
    return POOL[start : start + n]


def edited(message: Message, body: str = "edited") -> Message:
    return Message.text_message(body, message_id=message.message_id)


def texts(messages: Any) -> list[str]:
    return [m.text() for m in messages]


# --- the reducer leaves what it was given alone ------------------------------------------------


@LAWS
@given(st.integers(1, 200), st.data())
def test_an_upsert_leaves_the_callers_list_unchanged(n: int, data: st.DataObject) -> None:
    given_list = msgs(n)
    before = list(given_list)
    row = data.draw(st.integers(0, n - 1))
    out = add_messages(given_list, edited(given_list[row]))
    assert given_list == before
    assert out[row].text() == "edited" and given_list[row].text() == f"m{row}"
    again = add_messages(out, edited(out[row], "twice"))  # a list the reducer made
    assert out[row].text() == "edited" and again[row].text() == "twice"


def test_every_version_keeps_its_own_messages() -> None:
    versions = [add_messages(None, msgs(70))]
    expected = [texts(versions[0])]
    for step in range(140):
        last = versions[-1]
        if step % 3 == 0:
            new = add_messages(last, msgs(1, 70 + step))
        elif step % 3 == 1:
            new = add_messages(last, edited(last[step % len(last)], f"v{step}"))
        else:
            new = add_messages(last, Message(**{**POOL[0].model_dump(), "delta": True}))
        versions.append(new)
        expected.append(texts(new))
    # a version two steps back is changed again: the newer ones are not affected
    branch = add_messages(versions[5], [edited(versions[5][-1], "branch"), *msgs(3, 250)])
    assert texts(branch)[-4:] == ["branch", "m250", "m251", "m252"]
    assert [texts(v) for v in versions] == expected


def test_an_old_state_is_unchanged_after_a_new_one_is_made_from_it() -> None:
    old = AgentState(context=msgs(130))
    snapshot = old.model_dump()
    upserted = apply_update(old, edited(old.context[64]))
    appended = apply_update(upserted, msgs(2, 200))
    chunk = Message(role="user", content=[TextBlock(text="+")], message_id="m3", delta=True)
    streamed = apply_update(appended, chunk)
    removed = apply_update(streamed, RemoveMessage("m0"))
    assert old.model_dump() == snapshot
    assert upserted.context[64].text() == "edited" and len(upserted.context) == 130
    assert len(appended.context) == 132 and upserted.context[-1].message_id == "m129"
    assert streamed.context[3].text() == "m3+" and appended.context[3].text() == "m3"
    assert removed.context[0].message_id == "m1" and streamed.context[0].message_id == "m0"


def test_changing_a_states_list_in_place_changes_no_other_state() -> None:
    old = AgentState(context=msgs(65))
    new = apply_update(old, msgs(1, 65))
    new.context.append(POOL[100])
    new.context[0] = POOL[101]
    assert texts(old.context) == texts(msgs(65))
    assert texts(new.context)[0] == "m101" and len(new.context) == 67


# --- it reads and changes as a list does -------------------------------------------------------


@LAWS
@given(st.integers(0, 200), st.data())
def test_reads_as_a_list(n: int, data: st.DataObject) -> None:
    plain = msgs(n)
    ours = MessageList(plain)
    assert ours == plain and plain == ours and not (ours != plain)  # noqa: SIM202
    assert list(ours) == plain and list(reversed(ours)) == plain[::-1]
    assert len(ours) == n and bool(ours) == bool(n)
    assert repr(ours) == repr(plain)
    i = data.draw(st.integers(-n - 2, n + 2))
    if -n <= i < n:
        assert ours[i] is plain[i]
    else:
        try:
            ours[i]
        except IndexError:
            pass
        else:
            raise AssertionError("an index out of range must raise IndexError")
    s = slice(
        data.draw(st.none() | st.integers(-n - 2, n + 2)),
        data.draw(st.none() | st.integers(-n - 2, n + 2)),
        data.draw(st.none() | st.sampled_from([1, 2, -1, -3])),
    )
    assert ours[s] == plain[s]
    assert (POOL[0] in ours) == (POOL[0] in plain)
    assert ours + [POOL[299]] == [*plain, POOL[299]]  # noqa: RUF005
    assert [POOL[299]] + ours == [POOL[299], *plain]  # noqa: RUF005
    assert ours != msgs(n, 1) or n == 0
    assert MessageList(plain) == ours and ours != "not a list"


OPS = st.one_of(
    st.tuples(st.just("append"), st.integers(0, 299)),
    st.tuples(st.just("extend"), st.integers(0, 90)),
    st.tuples(st.just("pop"), st.integers(-3, 200)),
    st.tuples(st.just("insert"), st.integers(-5, 200)),
    st.tuples(st.just("del"), st.integers(-3, 200)),
    st.tuples(st.just("set"), st.integers(-3, 200)),
    st.tuples(st.just("slice"), st.integers(0, 200)),
    st.tuples(st.just("sort"), st.just(0)),
    st.tuples(st.just("reverse"), st.just(0)),
    st.tuples(st.just("clear"), st.just(0)),
    st.tuples(st.just("iadd"), st.integers(0, 5)),
)


def _apply(target: Any, op: str, arg: int) -> object:
    try:
        if op == "append":
            target.append(POOL[arg])
        elif op == "extend":
            target.extend(msgs(arg, 7))
        elif op == "pop":
            return target.pop(arg).message_id if target else None
        elif op == "insert":
            target.insert(arg, POOL[arg % 300])
        elif op == "del":
            del target[arg]
        elif op == "set":
            target[arg] = POOL[299]
        elif op == "slice":
            target[arg : arg + 3] = msgs(2, 50)
        elif op == "sort":
            target.sort(key=lambda m: m.text(), reverse=True)
        elif op == "reverse":
            target.reverse()
        elif op == "clear":
            target.clear()
        else:
            target += msgs(arg, 80)
    except IndexError:
        return "IndexError"
    return None


@LAWS
@given(st.integers(0, 150), st.lists(OPS, max_size=25))
def test_changes_in_place_as_a_list_does(n: int, ops: list[tuple[str, int]]) -> None:
    plain = msgs(n)
    ours = MessageList(plain)
    before = add_messages(ours, [])  # a version made before the changes
    for op, arg in ops:
        assert _apply(ours, op, arg) == _apply(plain, op, arg), op
        assert ours == plain, op
    assert before == msgs(n)
    # the id index follows changes made with list methods
    if plain:
        assert add_messages(ours, edited(plain[-1]))[-1].text() == "edited"


def test_copies_and_pickles() -> None:
    ours = MessageList(msgs(130))
    for twin in (
        copy.copy(ours),
        ours.copy(),
        copy.deepcopy(ours),
        pickle.loads(pickle.dumps(ours)),
    ):
        assert isinstance(twin, MessageList) and twin == ours
        twin.append(POOL[299])
        assert len(ours) == 130


# --- validation and saving ---------------------------------------------------------------------


def test_a_state_validates_a_list_into_its_own_message_list() -> None:
    given_list = msgs(70)
    state = AgentState(context=given_list)
    assert isinstance(state.context, MessageList) and state.context == given_list
    from_ours = AgentState(context=state.context)
    from_ours.context.append(POOL[200])  # a state never shares a list it was given
    assert len(state.context) == 70 and len(given_list) == 70
    from_dicts = AgentState.model_validate({"messages": [m.model_dump() for m in given_list]})
    assert from_dicts.context == given_list
    assert AgentState().context == [] and isinstance(AgentState().context, MessageList)


def test_a_state_saves_and_reads_back_its_messages() -> None:
    state = apply_update(AgentState(context=msgs(100)), edited(POOL[65]))
    dumped = state.model_dump()
    assert isinstance(dumped["context"], list) and len(dumped["context"]) == 100
    assert dumped["context"][65]["content"][0]["text"] == "edited"
    back = load_state(dump_state(state), AgentState)
    assert back == state and isinstance(back.context, MessageList)
    assert json.loads(dump_state(state))["context"][0]["message_id"] == "m0"
    schema = AgentState.model_json_schema()["properties"]["context"]
    assert schema["type"] == "array" and "$ref" in schema["items"]


class PlainListState(AgentState):
    """A state declaring its own message field as a plain list under the reducer."""

    log: Annotated[list[Message], add_messages] = Field(default_factory=list)


def test_a_field_declared_as_a_plain_list_gets_a_plain_list() -> None:
    state = apply_update(PlainListState(), {"log": msgs(3)})
    assert type(state.log) is list and state.log == msgs(3)
    assert load_state(dump_state(state), PlainListState) == state
