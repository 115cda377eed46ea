"""The run config: a typed ``RunConfig``, and the dict spellings read once at the run's edge."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.core.checkpoint import InMemoryCheckpointer
from app.core.errors import GraphRecursionError, UserError
from app.core.graph import END, START, CompiledGraph, RunConfig, RunContext, StateGraph
from app.core.state import AgentState


class Counter(AgentState):
    n: int = 0
    seen: str = ""


def _counting() -> CompiledGraph[Counter]:
    def inc(s: Counter, ctx: RunContext) -> dict[str, Any]:
        return {"n": s.n + 1, "seen": str(ctx.config.values.get("locale", ""))}

    return (
        StateGraph(Counter)
        .add_node("inc", inc)
        .add_edge(START, "inc")
        .add_conditional_edges("inc", lambda s: END if s.n >= 5 else "inc")
        .compile(checkpointer=InMemoryCheckpointer())
    )


async def test_the_nested_configurable_spelling_and_recursion_limit_are_read() -> None:
    g = _counting()
    with pytest.raises(GraphRecursionError, match="step limit \\(3\\)"):
        await g.ainvoke({}, {"configurable": {"thread_id": "t"}, "recursion_limit": 3})
    snapshot = await g.aget_state({"configurable": {"thread_id": "t"}})
    assert snapshot is not None and snapshot.state.n == 3


async def test_a_typed_config_runs_and_its_values_reach_the_nodes() -> None:
    g = _counting()
    out = await g.ainvoke({}, RunConfig(thread_id="t", step_limit=9, values={"locale": "nb"}))
    assert (out.n, out.seen) == (5, "nb")
    history = await g.aget_history(RunConfig(thread_id="t"))
    assert len(history) == 6


def test_the_documented_keys_become_fields_and_the_rest_values() -> None:
    config = RunConfig.of(
        {
            "tool_permissions": ["crm:write"],
            "max_model_calls": 8,
            "max_tool_calls": 4,
            "thread_id": 7,
            "step_limit": "12",
            "locale": "nb",
        }
    )
    assert config.tool_permissions == frozenset({"crm:write"})
    assert (config.limits.max_model_calls, config.limits.max_tool_calls) == (8, 4)
    assert (config.thread_id, config.step_limit) == ("7", 12)
    assert dict(config.values) == {"locale": "nb"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.thread_id = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("config", "sentence"),
    [
        (
            {"step_limit": "many"},
            "config['step_limit'] must be a whole number of steps, not 'many'",
        ),
        ({"recursion_limit": -2}, "config['step_limit'] must be a whole number of steps, not -2"),
        ({"max_model_calls": "lots"}, "config['max_model_calls'] must be a number or None"),
        ({"tool_permissions": "crm:write"}, "config['tool_permissions'] must be a list of"),
        ({"configurable": 5}, "config['configurable'] must be a dict of run settings"),
        (["thread_id"], "the run config must be a RunConfig or a dict, not list"),
    ],
)
async def test_a_bad_config_value_is_named_in_one_sentence(config: Any, sentence: str) -> None:
    with pytest.raises(UserError) as caught:
        await _counting().ainvoke({}, config)
    assert str(caught.value).startswith(sentence)
    assert "\n" not in str(caught.value)


async def test_reading_a_thread_without_its_id_says_so() -> None:
    with pytest.raises(UserError, match="needs its thread_id in the config"):
        await _counting().aget_state({})
