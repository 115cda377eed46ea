"""Approvals: one interrupt per message, every kind of decision, rules and the audit log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import JsonValue

from app.core.graph.context import GraphInterrupt
from app.core.state import ToolCallBlock
from app.core.tools import (
    APPROVAL_KIND,
    ApprovalDecision,
    ApprovalPayload,
    ApprovalRequest,
    InMemoryApprovalPolicy,
    Runtime,
    ToolNode,
    answer_approvals,
    args_fingerprint,
    parse_answer,
    requests_of,
    tool,
)
from tests.core.tools.helpers import Run, asking, call, error_code, result, results

TOKEN = "tok-abcdef-123456"


class Ledger:
    """Records the side effects tools have, so a test can see what ran."""

    def __init__(self) -> None:
        self.done: list[str] = []


def make_tools(ledger: Ledger) -> list[Any]:
    """A sensitive tool, a harmless one, and a sensitive one with a secret."""

    @tool(permissions=("crm:write",), requires_approval=True)
    def close_ticket(ticket_id: str, reason: str = "done") -> str:
        """Close a CRM ticket."""
        ledger.done.append(f"close {ticket_id}")
        return f"closed {ticket_id}"

    @tool
    def lookup(ticket_id: str) -> str:
        """Look a ticket up."""
        ledger.done.append(f"lookup {ticket_id}")
        return f"{ticket_id} is open"

    @tool(requires_approval=True, secret_refs={"token": "crm/api-token"})
    def refund(amount: int, token: str, runtime: Runtime) -> str:
        """Refund money."""
        ledger.done.append(f"refund {amount}")
        return f"refunded {amount}"

    return [close_ticket, lookup, refund]


def node_for(ledger: Ledger, policy: InMemoryApprovalPolicy | None = None) -> ToolNode:
    """A node over the test tools with a fake secret and ``policy``."""
    return ToolNode(make_tools(ledger), secret_resolver=lambda ref: TOKEN, approval_policy=policy)


STATE = asking(
    call("close_ticket", "c1", ticket_id="T-42"),
    call("lookup", "c2", ticket_id="T-42"),
    call("refund", "c3", amount=10),
)


def decide(**by_call: JsonValue) -> Any:
    """An answer function giving ``{call_id: decision}``."""
    return lambda value: dict(by_call)


async def test_one_interrupt_carries_the_whole_batch_and_nothing_ran_before() -> None:
    ledger = Ledger()
    run = Run(permissions=("crm:write",))
    with pytest.raises(GraphInterrupt) as caught:
        await run.once(node_for(ledger), STATE)
    assert ledger.done == []
    value = caught.value.interrupt.value
    assert caught.value.interrupt.id == "task1:0"
    payload = ApprovalPayload.model_validate(value)
    assert payload.kind == APPROVAL_KIND
    assert [r.call_id for r in payload.requests] == ["c1", "c3"]
    first = payload.requests[0]
    assert first == ApprovalRequest(
        call_id="c1",
        tool="close_ticket",
        description="Close a CRM ticket.",
        permissions=["crm:write"],
        args={"ticket_id": "T-42", "reason": "done"},
        fingerprint=args_fingerprint({"ticket_id": "T-42", "reason": "done"}),
        thread_id="t1",
    )
    assert payload.requests[1].args == {"amount": 10}
    assert TOKEN not in str(value)
    assert requests_of(value) == payload.requests
    assert requests_of({"kind": "other"}) is None


async def test_approve_runs_everything_once_after_the_decision() -> None:
    ledger = Ledger()
    run = Run(permissions=("crm:write",))
    update = await run.until_done(node_for(ledger), STATE, decide(c1="approve", c3="approve"))
    assert [r.output for r in results(update)] == ["closed T-42", "T-42 is open", "refunded 10"]
    assert sorted(ledger.done) == ["close T-42", "lookup T-42", "refund 10"]
    assert len(run.interrupts) == 1


async def test_deny_with_and_without_reason() -> None:
    ledger = Ledger()
    answer = {
        "decisions": [
            {"call_id": "c1", "decision": "deny", "reason": "wrong ticket"},
            {"call_id": "c3", "decision": "deny"},
        ]
    }
    update = await Run(permissions=("crm:write",)).until_done(
        node_for(ledger), STATE, lambda v: answer
    )
    assert result(update, 0).output == "The user denied this call to 'close_ticket': wrong ticket"
    assert result(update, 2).output == "The user denied this call to 'refund'."
    assert [error_code(update, i) for i in range(3)] == ["denied", None, "denied"]
    assert ledger.done == ["lookup T-42"]


async def test_edit_runs_with_the_edited_arguments_after_validating_them() -> None:
    ledger = Ledger()
    answer = [
        {"call_id": "c1", "decision": "edit", "args": {"ticket_id": "T-43"}},
        {"call_id": "c3", "decision": "edit", "args": {"amount": "lots"}},
    ]
    policy = InMemoryApprovalPolicy()
    update = await Run(permissions=("crm:write",)).until_done(
        node_for(ledger, policy), STATE, lambda v: answer
    )
    assert result(update, 0).output == "closed T-43"
    assert update["context"][0].metadata == {
        "approval": "edited",
        "edited_args": {"ticket_id": "T-43", "reason": "done"},
    }
    assert error_code(update, 2) == "invalid_arguments"
    assert str(result(update, 2).output).startswith("The user's edited arguments were rejected.")
    assert "refund 10" not in ledger.done and "close T-43" in ledger.done
    decided = [e for e in policy.audit if e.event == "decided" and e.call_id == "c1"]
    assert decided[0].edited_fingerprint == args_fingerprint(
        {"ticket_id": "T-43", "reason": "done"}
    )


async def test_edited_arguments_are_authorized_again() -> None:
    def authorize(c: ToolCallBlock, runtime: Runtime) -> bool | str:
        return c.args.get("ticket_id") != "T-1" or "T-1 is frozen"

    ledger = Ledger()
    node = ToolNode(make_tools(ledger), tool_authorize=authorize)
    state = asking(call("close_ticket", "c1", ticket_id="T-42"))
    answer = {"c1": {"decision": "edit", "args": {"ticket_id": "T-1"}}}
    update = await Run(permissions=("crm:write",)).until_done(node, state, lambda v: answer)
    assert result(update).output == "Tool 'close_ticket' was not authorized: T-1 is frozen."
    assert ledger.done == []


async def test_always_for_this_thread() -> None:
    ledger, policy = Ledger(), InMemoryApprovalPolicy()
    node = node_for(ledger, policy)
    state = asking(call("close_ticket", "c1", ticket_id="T-1"))
    run = Run(permissions=("crm:write",))
    await run.until_done(node, state, decide(c1={"decision": "always", "scope": "thread"}))
    assert policy.rules() == [("close_ticket", "t1")]
    again = await Run(permissions=("crm:write",)).once(node, state)
    assert result(again).output == "closed T-1"
    with pytest.raises(GraphInterrupt):
        await Run(permissions=("crm:write",), thread_id="t2").once(node, state)
    assert policy.audit[-1].event == "requested"
    allowed = [e for e in policy.audit if e.event == "allowed_by_rule"]
    assert [(e.thread_id, e.tool) for e in allowed] == [("t1", "close_ticket")]


async def test_always_for_the_tool_everywhere_and_revoke() -> None:
    ledger, policy = Ledger(), InMemoryApprovalPolicy()
    node = node_for(ledger, policy)
    state = asking(call("refund", "c1", amount=5))
    await Run().until_done(node, state, decide(c1={"decision": "always", "scope": "tool"}))
    assert policy.rules() == [("refund", None)]
    other = await Run(thread_id="elsewhere").once(node, state)
    assert result(other).output == "refunded 5"
    policy.revoke("refund", None)
    with pytest.raises(GraphInterrupt):
        await Run().once(node, state)


async def test_missing_or_unreadable_decisions_deny() -> None:
    ledger = Ledger()
    update = await Run(permissions=("crm:write",)).until_done(
        node_for(ledger), STATE, decide(c1="approve")
    )
    assert result(update, 2).output == (
        "The user denied this call to 'refund': no decision was given for this call"
    )
    garbled = await Run(permissions=("crm:write",)).until_done(
        node_for(ledger), STATE, lambda v: {"c1": "perhaps"}
    )
    assert error_code(garbled, 0) == "denied" and error_code(garbled, 2) == "denied"
    assert "approval answer is malformed" in str(result(garbled, 0).output)
    number = await Run(permissions=("crm:write",)).until_done(node_for(ledger), STATE, lambda v: 42)
    assert "must be an object or a list, not int" in str(result(number, 0).output)


async def test_refused_calls_are_never_put_to_the_user() -> None:
    ledger = Ledger()
    state = asking(call("close_ticket", "c1", ticket_id="T-1"), call("refund", "c2", amount="x"))
    update = await Run().once(node_for(ledger), state)
    assert [error_code(update, i) for i in range(2)] == ["permission", "invalid_arguments"]


async def test_outside_a_run_approval_cannot_be_asked() -> None:
    ledger = Ledger()
    update = await node_for(ledger)(asking(call("refund", "c1", amount=1)))
    assert error_code(update) == "approval_unavailable"
    assert ledger.done == []


async def test_audit_log_records_requests_once_and_each_decision() -> None:
    ledger, policy = Ledger(), InMemoryApprovalPolicy()
    run = Run(permissions=("crm:write",))
    await run.until_done(
        node_for(ledger, policy),
        STATE,
        decide(c1={"decision": "deny", "reason": "no"}, c3={"decision": "always", "scope": "tool"}),
    )
    rows = [(e.event, e.call_id, e.decision, e.scope, e.reason) for e in policy.audit]
    assert rows == [
        ("requested", "c1", None, None, None),
        ("requested", "c3", None, None, None),
        ("decided", "c1", "deny", "call", "no"),
        ("decided", "c3", "always", "tool", None),
    ]
    assert all(e.thread_id == "t1" for e in policy.audit)
    assert policy.audit[0].fingerprint == args_fingerprint({"ticket_id": "T-42", "reason": "done"})
    assert TOKEN not in repr(policy.audit)


async def test_a_resume_after_a_crash_runs_the_calls_again_with_the_same_keys() -> None:
    keys: list[str] = []

    @tool(requires_approval=True)
    def pay(amount: int, runtime: Runtime) -> str:
        """Pay."""
        keys.append(runtime.idempotency_key)
        return "paid"

    run = Run()
    node = ToolNode([pay])
    state = asking(call("pay", "c1", amount=1))
    await run.until_done(node, state, decide(c1="approve"))
    await run.once(node, state)  # the same resume value replayed, as after a crash
    assert len(keys) == 2 and keys[0] == keys[1]


async def test_async_policy_methods_are_awaited() -> None:
    class AsyncPolicy(InMemoryApprovalPolicy):
        async def is_allowed(  # type: ignore[override]
            self, tool: str, thread_id: str | None, agent: str = ""
        ) -> bool:
            return super().is_allowed(tool, thread_id, agent)

        async def allow(  # type: ignore[override]
            self, tool: str, thread_id: str | None, agent: str = ""
        ) -> None:
            super().allow(tool, thread_id, agent)

        async def record(self, entry: Any) -> None:  # type: ignore[override]
            super().record(entry)

    ledger, policy = Ledger(), AsyncPolicy()
    node = node_for(ledger, policy)
    state = asking(call("refund", "c1", amount=2))
    await Run().until_done(node, state, decide(c1="always"))
    assert policy.rules() == [("refund", "t1")]
    assert result(await Run().once(node, state)).output == "refunded 2"


class FakeHandler:
    """An ApprovalHandler that approves even amounts and denies odd ones."""

    async def decide(self, requests: Sequence[ApprovalRequest]) -> list[ApprovalDecision]:
        """Decide by the amount argument."""
        return [
            ApprovalDecision(
                call_id=r.call_id,
                decision="approve" if int(str(r.args["amount"])) % 2 == 0 else "deny",
                reason="odd",
            )
            for r in requests
        ]


async def test_a_handler_answers_the_interrupt() -> None:
    ledger = Ledger()
    state = asking(call("refund", "c1", amount=2), call("refund", "c2", amount=3))
    run = Run()
    with pytest.raises(GraphInterrupt) as caught:
        await run.once(node_for(ledger), state)
    answer = await answer_approvals(FakeHandler(), caught.value.interrupt.value)
    assert parse_answer(answer)["c2"].decision == "deny"
    run.resume[caught.value.interrupt.id] = answer
    update = await run.once(node_for(ledger), state)
    assert [error_code(update, i) for i in range(2)] == [None, "denied"]
    with pytest.raises(ValueError, match="does not ask for tool approvals"):
        await answer_approvals(FakeHandler(), {"kind": "question"})


def test_fingerprint_is_canonical() -> None:
    assert args_fingerprint({"b": 1, "a": "é"}) == args_fingerprint({"a": "é", "b": 1})
    assert args_fingerprint({"a": 1}) != args_fingerprint({"a": 2})
