"""The persistence door: every message, block and state round-trips; bad input fails clearly."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import operator
from enum import Enum
from typing import Annotated, Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from app.core.errors import DecodeError
from app.core.state import AgentState, Message, MessagesState
from app.core.state.serde import (
    dump_json,
    dump_message,
    dump_messages,
    dump_state,
    load_block,
    load_message,
    load_messages,
    load_state,
    message_from_python,
)
from tests.core.state.strategies import (
    agent_states,
    blocks,
    examples,
    exec_metas,
    floats,
    json_objects,
    json_values,
    messages,
    small_text,
)

ROUND_TRIPS = examples(100)


@ROUND_TRIPS
@given(messages)
def test_message_round_trip(message: Message) -> None:
    assert load_message(dump_message(message)) == message


@ROUND_TRIPS
@given(st.lists(messages, max_size=5))
def test_message_list_round_trip(items: list[Message]) -> None:
    assert load_messages(dump_messages(items)) == items


@ROUND_TRIPS
@given(blocks)
def test_block_round_trip(block: Any) -> None:
    back = load_block(dump_json(block))
    assert type(back) is type(block)
    assert back == block


@ROUND_TRIPS
@given(agent_states)
def test_agent_state_round_trip(state: AgentState) -> None:
    back = load_state(dump_state(state), AgentState)
    assert back == state
    assert dump_state(back) == dump_state(state)


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


class Place(BaseModel):
    name: str
    lat: float
    tags: list[str] = Field(default_factory=list)


class CustomState(AgentState):
    """A state with one field of each common kind, including reducer fields."""

    user_id: str = ""
    count: int = 0
    ratio: float = 0.0
    flag: bool = False
    session_data: dict[str, Any] = Field(default_factory=dict)
    selected_city: str | None = None
    log: Annotated[list[str], operator.add] = Field(default_factory=list)
    total: Annotated[int, operator.add] = 0
    place: Place | None = None
    places: dict[str, Place] = Field(default_factory=dict)
    colour: Colour = Colour.RED
    mode: Literal["fast", "careful"] = "fast"
    pair: tuple[int, str] = (0, "")
    seen: set[int] = Field(default_factory=set)
    blob: bytes = b""
    when: dt.datetime | None = None
    by_number: dict[int, str] = Field(default_factory=dict)


class Deeper(CustomState):
    """A subclass of a subclass."""

    extra: list[Message] = Field(default_factory=list)


places = st.builds(Place, name=small_text, lat=floats, tags=st.lists(small_text, max_size=3))
datetimes = st.datetimes(timezones=st.none() | st.just(dt.UTC))

custom_states = st.builds(
    Deeper,
    context=st.lists(messages, max_size=3),
    context_summary=st.none() | st.text(),
    execution_meta=exec_metas,
    user_id=st.text(),
    count=st.integers(),
    ratio=floats,
    flag=st.booleans(),
    session_data=json_objects,
    selected_city=st.none() | small_text,
    log=st.lists(small_text, max_size=3),
    total=st.integers(),
    place=st.none() | places,
    places=st.dictionaries(small_text, places, max_size=2),
    colour=st.sampled_from(Colour),
    mode=st.sampled_from(["fast", "careful"]),
    pair=st.tuples(st.integers(), small_text),
    seen=st.sets(st.integers(), max_size=4),
    blob=st.binary(max_size=16),
    when=st.none() | datetimes,
    by_number=st.dictionaries(st.integers(), small_text, max_size=3),
    extra=st.lists(messages, max_size=2),
)


@ROUND_TRIPS
@given(custom_states)
def test_custom_state_round_trip(state: Deeper) -> None:
    back = load_state(dump_state(state), Deeper)
    assert type(back) is Deeper
    assert back == state


@given(st.lists(messages, max_size=3))
@examples(50)
def test_messages_state_round_trip(items: list[Message]) -> None:
    state = MessagesState(messages=items)
    assert load_state(dump_state(state), MessagesState) == state


def test_a_state_after_the_reducer_round_trips() -> None:
    state = AgentState().with_update(Message.text_message("hi", message_id="a"))
    assert load_state(dump_state(state), AgentState) == state


def test_dump_json_takes_containers_of_messages() -> None:
    items = {"a": [Message.text_message("x", message_id="1")]}
    assert json.loads(dump_json(items))["a"][0]["message_id"] == "1"


# --- bad input ---------------------------------------------------------------------------------


def _valid() -> dict[str, Any]:
    return {"message_id": "m", "role": "user", "content": [{"type": "text", "text": "hi"}]}


@pytest.mark.parametrize(
    ("data", "field", "says"),
    [
        ('{"role": "user", "content": [', "(root)", "Invalid JSON"),
        (
            json.dumps({**_valid(), "content": [{"type": "sticker"}]}),
            "content.0",
            "'sticker'",
        ),
        (json.dumps({**_valid(), "timestamp": "noon"}), "timestamp", "valid number"),
        (json.dumps({**_valid(), "delta": [1]}), "delta", "valid boolean"),
        (
            json.dumps({**_valid(), "content": [{"type": "text", "text": 5}]}),
            "content.0.text.text",
            "valid string",
        ),
        (json.dumps({"message_id": "m", "content": []}), "role", "Field required"),
        (json.dumps({**_valid(), "role": "robot"}), "role", "'user'"),
        (
            json.dumps({**_valid(), "content": [{"type": "image", "media": {"kind": "url"}}]}),
            "content.0.image.media",
            "needs 'url'",
        ),
        (json.dumps({**_valid(), "colour": "red"}), "colour", "Extra inputs"),
        ("[]", "(root)", "object"),
    ],
)
def test_bad_message_json_names_the_field(data: str, field: str, says: str) -> None:
    with pytest.raises(DecodeError) as info:
        load_message(data)
    error = info.value
    assert str(error).startswith("invalid message: ")
    assert f"{field}: " in str(error)
    assert says in str(error)
    assert error.errors


def test_bad_state_json_names_the_field() -> None:
    with pytest.raises(DecodeError, match=r"invalid CustomState: count: .*valid integer"):
        load_state('{"count": "many"}', CustomState)
    with pytest.raises(DecodeError, match=r"context\.0\.role: Field required"):
        load_state('{"context": [{"content": []}]}', AgentState)


def test_bad_block_and_list_json() -> None:
    with pytest.raises(DecodeError, match="invalid content block: "):
        load_block('{"type": "nope"}')
    with pytest.raises(DecodeError, match=r"invalid messages: 1\.role"):
        load_messages(json.dumps([_valid(), {"content": []}]))


def test_python_values_are_checked_too() -> None:
    with pytest.raises(DecodeError, match="role"):
        message_from_python({"content": []})
    assert message_from_python(_valid()).text() == "hi"


junk = st.one_of(
    st.binary(max_size=64),
    st.text(max_size=64),
    json_values.map(json.dumps),
    st.dictionaries(st.sampled_from([*Message.model_fields, "type", "x"]), json_values).map(
        json.dumps
    ),
)


@examples(200)
@given(junk)
def test_only_decode_errors_escape(data: str | bytes) -> None:
    for load in (load_message, load_messages, load_block):
        with contextlib.suppress(DecodeError):
            load(data)
    with contextlib.suppress(DecodeError):
        load_state(data, CustomState)
