"""What a graph is made of, shared by the builder, the compiled graph and the runner: a node,
a conditional edge, and the two views of a graph each later stage reads (so no stage imports
the one that comes after it)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from app.core.state.agent_state import AgentState

__all__ = ["Branch", "GraphLayout", "GraphShape", "NodeSpec", "Router"]

S_co = TypeVar("S_co", bound=AgentState, covariant=True)

Router = Callable[..., Any]


@dataclass(frozen=True)
class NodeSpec:
    """A node: its name, the callable, and how to call it."""

    name: str
    fn: Callable[..., Any]
    takes_context: bool
    is_async: bool
    run_in_thread: bool = False


@dataclass(frozen=True)
class Branch:
    """Conditional edges: ``router(state)`` picks the next node(s), mapped by ``path_map``."""

    source: str
    router: Callable[..., Any]
    path_map: dict[Hashable, str] | None
    takes_context: bool
    is_async: bool


class GraphShape(Protocol[S_co]):
    """What compiling reads from a builder: the state's type, nodes and edges as added."""

    @property
    def state_cls(self) -> type[S_co]:
        """The state's class."""

    @property
    def initial_state(self) -> S_co | None:
        """The state a run starts from when the builder was given an instance, else ``None``."""

    @property
    def nodes(self) -> dict[str, NodeSpec]:
        """The nodes by name, in the order they were added."""

    @property
    def edges(self) -> list[tuple[str, str]]:
        """The static edges, ``(from, to)``."""

    @property
    def branches(self) -> list[Branch]:
        """The conditional edges."""


class GraphLayout(Protocol):
    """What a run reads from the graph it runs: its name, nodes, their order and edges."""

    @property
    def name(self) -> str:
        """The graph's name, for messages."""

    @property
    def nodes(self) -> dict[str, NodeSpec]:
        """The nodes by name."""

    @property
    def order(self) -> dict[str, int]:
        """Each node's position, which orders the tasks of one step."""

    def successors(self, node: str) -> list[str]:
        """Nodes a static edge leads to from ``node``."""

    def branches_from(self, node: str) -> list[Branch]:
        """Conditional edges leaving ``node``."""
