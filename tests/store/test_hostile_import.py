"""Hostile and careless export files and messages: every one imports into a thread that
opens, exports and goes on, or is refused with one clear sentence before anything is
written."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.checkpoint import Checkpoint, StateChanges, new_checkpoint_id
from app.core.errors import DecodeError, UserError
from app.core.state import AgentState, Message
from app.core.state.serde import message_from_python
from app.store import Store
from tests.core.state.strategies import examples, messages
from tests.store.helpers import scalar

DEEP = "@@DEEP@@"
"""Stands for a value nested 10,000 levels deep (json.dumps itself cannot write one)."""

hostile_values = (
    st.sampled_from(
        [
            "\ud800",
            "title \udfff end",
            10**400,
            -(10**400),
            2**63,
            -(2**63) - 1,
            float("nan"),
            float("inf"),
            -float("inf"),
            1e308,
            -1.0,
            DEEP,
            None,
            True,
            "",
            [],
            {},
            {"type": "text"},
            "9" * 5000,
        ]
    )
    | st.text(max_size=8)
    | st.integers()
    | st.floats()
)


def _export_doc() -> dict[str, Any]:
    media = "iVBORw0KGgo="
    sha = "4c4b6a3be1314ab86138bef4314dde022e600960d8689a2c8f8631802d20dab6"
    return {
        "format": "parley.thread",
        "version": 1,
        "exported_at": 1_700_000_000.0,
        "thread": {
            "title": "trip",
            "created_at": 1_700_000_000.0,
            "updated_at": 1.7e9,
            "model": "scripted:x.json",
            "system_prompt": "be brief",
            "archived": False,
        },
        "state": {
            "context": [
                {
                    "message_id": "u1",
                    "role": "user",
                    "timestamp": 1.7e9,
                    "content": [
                        {"type": "text", "text": "plan a trip"},
                        {
                            "type": "image",
                            "media": {"kind": "file_id", "file_id": sha, "mime_type": "image/png"},
                        },
                    ],
                },
                {
                    "message_id": 7,
                    "role": "assistant",
                    "timestamp": 1.7e9,
                    "content": [
                        {
                            "type": "tool_call",
                            "id": "c1",
                            "name": "search",
                            "args": {"q": "rome", "n": 3},
                        }
                    ],
                    "usages": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
                    "metadata": {"model": "x"},
                },
                {
                    "message_id": "t1",
                    "role": "tool",
                    "content": [
                        {"type": "tool_result", "call_id": "c1", "output": {"hits": [1.5]}}
                    ],
                },
            ],
            "context_summary": "a trip",
            "execution_meta": {
                "step": 3,
                "status": "completed",
                "thread_id": "old",
                "spent": {"model_calls": 1.0, "cost": 0.25},
            },
        },
        "media": [{"sha256": sha, "mime_type": "image/png", "data_base64": media}],
    }


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path inside ``value`` (dict keys and list indices)."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _places(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _places(item, (*path, i))
    return found


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    doc[path[0]] = _replace(doc[path[0]], path[1:], value)
    return doc


def _write(doc: Any) -> str:
    text = json.dumps(doc, ensure_ascii=True, allow_nan=True)
    return text.replace(f'"{DEEP}"', "[" * 10_000 + "]" * 10_000)


@st.composite
def hostile_exports(draw: st.DrawFn) -> str:
    """A real export with one to three places replaced by hostile values."""
    doc = _export_doc()
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_places(doc)))
        doc = _replace(doc, path, draw(hostile_values))
    return _write(doc)


async def _usable(store: Store, thread_id: str) -> None:
    """Everything a user does with a thread works on it."""
    latest = await store.checkpointer.aget(thread_id, AgentState)
    assert latest is not None
    await store.checkpointer.alist(thread_id)
    await store.export_markdown(thread_id)
    again = await store.import_json(await store.export_json(thread_id))
    assert again.message_count == len(latest.state.context)
    await store.search("trip")
    await store.list_threads(archived=None)
    reply = Message.text_message("and then?", role="assistant")
    state = latest.state.with_update(reply)
    await store.checkpointer.aput(
        Checkpoint(thread_id, new_checkpoint_id(), latest.checkpoint_id, latest.step + 1, state),
        StateChanges(upserted=(reply.message_id,)),
    )
    assert (await store.checkpointer.aget(thread_id, AgentState)) is not None


def _one_sentence(exc: Exception) -> None:
    text = str(exc)
    assert text.startswith("this file is not a Parley thread export: "), text
    assert "\n" not in text and len(text) < 600, text


async def _import_or_refuse(store: Store, data: str) -> None:
    threads_before = scalar(store.path, "SELECT count(*) FROM threads")
    try:
        thread = await store.import_json(data)
    except UserError as exc:
        _one_sentence(exc)
        assert scalar(store.path, "SELECT count(*) FROM threads") == threads_before
        return
    await _usable(store, thread.id)


@examples(40)
@given(data=hostile_exports())
async def test_hostile_exports_import_cleanly_or_are_refused(data: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with Store.open(Path(folder) / "fuzz.db") as store:
            await _import_or_refuse(store, data)


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        (("state", "context", 0, "content", 0, "text"), DEEP, "nested too deeply"),
        (("thread", "created_at"), 10**400, "not a time"),
        (("thread", "created_at"), float("inf"), "Infinity"),
        (("thread", "title"), "\ud800", "lone surrogate"),
        (("media", 0, "mime_type"), "image/\udfff", "lone surrogate"),
        (("state", "execution_meta", "spent", "cost"), float("nan"), "NaN"),
        (("state", "execution_meta", "step"), 2**64, "execution_meta.step"),
        (("state", "context", 1, "message_id"), 2**63, "message_id"),
        (("state", "context", 0, "timestamp"), 10**400, "timestamp"),
    ],
)
async def test_each_hostile_value_found_by_fuzzing_is_refused(
    store: Store, path: tuple[Any, ...], value: Any, reason: str
) -> None:
    with pytest.raises(UserError, match=reason) as caught:
        await store.import_json(_write(_replace(_export_doc(), path, value)))
    _one_sentence(caught.value)
    assert await store.list_threads(archived=None) == []


async def test_the_untouched_export_imports(store: Store) -> None:
    thread = await store.import_json(_write(_export_doc()))
    assert thread.title == "trip"
    await _usable(store, thread.id)


hostile_message_values = st.sampled_from(
    ["\ud83d", float("nan"), float("inf"), 2**64, -(2**63) - 1, "x" * 3]
)


@st.composite
def hostile_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A valid message as a dict, with one place replaced by a hostile value."""
    doc = json.loads(draw(messages).model_dump_json())
    path = draw(st.sampled_from(_places(doc)))
    return _replace(doc, path, draw(hostile_message_values))  # type: ignore[no-any-return]


@examples(40)
@given(value=hostile_messages())
async def test_a_message_that_validates_always_saves_and_reads_back(
    value: dict[str, Any],
) -> None:
    try:
        message = message_from_python(value)
    except DecodeError:
        return  # refused at validation: nothing to save
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "f.db") as store:
        state = AgentState().with_update(message)
        await store.checkpointer.aput(Checkpoint("t", new_checkpoint_id(), None, 0, state), None)
        back = await store.checkpointer.aget("t", AgentState)
        assert back is not None
        assert back.state.context == [message]
        await store.export_markdown("t")


@pytest.mark.parametrize(
    "fields",
    [
        {"content": "half an emoji \ud83d"},
        {"content": [{"type": "tool_call", "id": "c", "name": "f", "args": {"\udc00": 1}}]},
        {"content": "x", "metadata": {"score": math.nan}},
        {"content": "x", "timestamp": math.inf},
        {"content": "x", "message_id": 2**63},
    ],
)
def test_a_message_that_cannot_be_saved_does_not_validate(fields: dict[str, Any]) -> None:
    with pytest.raises(DecodeError):
        message_from_python({"role": "user", **fields})
