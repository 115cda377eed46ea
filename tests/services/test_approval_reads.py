"""A paused turn's approval travels typed from the run to whoever answers it and back, and is
read back from the database once: by the run that resumes it. Real SQLite file, scripted
model, a tool that needs approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core import tool
from app.core.models import ScriptedChatModel
from app.core.tools import ApprovalDecision, ApprovalRequest
from app.services.events import ApprovalNeeded, WorkspaceEvent
from app.store import Store
from tests.services.conversations import conversation
from tests.services.pause_reads import count_pause_reads


@tool(requires_approval=True)
def shout(text: str) -> str:
    """Say ``text`` loudly."""
    return text.upper()


class Approver:
    """Approves every call, remembering what it was asked."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def decide(self, requests: Any) -> list[ApprovalDecision]:
        self.asked += list(requests)
        return [ApprovalDecision(call_id=r.call_id, decision="approve") for r in requests]


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(
        [{"tool_calls": [{"name": "shout", "args": {"text": "hi"}}]}, {"text": "Said HI."}]
    )


async def test_an_approval_answered_at_once_is_read_from_the_store_once(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "parley.db")
    reads = count_pause_reads(store)
    seen: list[WorkspaceEvent] = []
    approver = Approver()
    chat = conversation(store, _model(), tools=[shout], approvals=approver, on_event=seen.append)
    try:
        thread = await chat.new_thread("shout")
        outcome = await chat.send(thread.id, "shout hi")
        assert outcome.state is not None and outcome.state.context[-1].text() == "Said HI."
        assert [(r.tool, r.args) for r in approver.asked] == [("shout", {"text": "hi"})]
        [asked] = [e for e in seen if isinstance(e, ApprovalNeeded)]
        assert asked.requests == approver.asked  # the requests the run reported, as they were
        assert reads.reads == 1  # the resumed run loading its pause; nobody else reads it
        log = await store.list_approvals(thread_id=thread.id)
        assert {r.decision for r in log} == {"requested", "approve"}
    finally:
        await chat.workspace.aclose()
        await store.aclose()


async def test_a_pause_found_after_a_restart_is_read_to_ask_then_to_resume(
    tmp_path: Path,
) -> None:
    model = _model()  # one script across the restart
    store = Store.open(tmp_path / "parley.db")
    chat = conversation(store, model, tools=[shout])
    thread = await chat.new_thread("shout")
    assert (await chat.send(thread.id, "shout hi")).waiting
    await chat.workspace.aclose()
    await store.aclose()

    store = Store.open(tmp_path / "parley.db")
    reads = count_pause_reads(store)
    approver = Approver()
    chat = conversation(store, model, tools=[shout], approvals=approver)
    try:
        done = (await chat.resume(thread.id)).state
        assert done is not None and done.context[-1].text() == "Said HI."
        assert [r.tool for r in approver.asked] == ["shout"]
        assert reads.reads == 2  # once to learn what to ask, once by the run that resumes
    finally:
        await chat.workspace.aclose()
        await store.aclose()
