"""Who may ask whom: loops and depth in a graph of agents and their delegates.

Pure functions on a mapping from an agent's key to the keys of the agents it may delegate to,
used when an agent is saved and again when a run starts a child. Keys are compared as given:
callers fold names first (case, width) so "Researcher" and "researcher" are one agent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["MAX_DELEGATION_DEPTH", "delegation_depth", "delegation_order", "find_loop"]

MAX_DELEGATION_DEPTH = 3
"""How many hops of delegation a turn may take: A asks B asks C asks D, and no further."""

Graph = Mapping[str, Sequence[str]]


def find_loop(graph: Graph, start: str | None = None) -> list[str] | None:
    """A loop of delegation reachable from ``start`` (from anywhere when ``None``), as the
    path that closes it (``["a", "b", "a"]``), or ``None`` when there is none."""
    done: set[str] = set()
    path: list[str] = []

    def walk(key: str) -> list[str] | None:
        if key in path:
            return [*path[path.index(key) :], key]
        if key in done:
            return None
        path.append(key)
        for child in graph.get(key, ()):
            if (loop := walk(child)) is not None:
                return loop
        path.pop()
        done.add(key)
        return None

    for root in [start] if start is not None else list(graph):
        if (loop := walk(root)) is not None:
            return loop
    return None


def delegation_depth(graph: Graph, start: str) -> int:
    """How many hops the longest chain of delegation from ``start`` takes (0: it asks no one).
    The graph must have no loop reachable from ``start`` (see :func:`find_loop`)."""
    memo: dict[str, int] = {}

    def depth(key: str) -> int:
        if key not in memo:
            memo[key] = 0  # a loop, if the caller did not check, ends here
            memo[key] = max((1 + depth(c) for c in graph.get(key, ())), default=0)
        return memo[key]

    return depth(start)


def delegation_order(graph: Graph) -> list[str]:
    """Every agent of ``graph`` (and every delegate it names), each after all the agents it
    may delegate to: the order in which to build them so each one's delegates exist first.
    Raises :class:`ValueError` naming the loop when there is one."""
    loop = find_loop(graph)
    if loop is not None:
        raise ValueError("delegation loops: " + " → ".join(loop))
    order: list[str] = []
    seen: set[str] = set()

    def visit(key: str) -> None:
        if key in seen:
            return
        seen.add(key)
        for child in graph.get(key, ()):
            visit(child)
        order.append(key)

    for key in graph:
        visit(key)
    return order
