"""Compile-time checks: mistakes surface when the graph is built, naming the culprit."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from app.core.errors import UserError
from app.core.graph import END, START, StateGraph
from app.core.state import AgentState


def noop(state: AgentState) -> None:
    return None


def test_state_class_must_be_an_agent_state() -> None:
    class Plain(BaseModel):
        x: int = 0

    with pytest.raises(UserError, match="AgentState"):
        StateGraph(Plain)  # type: ignore[type-var]


def test_instance_is_accepted_as_initial_state() -> None:
    class MyState(AgentState):
        city: str = ""

    g = StateGraph(MyState(city="Oslo"))
    assert g.state_cls is MyState
    assert g.initial_state is not None and g.initial_state.city == "Oslo"


def test_unknown_edge_target_is_named() -> None:
    g = StateGraph(AgentState).add_node("a", noop).add_edge(START, "a").add_edge("a", "ghost")
    with pytest.raises(UserError, match="'ghost'"):
        g.compile()


def test_missing_entry_point() -> None:
    g = StateGraph(AgentState).add_node("a", noop).add_edge("a", END)
    with pytest.raises(UserError, match="entry point"):
        g.compile()


def test_unreachable_node_is_named() -> None:
    g = (
        StateGraph(AgentState)
        .add_node("a", noop)
        .add_node("island", noop)
        .add_edge(START, "a")
        .add_edge("a", END)
    )
    with pytest.raises(UserError, match="'island'"):
        g.compile()


def test_path_map_to_unknown_node() -> None:
    g = (
        StateGraph(AgentState)
        .add_node("a", noop)
        .add_edge(START, "a")
        .add_conditional_edges("a", lambda s: "x", {"x": "nowhere"})
    )
    with pytest.raises(UserError, match="'nowhere'"):
        g.compile()


def test_reserved_and_duplicate_names() -> None:
    g = StateGraph(AgentState).add_node("a", noop)
    with pytest.raises(UserError, match="already exists"):
        g.add_node("a", noop)
    with pytest.raises(UserError, match="reserved"):
        g.add_node(END, noop)
    with pytest.raises(UserError, match="callable"):
        g.add_node("b", 42)  # type: ignore[arg-type]


def test_node_name_defaults_to_function_name() -> None:
    g = StateGraph(AgentState).add_node(noop).add_edge(START, "noop")
    assert "noop" in g.compile().nodes


def test_router_without_path_map_counts_every_node_reachable() -> None:
    g = (
        StateGraph(AgentState)
        .add_node("a", noop)
        .add_node("b", noop)
        .add_edge(START, "a")
        .add_conditional_edges("a", lambda s: "b")
    )
    g.compile()
