"""Tools inside a real agent run: pause for approval, resume, and nothing secret is saved."""

from __future__ import annotations

from typing import Any

from app.core.agent import create_agent
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import START, Resume, StateGraph
from app.core.models.scripted import ScriptedChatModel
from app.core.state import AgentState, HumanMessage, Message, ToolCallBlock, ToolResultBlock
from app.core.state.serde import dump_state
from app.core.tools import InMemoryApprovalPolicy, Runtime, ToolNode, requests_of, tool

SECRET = "crm-token-5f1e2d"


@tool(permissions=("crm:write",), secret_refs={"token": "crm/api-token"}, requires_approval=True)
def update_ticket(ticket_id: str, status: str, token: str, runtime: Runtime) -> dict[str, Any]:
    """Update a ticket."""
    return {"id": ticket_id, "status": status, "auth": token}


def _agent(policy: InMemoryApprovalPolicy, checkpointer: InMemoryCheckpointer) -> Any:
    call = {"name": "update_ticket", "args": {"ticket_id": "T-42", "status": "closed"}, "id": "c1"}
    model = ScriptedChatModel([{"text": "", "tool_calls": [call]}, {"text": "Done."}])
    return create_agent(
        model,
        [update_ticket],
        secret_resolver=lambda ref: SECRET,
        approval_policy=policy,
        checkpointer=checkpointer,
    )


async def test_approval_pauses_the_run_and_resuming_runs_the_tool() -> None:
    policy, saver = InMemoryApprovalPolicy(), InMemoryCheckpointer()
    agent = _agent(policy, saver)
    config = {"thread_id": "t1", "tool_permissions": ["crm:write"]}
    paused = await agent.ainvoke({"messages": [HumanMessage("Close T-42")]}, config)
    assert paused.is_interrupted()
    pending = paused.execution_meta.interrupts
    requests = requests_of(pending[0].value)
    assert requests is not None and [r.call_id for r in requests] == ["c1"]

    done = await agent.ainvoke(Resume({"c1": "approve"}), config)
    results = [b for m in done.context for b in m.content if isinstance(b, ToolResultBlock)]
    assert results[0].output == {
        "id": "T-42",
        "status": "closed",
        "auth": "[redacted secret crm/api-token]",
    }
    assert done.context[-1].text() == "Done."
    assert SECRET not in dump_state(done).decode()
    assert [e.event for e in policy.audit] == ["requested", "decided"]


async def test_always_for_this_thread_in_a_child_graph_stays_in_that_thread() -> None:
    policy = InMemoryApprovalPolicy()
    tools = ToolNode([update_ticket], secret_resolver=lambda ref: SECRET, approval_policy=policy)
    child = StateGraph(AgentState).add_node("tools", tools).add_edge(START, "tools").compile()
    parent = (
        StateGraph(AgentState)
        .add_node("helper", child)
        .add_edge(START, "helper")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    asks = Message(
        role="assistant",
        content=[
            ToolCallBlock(id="c1", name="update_ticket", args={"ticket_id": "T-42", "status": "x"})
        ],
    )
    config = {"thread_id": "t1", "tool_permissions": ["crm:write"]}
    paused = await parent.ainvoke({"messages": [HumanMessage("Close T-42"), asks]}, config)
    assert paused.is_interrupted()
    await parent.ainvoke(Resume({"c1": {"decision": "always", "scope": "thread"}}), config)
    assert policy.rules() == [("update_ticket", "t1")]
    assert not policy.is_allowed("update_ticket", "another thread")
    assert {e.thread_id for e in policy.audit} == {"t1"}


async def test_a_child_agent_paused_for_approval_resumes_where_it_stopped() -> None:
    policy = InMemoryApprovalPolicy()
    call = {"name": "update_ticket", "args": {"ticket_id": "T-42", "status": "closed"}, "id": "c1"}
    model = ScriptedChatModel([{"text": "", "tool_calls": [call]}, {"text": "Done."}])
    child = create_agent(
        model, [update_ticket], secret_resolver=lambda ref: SECRET, approval_policy=policy
    )
    parent = (
        StateGraph(AgentState)
        .add_node("helper", child)
        .add_edge(START, "helper")
        .compile(checkpointer=InMemoryCheckpointer())
    )
    config = {"thread_id": "t1", "tool_permissions": ["crm:write"]}
    paused = await parent.ainvoke({"messages": [HumanMessage("Close T-42")]}, config)
    assert paused.is_interrupted()
    # the call waiting for approval is already part of the conversation
    assert [c.id for c in paused.context[-1].tool_calls()] == ["c1"]
    done = await parent.ainvoke(Resume({"c1": "approve"}), config)
    results = [b for m in done.context for b in m.content if isinstance(b, ToolResultBlock)]
    assert [r.output["status"] for r in results] == ["closed"]  # type: ignore[index, call-overload]
    assert [m.role for m in done.context] == ["user", "assistant", "tool", "assistant"]
    assert done.context[-1].text() == "Done."
    assert len(model.calls) == 2  # the model was not asked again for the call it had made
