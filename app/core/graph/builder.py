"""``StateGraph``: the builder. Add nodes and edges, then ``compile()`` checks and freezes them."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from app.core.constants import END, START
from app.core.errors import UserError
from app.core.graph.nodes import Branch, NodeSpec
from app.core.state.agent_state import AgentState

if TYPE_CHECKING:
    from app.core.checkpoint.base import Checkpointer
    from app.core.graph.compiled import CompiledGraph

__all__ = ["Branch", "NodeSpec", "StateGraph"]

S = TypeVar("S", bound=AgentState)


def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return 2
    return sum(1 for p in params if p.kind in kinds)


def _is_async(fn: Callable[..., Any]) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004 - callable objects with async __call__
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


class StateGraph(Generic[S]):
    """Builds a graph of nodes over a state class (``AgentState`` or a subclass).

    ``StateGraph(MyState)`` or ``StateGraph(MyState())`` — with an instance, it is the initial
    state of new threads.
    """

    def __init__(self, state: type[S] | S) -> None:
        if isinstance(state, AgentState):
            self.state_cls: type[S] = type(state)
            self.initial_state: S | None = state
        elif isinstance(state, type) and issubclass(state, AgentState):
            self.state_cls = state
            self.initial_state = None
        else:
            raise UserError(
                f"StateGraph needs AgentState or a subclass of it (or an instance), not {state!r}"
            )
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: list[tuple[str, str]] = []
        self.branches: list[Branch] = []

    def add_node(
        self,
        name: str | Callable[..., Any],
        fn: Callable[..., Any] | None = None,
        *,
        run_in_thread: bool = False,
    ) -> StateGraph[S]:
        """Add a node: ``fn(state)`` or ``fn(state, context)``, sync or async, or a compiled
        graph (a child graph sharing the run context). A sync node with ``run_in_thread``
        runs in a worker thread so it cannot block the event loop."""
        if fn is None:
            if isinstance(name, str):
                raise UserError(f"add_node({name!r}) needs the node's function")
            fn = name
            name = str(getattr(fn, "name", None) or getattr(fn, "__name__", ""))
        if not isinstance(name, str) or not name:
            raise UserError(f"a node needs a non-empty string name, got {name!r}")
        if name in (START, END):
            raise UserError(f"{name!r} is reserved and cannot be a node name")
        if name in self.nodes:
            raise UserError(f"a node named {name!r} already exists")
        from app.core.graph.compiled import CompiledGraph

        if isinstance(fn, CompiledGraph):
            fn = fn.as_node()
        if not callable(fn):
            raise UserError(f"node {name!r} must be callable, got {type(fn).__name__}")
        self.nodes[name] = NodeSpec(
            name=name,
            fn=fn,
            takes_context=_positional_count(fn) >= 2,
            is_async=_is_async(fn),
            run_in_thread=run_in_thread,
        )
        return self

    def add_edge(self, start: str, end: str) -> StateGraph[S]:
        """Run ``end`` after ``start``."""
        if not isinstance(start, str) or not isinstance(end, str):
            raise UserError("add_edge takes two node names (joins of several nodes are not kept)")
        if start == END:
            raise UserError("END has no outgoing edges")
        if end == START:
            raise UserError("no edge may lead into START")
        self.edges.append((start, end))
        return self

    def add_conditional_edges(
        self,
        source: str,
        router: Callable[..., Any],
        path_map: dict[Hashable, str] | Sequence[str] | None = None,
    ) -> StateGraph[S]:
        """After ``source``, call ``router(state)`` (or ``router(state, context)``); it returns a
        node name, a list of names, or ``END`` — or keys of ``path_map``."""
        mapping: dict[Hashable, str] | None
        if path_map is None:
            mapping = None
        elif isinstance(path_map, dict):
            mapping = dict(path_map)
        else:
            mapping = {name: name for name in path_map}
        self.branches.append(
            Branch(source, router, mapping, _positional_count(router) >= 2, _is_async(router))
        )
        return self

    def set_entry_point(self, name: str) -> StateGraph[S]:
        """Start runs at ``name``."""
        return self.add_edge(START, name)

    def _check(self) -> None:
        known = set(self.nodes)
        for a, b in self.edges:
            for n, role in ((a, "start"), (b, "end")):
                if n not in known and n not in (START, END):
                    raise UserError(f"edge {a!r} -> {b!r}: unknown {role} node {n!r}")
        for br in self.branches:
            if br.source not in known and br.source != START:
                raise UserError(f"conditional edges from unknown node {br.source!r}")
            for key, target in (br.path_map or {}).items():
                if target not in known and target != END:
                    raise UserError(
                        f"conditional edges from {br.source!r}: {key!r} maps to unknown "
                        f"node {target!r}"
                    )
        entry = [b for a, b in self.edges if a == START] + [
            br.source for br in self.branches if br.source == START
        ]
        if not entry:
            raise UserError(
                "the graph has no entry point: add_edge(START, 'first_node') or set_entry_point"
            )
        reach = self._reachable()
        lost = [n for n in self.nodes if n not in reach]
        if lost:
            raise UserError(f"node(s) {', '.join(map(repr, lost))} cannot be reached from START")

    def _reachable(self) -> set[str]:
        seen: set[str] = set()
        todo = [START]
        while todo:
            node = todo.pop()
            nxt = [b for a, b in self.edges if a == node]
            for br in self.branches:
                if br.source == node:
                    nxt += list(self.nodes) if br.path_map is None else list(br.path_map.values())
            for n in nxt:
                if n not in seen and n != END:
                    seen.add(n)
                    todo.append(n)
        return seen

    def compile(
        self,
        checkpointer: Checkpointer | None = None,
        *,
        name: str = "graph",
        step_limit: int = 25,
    ) -> CompiledGraph[S]:
        """Check the graph (unknown or unreachable nodes, missing entry) and return the
        runnable graph. Errors name the culprit."""
        self._check()
        from app.core.graph.compiled import CompiledGraph

        return CompiledGraph(self, checkpointer=checkpointer, name=name, step_limit=step_limit)
