"""Engine overhead per step: a 3-node loop of trivial nodes, in-memory checkpointer,
against LangGraph running the same graph with its in-memory saver."""

from __future__ import annotations

import asyncio
import time
from typing import Any, TypedDict

from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import END, START, StateGraph
from app.core.state import AgentState
from bench.table import Row

STEPS = 600
ROUNDS = 3


class Loop(AgentState):
    n: int = 0


def _parley_graph() -> Any:
    def step(s: Loop) -> dict[str, int]:
        return {"n": s.n + 1}

    return (
        StateGraph(Loop)
        .add_node("a", step)
        .add_node("b", step)
        .add_node("c", step)
        .add_edge(START, "a")
        .add_edge("a", "b")
        .add_edge("b", "c")
        .add_conditional_edges("c", lambda s: END if s.n >= STEPS else "a")
        .compile(checkpointer=InMemoryCheckpointer(), step_limit=STEPS + 10)
    )


class LoopDict(TypedDict):
    n: int


def _langgraph_graph() -> Any:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END as LG_END
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LGStateGraph

    def step(s: LoopDict) -> dict[str, int]:
        return {"n": s["n"] + 1}

    g = LGStateGraph(LoopDict)
    g.add_node("a", step)
    g.add_node("b", step)
    g.add_node("c", step)
    g.add_edge(LG_START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_conditional_edges("c", lambda s: LG_END if s["n"] >= STEPS else "a")
    return g.compile(checkpointer=InMemorySaver())


async def _time_parley() -> float:
    best = float("inf")
    for r in range(ROUNDS):
        graph = _parley_graph()
        start = time.perf_counter()
        out = await graph.ainvoke({}, {"thread_id": f"t{r}"})
        best = min(best, time.perf_counter() - start)
        assert out.n == STEPS
    return best / STEPS


async def _time_langgraph() -> float:
    best = float("inf")
    for r in range(ROUNDS):
        graph = _langgraph_graph()
        start = time.perf_counter()
        out = await graph.ainvoke(
            {"n": 0}, {"configurable": {"thread_id": f"t{r}"}, "recursion_limit": STEPS + 10}
        )
        best = min(best, time.perf_counter() - start)
        assert out["n"] == STEPS
    return best / STEPS


def run() -> list[Row]:
    """Measure per-step overhead of both engines in this process."""
    ours = asyncio.run(_time_parley())
    theirs = asyncio.run(_time_langgraph())
    return [
        Row(
            "graph",
            "overhead per step, 3-node loop, in-memory checkpoints",
            ours * 1e6,
            "µs",
            peer=theirs * 1e6,
            peer_name="LangGraph",
            target=">= 10x less than LangGraph",
            ok=theirs / ours >= 10,
        )
    ]
