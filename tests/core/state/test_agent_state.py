"""``AgentState``: convenience methods, custom fields, reducer fields and how updates apply."""

from __future__ import annotations

import operator
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field, ValidationError

from app.core.errors import UserError
from app.core.state import (
    AgentState,
    Message,
    MessagesState,
    RemoveMessage,
    TextBlock,
    ToolResult,
    apply_update,
)
from app.core.state.agent_state import reducers_of
from app.core.state.reducers import add_messages
from tests.core.state.strategies import examples


def union(old: set[str], new: set[str]) -> set[str]:
    """A custom reducer: keep every tag ever added."""
    return old | new


class Trip(AgentState):
    """A custom state with plain fields and reducer fields."""

    city: str = ""
    nights: int = 0
    notes: Annotated[list[str], operator.add] = Field(default_factory=list)
    spent: Annotated[float, operator.add] = 0.0
    tags: Annotated[set[str], union] = Field(default_factory=set)


def test_reducers_are_found_from_annotations() -> None:
    assert reducers_of(Trip) == {
        "context": add_messages,
        "notes": operator.add,
        "spent": operator.add,
        "tags": union,
    }
    assert reducers_of(AgentState) == {"context": add_messages}


def test_a_dict_update_touches_only_its_keys() -> None:
    before = Trip(city="Oslo", nights=2, notes=["a"], context_summary="s")
    after = apply_update(before, {"nights": 3, "notes": ["b"], "tags": {"x"}})
    assert (after.city, after.nights, after.notes, after.tags) == ("Oslo", 3, ["a", "b"], {"x"})
    assert after.context_summary == "s"
    assert after.execution_meta == before.execution_meta
    assert (before.nights, before.notes, before.tags) == (2, ["a"], set())
    assert apply_update(after, {"tags": {"y"}, "spent": 1.5}).tags == {"x", "y"}


@examples(100)
@given(
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "city": st.text(max_size=5),
                "nights": st.integers(),
                "notes": st.lists(st.text(max_size=3), max_size=2),
            },
        ),
        max_size=5,
    )
)
def test_updates_apply_key_by_key(updates: list[dict[str, Any]]) -> None:
    state = Trip()
    expected: dict[str, Any] = {"city": "", "nights": 0, "notes": []}
    for update in updates:
        state = apply_update(state, update)
        for key, value in update.items():
            expected[key] = expected[key] + value if key == "notes" else value
    assert {k: getattr(state, k) for k in expected} == expected


def test_node_return_values() -> None:
    state = Trip()
    msg = Message.text_message("hi", message_id="1")
    assert apply_update(state, None) is state
    assert apply_update(state, {}) is state
    assert apply_update(state, msg).context == [msg]
    two = apply_update(state, [msg, Message.text_message("yo", message_id="2")])
    assert [m.message_id for m in two.context] == ["1", "2"]
    assert apply_update(two, RemoveMessage("1")).context[0].message_id == "2"
    assert apply_update(state, {"messages": [msg]}).context == [msg]
    replaced = apply_update(state, Trip(city="Rome"))
    assert replaced.city == "Rome"


def test_a_tool_result_updates_state_and_adds_its_message() -> None:
    after = apply_update(
        Trip(city="Oslo", nights=1),
        ToolResult(message="City updated to 'Rome'.", state={"city": "Rome"}),
    )
    assert after.city == "Rome"
    assert after.nights == 1
    assert after.context[-1].text() == "City updated to 'Rome'."
    blocks = ToolResult(message=[TextBlock(text="done")], state={"nights": 4})
    after = apply_update(after, blocks)
    assert (after.nights, after.context[-1].text()) == (4, "done")


def test_bad_updates_say_what_is_wrong() -> None:
    with pytest.raises(UserError, match=r"unknown field 'town'.*city"):
        apply_update(Trip(), {"town": "Oslo"})
    with pytest.raises(ValidationError, match="nights"):
        apply_update(Trip(), {"nights": "many"})
    with pytest.raises(ValidationError, match="notes"):
        apply_update(Trip(), {"notes": [1]})
    with pytest.raises(UserError, match="returned int"):
        apply_update(Trip(), 42)


class Notes(AgentState):
    """A state with an open-ended field, where anything JSON-like may be put."""

    extra: dict[str, Any] = Field(default_factory=dict)
    tally: Annotated[list[Any], operator.add] = Field(default_factory=list)


def test_an_update_that_could_not_be_saved_is_refused() -> None:
    state = apply_update(Notes(), {"extra": {"ok": 1.5}, "context_summary": "fine"})
    with pytest.raises(ValidationError, match="not finite"):
        apply_update(state, {"extra": {"ratio": float("nan")}})
    with pytest.raises(ValidationError, match="lone surrogate"):
        apply_update(state, {"context_summary": "bad \ud800"})
    with pytest.raises(ValidationError, match="not finite"):  # merged by a reducer
        apply_update(state, {"tally": [float("inf")]})
    whole = Notes.model_construct(extra={"x": float("-inf")})
    with pytest.raises(ValidationError, match="not finite"):  # a whole state replaces all
        apply_update(state, whole)
    assert apply_update(state, {"tally": [1]}).extra == {"ok": 1.5}
    state.extra["later"] = float("nan")  # changed in place by a node, which then updates another
    with pytest.raises(ValidationError, match="not finite"):
        apply_update(state, {"context_summary": "other"})


def test_convenience_methods_on_an_updated_state_leave_the_old_one_alone() -> None:
    before = AgentState()
    after = before.with_update({"context_summary": "x"})
    after.advance_step()
    after.set_current_node("agent")
    after.complete()
    assert before.execution_meta.step == 0
    assert before.execution_meta.current_node != "agent"
    assert before.execution_meta.status == "idle"


def test_status_methods() -> None:
    state = AgentState()
    state.execution_meta.status = "running"
    assert state.is_running()
    state.execution_meta.status = "interrupted"
    assert state.is_interrupted()
    state.execution_meta.stop_requested = True
    assert state.is_stopped_requested()


def test_messages_state_is_an_agent_state() -> None:
    state = MessagesState(messages=[Message.text_message("hi")])
    assert isinstance(state, AgentState)
    assert state.messages is state.context
