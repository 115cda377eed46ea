"""Budget pauses: with ``budget_pause`` in the config a run that would go over a limit pauses
(saved, like an approval) and goes on once the limit is raised, or ends when told to stop."""

from __future__ import annotations

from typing import Any

from app.core import HumanMessage, Resume, create_agent, tool
from app.core.budget import Budget, BudgetLimits
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph.budget_pause import budget_pause_of, suggested_raise
from app.core.models import ScriptedChatModel
from app.core.state import AgentState, ToolResultBlock
from app.core.tools.policy import InMemoryApprovalPolicy

CFG: dict[str, Any] = {"thread_id": "t", "budget_pause": True}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool(requires_approval=True)
def shout(text: str) -> str:
    """Say ``text`` loudly."""
    return text.upper()


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


def results(state: AgentState) -> list[ToolResultBlock]:
    return [r for m in state.context if m.role == "tool" for r in m.tool_results()]


def adds(n: int) -> list[dict[str, Any]]:
    return [{"tool_calls": [call("add", a=i, b=i)]} for i in range(n)]


async def test_over_the_model_call_limit_the_run_pauses_and_goes_on_when_raised() -> None:
    model = ScriptedChatModel([*adds(2), {"text": "the sum is 2"}])
    saver = InMemoryCheckpointer()
    agent = create_agent(model, [add], checkpointer=saver)
    paused = await agent.ainvoke({"messages": [HumanMessage("add")]}, {**CFG, "max_model_calls": 2})
    assert paused.execution_meta.status == "interrupted"
    question = budget_pause_of(paused.execution_meta.interrupts[0].value)
    assert question is not None
    assert (question.limit, question.value, question.used) == ("max_model_calls", 2, 2)
    assert question.text == "The next step would go over the model-call budget (2)."
    assert model.remaining == 1  # the third call was not made
    iid = paused.execution_meta.interrupts[0].id
    # a fresh graph on the same saved state: the pause survives a restart
    again = create_agent(model, [add], checkpointer=saver)
    done = await again.ainvoke(
        Resume(answers={iid: {"decision": "raise", "to": 3}}), {**CFG, "max_model_calls": 2}
    )
    assert done.context[-1].text() == "the sum is 2"
    assert done.execution_meta.status == "completed"
    assert [r.output for r in results(done)] == [0, 2]


async def test_stopping_at_a_budget_pause_ends_the_turn_with_a_final_message() -> None:
    model = ScriptedChatModel([*adds(1), {"text": "never"}])
    agent = create_agent(model, [add], checkpointer=InMemoryCheckpointer())
    paused = await agent.ainvoke({"messages": [HumanMessage("add")]}, {**CFG, "max_model_calls": 1})
    iid = paused.execution_meta.interrupts[0].id
    done = await agent.ainvoke(
        Resume(answers={iid: {"decision": "stop"}}), {**CFG, "max_model_calls": 1}
    )
    assert done.context[-1].text() == (
        "I stopped before finishing: the model-call budget (1) is used up."
    )
    assert done.context[-1].end_reason == "budget"
    assert model.remaining == 1


async def test_a_tool_call_pause_raised_before_an_approval_keeps_both_answers_apart() -> None:
    model = ScriptedChatModel(
        [{"tool_calls": [call("add", a=1, b=1), call("shout", text="hi")]}, {"text": "2 and HI"}]
    )
    agent = create_agent(
        model,
        [add, shout],
        checkpointer=InMemoryCheckpointer(),
        approval_policy=InMemoryApprovalPolicy(),
    )
    cfg = {**CFG, "max_tool_calls": 1}
    paused = await agent.ainvoke({"messages": [HumanMessage("go")]}, cfg)
    budget = paused.execution_meta.interrupts[0]
    question = budget_pause_of(budget.value)
    assert question is not None and (question.limit, question.needed) == ("max_tool_calls", 1)
    paused = await agent.ainvoke(Resume(answers={budget.id: {"decision": "raise", "to": 2}}), cfg)
    approval = paused.execution_meta.interrupts[0]
    assert budget_pause_of(approval.value) is None
    assert paused.execution_meta.spent["raised:max_tool_calls"] == 2
    done = await agent.ainvoke(Resume(answers={approval.id: _approve_all(approval.value)}), cfg)
    assert [r.output for r in results(done)] == [2, "HI"]
    assert done.context[-1].text() == "2 and HI"


def _approve_all(value: Any) -> dict[str, Any]:
    return {r["call_id"]: "approve" for r in value["requests"]}


async def test_without_budget_pause_in_the_config_the_turn_ends_as_before() -> None:
    model = ScriptedChatModel([*adds(1), {"text": "never"}])
    done = await create_agent(model, [add], checkpointer=InMemoryCheckpointer()).ainvoke(
        {"messages": [HumanMessage("add")]}, {"thread_id": "t", "max_model_calls": 1}
    )
    assert done.execution_meta.status == "completed"
    assert "model-call budget (1) is used up" in done.context[-1].text()


def test_raising_a_limit_is_idempotent_and_saved_with_the_spending() -> None:
    budget = Budget(BudgetLimits(max_model_calls=2, max_cost=0.5))
    budget.raise_limit("max_model_calls", 5)
    budget.raise_limit("max_model_calls", 5)
    budget.raise_limit("max_model_calls", 3)  # never lowers
    assert budget.limits.max_model_calls == 5
    saved = budget.saved()
    fresh = Budget(BudgetLimits(max_model_calls=2, max_cost=0.5))
    fresh.restore(saved)
    assert fresh.limits.max_model_calls == 5 and fresh.limits.max_cost == 0.5
    assert suggested_raise("max_model_calls", 8) == 12
    assert suggested_raise("max_tool_calls", 1, needed=3) == 4
    assert suggested_raise("max_tokens", 500) == 1500
    assert suggested_raise("max_cost", 1.0) == 1.5
