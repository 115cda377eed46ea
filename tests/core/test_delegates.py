"""Delegation graphs: loops found with the path that closes them, depth, and build order."""

from __future__ import annotations

import pytest

from app.core.delegates import delegation_depth, delegation_order, find_loop


def test_a_loop_is_named_by_the_path_that_closes_it() -> None:
    assert find_loop({"a": ["b"], "b": ["a"]}) == ["a", "b", "a"]
    assert find_loop({"a": ["a"]}) == ["a", "a"]
    assert find_loop({"x": ["a"], "a": ["b"], "b": ["c"], "c": ["a"]}, "x") == ["a", "b", "c", "a"]


def test_shared_delegates_are_no_loop() -> None:
    graph = {"a": ["b", "c"], "b": ["c"], "c": []}
    assert find_loop(graph) is None
    assert find_loop(graph, "b") is None
    assert delegation_depth(graph, "a") == 2
    assert delegation_depth(graph, "c") == 0


def test_a_loop_out_of_reach_of_the_start_is_not_its_loop() -> None:
    graph = {"a": ["b"], "b": ["a"], "c": ["d"]}
    assert find_loop(graph, "c") is None
    assert find_loop(graph) == ["a", "b", "a"]


def test_depth_through_an_unchecked_loop_ends_where_the_loop_closes() -> None:
    """A caller that did not look for loops first still gets an answer, not a recursion."""
    assert delegation_depth({"a": ["b"], "b": ["a"]}, "a") == 2


def test_the_build_order_puts_delegates_first_and_refuses_a_loop() -> None:
    order = delegation_order({"writer": ["researcher", "checker"], "researcher": ["checker"]})
    assert order == ["checker", "researcher", "writer"]
    with pytest.raises(ValueError, match="^delegation loops: a → b → a$"):
        delegation_order({"a": ["b"], "b": ["a"]})
