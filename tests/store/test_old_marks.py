"""Threads saved before messages had typed marks: a reply the user stopped, a repair request,
kept under the older ``metadata`` keys, read back (from the database, from an export) with the
same marks, and a turn resumed on them routes as it did."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from app.core.agent import create_agent
from app.core.graph import RunControl
from app.core.models import ScriptedChatModel
from app.core.state import ErrorBlock, Message, TextBlock, ToolCallBlock
from app.core.state.message_marks import read_old_marks
from app.store import Store
from tests.store.helpers import scalar


def _old(role: Any, text: str, message_id: str, **metadata: Any) -> Message:
    """A message as an older Parley built it: no validation, so its keys stay as they were."""
    return Message.model_construct(
        message_id=message_id, role=role, content=[TextBlock(text=text)], metadata=metadata
    )


class City(BaseModel):
    name: str
    population: int


async def test_a_reply_stopped_the_old_way_reads_back_stopped(store: Store, tmp_path: Any) -> None:
    thread = await store.create_thread("old")
    stopped = Message.model_construct(
        message_id="r1",
        role="assistant",
        content=[TextBlock(text="Let me look"), ToolCallBlock(id="c1", name="search", args={})],
        metadata={"final": True, "stopped": True, "finish_reason": "stop"},
    )
    agent = create_agent(ScriptedChatModel([]), checkpointer=store.checkpointer)
    stop = RunControl()
    stop.request_stop()  # saves the input as it was given, and runs nothing
    cfg = {"thread_id": thread.id, "control": stop}
    await agent.ainvoke({"messages": [_old("user", "look it up", "u1"), stopped]}, cfg)
    body = scalar(store.path, "SELECT body FROM messages WHERE body LIKE '%Let me look%'")
    assert '"stopped":true' in body.replace(" ", "")

    page = await store.read_messages(thread.id)
    reply = page.messages[-1]
    assert reply.end_reason == "stopped"
    assert reply.metadata == {"finish_reason": "stop", "end_reason": "stopped"}

    async with Store.open(tmp_path / "other.db") as other:
        imported = await other.import_json(await store.export_json(thread.id))
        again = (await other.read_messages(imported.id)).messages[-1]
    assert again.end_reason == "stopped" and again.tool_calls()[0].id == "c1"


async def test_a_repair_asked_the_old_way_counts_when_the_turn_goes_on(store: Store) -> None:
    thread = await store.create_thread("old repair")
    model = ScriptedChatModel(["still not JSON", "never JSON"])
    agent = create_agent(
        model, response_format=City, max_repairs=1, checkpointer=store.checkpointer
    )
    stop = RunControl()
    stop.request_stop()
    history = [
        _old("user", "biggest city in Norway?", "u1"),
        _old("assistant", "Oslo, about 700k", "a1"),
        _old("user", "Reply with JSON only.", "fix1", repair=True),
    ]
    await agent.ainvoke({"messages": history}, {"thread_id": thread.id, "control": stop})

    done = await agent.ainvoke(None, {"thread_id": thread.id})  # read back from the file
    assert done.context[2].note == "repair"
    last = done.context[-1]
    errors = [b.error for b in last.content if isinstance(b, ErrorBlock)]
    assert last.end_reason == "invalid_output"
    assert errors and errors[0].startswith("No valid structured reply after 1 repairs")
    assert model.remaining == 1, "the old repair was the one allowed: no second one was asked"


def test_old_keys_become_marks_and_other_keys_stay() -> None:
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("assistant", {"final": True, "stop_reason": "budget"}, {"end_reason": "budget"}),
        ("assistant", {"final": True, "error": "down"}, {"end_reason": "failed", "error": "down"}),
        ("assistant", {"final": True}, {"end_reason": "out_of_steps"}),
        (
            "assistant",
            {"final": True, "structured_error": "no"},
            {"end_reason": "invalid_output", "structured_error": "no"},
        ),
        ("assistant", {"stop_reason": "end_turn"}, {"stop_reason": "end_turn"}),
        ("assistant", {"repair": True}, {"repair": True}),
        ("user", {"repair": True}, {"note": "repair"}),
        ("tool", {"tool_error": "budget"}, {"tool_error": "budget"}),
    ]
    for role, metadata, expected in cases:
        read_old_marks(role, metadata)
        assert metadata == expected


def test_an_unknown_mark_counts_as_none() -> None:
    raw = {"role": "assistant", "metadata": {"end_reason": "bored", "note": 3}}
    message = Message.model_validate_json(json.dumps(raw))
    assert (message.end_reason, message.note, message.tool_error) == (None, None, None)
