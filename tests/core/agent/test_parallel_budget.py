"""Parallel delegates and parallel tool calls share one budget and never spend past it: a
model call, a tool call and a call's tokens and cost are reserved before it starts, so calls
running side by side cannot all pass the same check."""

from __future__ import annotations

import asyncio
from typing import Any

from app.core import HumanMessage, create_agent, tool
from app.core.agent.delegation import delegate_tool
from app.core.budget import Budget, BudgetLimits
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import RunConfig
from app.core.graph.budget_pause import budget_pause_of
from app.core.models import ScriptedChatModel
from app.core.models.protocol import ModelInfo, ModelPrice
from app.core.state import AgentState

NAMES = ["Ada", "Bea", "Cy", "Dee", "Eve", "Flo"]
USAGE = {"prompt_tokens": 60, "completion_tokens": 40}  # 100 tokens a call
PRICE = ModelPrice(input_per_mtok=1000.0, output_per_mtok=1000.0)  # $0.10 a call
INFO = ModelInfo(spec="scripted", name="scripted", provider="scripted", price=PRICE)


def ask_all(names: list[str]) -> dict[str, Any]:
    calls = [
        {"name": f"ask_{n.lower()}", "args": {"task": "Look it up."}, "id": f"d{k}"}
        for k, n in enumerate(names)
    ]
    return {"text": "Asking everyone.", "tool_calls": calls, "usage": USAGE}


class Team:
    """Six delegates asked at once; each looks one thing up, then answers."""

    def __init__(self, *, look_first: bool = False) -> None:
        self.looked_up: list[str] = []
        self.models: list[ScriptedChatModel] = []
        tools = []

        @tool(secret_refs={"key": "library/key"})
        def look_up(query: str, key: str) -> str:
            """Look something up."""
            self.looked_up.append(query)
            return f"{query}: 42"

        async def keyring(ref: str) -> str:
            # a key is read off the loop, as from the system keyring: the calls' checks and
            # their running are apart, and the other delegates go on meanwhile
            await asyncio.sleep(0.01)
            return "k"

        for name in NAMES:
            script: list[Any] = []
            if look_first:
                script.append(
                    {"tool_calls": [{"name": "look_up", "args": {"query": name}}], "usage": USAGE}
                )
            script.append({"text": f"{name} found 42.", "usage": USAGE})
            # a delay lets the six run side by side, each awaiting its model as a real one does
            model = ScriptedChatModel(script, delay=0.001, info=INFO)
            self.models.append(model)
            graph = create_agent(
                model, [look_up], system_prompt="Research.", name=name, secret_resolver=keyring
            )
            tools.append(delegate_tool(graph, name=name, asked_by="Parley"))
        self.parent = ScriptedChatModel(
            [ask_all(NAMES), {"text": "Everyone answered.", "usage": USAGE}], info=INFO
        )
        self.models.append(self.parent)
        self.graph = create_agent(self.parent, tools, checkpointer=InMemoryCheckpointer())

    @property
    def served(self) -> int:
        """How many replies the models really gave."""
        return sum(len(m.calls) for m in self.models)

    async def run(self, *, budget_pause: bool = False, **limits: Any) -> tuple[AgentState, Budget]:
        budget = Budget(BudgetLimits(**limits))
        config = RunConfig(thread_id="t", budget=budget, budget_pause=budget_pause)
        done = await self.graph.ainvoke({"messages": [HumanMessage("Ask them all.")]}, config)
        return done, budget


async def test_six_parallel_delegates_make_no_more_model_calls_than_the_limit() -> None:
    team = Team()
    done, budget = await team.run(max_model_calls=3)

    assert team.served == 3
    assert budget.usage.model_calls == 3
    assert sum(u.model_calls for u in budget.by_agent.values()) == 3
    assert budget.by_agent[""].model_calls == 1
    assert done.context[-1].end_reason == "budget"
    assert "model-call budget (3) is used up" in done.context[-1].text()


async def test_a_delegate_refused_by_the_others_reservations_pauses_like_any_over_budget_call() -> (
    None
):
    team = Team()
    done, budget = await team.run(max_model_calls=3, budget_pause=True)
    assert budget.usage.model_calls == 3

    assert team.served == 3
    assert done.execution_meta.status == "interrupted"
    pauses = [budget_pause_of(i.value) for i in done.execution_meta.interrupts]
    assert len(pauses) == 4  # the parent's call and two delegates' are in; four wait
    assert all(p is not None and p.limit == "max_model_calls" for p in pauses)


async def test_six_parallel_delegates_spend_no_more_tokens_than_the_limit_allows() -> None:
    team = Team()
    done, budget = await team.run(max_tokens=250)

    # the parent's call (100) and then as many delegates as fit: 200 < 250 lets one more in
    assert team.served == 3
    assert budget.usage.tokens == 300
    assert done.context[-1].end_reason == "budget"


async def test_six_parallel_delegates_spend_no_more_than_the_cost_limit_allows() -> None:
    team = Team()
    _, budget = await team.run(max_cost=0.25)

    assert team.served == 3
    assert round(budget.usage.cost, 4) == 0.3
    assert round(sum(u.cost for u in budget.by_agent.values()), 4) == 0.3


async def test_six_parallel_delegates_make_no_more_tool_calls_than_the_limit() -> None:
    team = Team(look_first=True)
    _, budget = await team.run(max_tool_calls=8)

    # the six asks are calls too: two look-ups are left
    assert len(team.looked_up) == 2
    assert budget.usage.tool_calls == 8
    assert sum(u.tool_calls for u in budget.by_agent.values()) == 8


async def test_parallel_delegates_over_the_tool_call_limit_pause_instead_of_failing() -> None:
    team = Team(look_first=True)
    done, _ = await team.run(max_tool_calls=8, budget_pause=True)

    assert len(team.looked_up) == 2
    assert done.execution_meta.status == "interrupted"
    pauses = [budget_pause_of(i.value) for i in done.execution_meta.interrupts]
    assert len(pauses) == 4
    assert all(p is not None and p.limit == "max_tool_calls" for p in pauses)


async def test_one_agents_parallel_tool_calls_stay_within_the_tool_call_limit() -> None:
    looked_up: list[str] = []

    @tool
    def look_up(query: str) -> str:
        """Look something up."""
        looked_up.append(query)
        return "42"

    calls = [{"name": "look_up", "args": {"query": f"q{k}"}} for k in range(5)]
    model = ScriptedChatModel([{"tool_calls": calls}, {"text": "Done."}])
    graph = create_agent(model, [look_up], checkpointer=InMemoryCheckpointer())
    done = await graph.ainvoke(
        {"messages": [HumanMessage("Go")]}, {"thread_id": "t", "max_tool_calls": 3}
    )

    assert len(looked_up) == 3
    assert done.context[-1].end_reason == "budget"
    assert "tool-call budget (3) is used up" in done.context[-1].text()
