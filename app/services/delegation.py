"""Agents that delegate: from agent definitions to the graph a turn runs, with ``ask_*`` tools.

An :class:`AgentSpec` says what an agent is (its name, instructions, model, tools by name, the
agents it may ask, its limits); stored agents map onto it. :func:`build_agent` makes the graph
of one agent: its model and tools, plus one ``ask_SLUG`` tool per delegate (see
:mod:`app.core.agent.delegation`), each delegate built the same way, without a checkpointer of
its own (its state is kept in the asking run's checkpoints). :func:`delegation_problems` is
the check an editor runs when an agent is saved: unknown delegates, a loop, a chain too deep.
A thread whose agent has no delegates gets the same graph as before.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.agent import create_agent
from app.core.agent.delegation import MAX_DEPTH, delegate_tool, tool_name_for
from app.core.agent.hooks import ContextHook
from app.core.budget import BudgetLimits
from app.core.checkpoint.base import Checkpointer
from app.core.errors import UserError
from app.core.graph import CompiledGraph
from app.core.models.protocol import ChatModel
from app.core.state import AgentState
from app.core.tools import ApprovalPolicy, SecretSource, Tool

__all__ = [
    "AgentChoice",
    "AgentSpec",
    "DelegationError",
    "ModelSource",
    "ToolSource",
    "build_agent",
    "delegation_problems",
]

ModelSource = Callable[[str], "ChatModel | Awaitable[ChatModel]"]
"""Gives the model a spec names (``ModelService.model``)."""
ToolSource = Callable[[Sequence[str]], "Mapping[str, Tool[..., Any]]"]
"""Gives the tools of these names that exist here, by name (a missing name is left out)."""


class DelegationError(UserError):
    """An agent cannot be built as defined: one sentence says why."""


@dataclass(frozen=True)
class AgentSpec:
    """What an agent is, as a turn needs it: ``model`` ``None`` means the thread's model;
    ``tools`` and ``delegates`` are names; ``limits`` are the agent's own, applied when it is
    the thread's agent (a delegate spends from the turn's shared budget)."""

    name: str
    instructions: str = ""
    model: str | None = None
    tools: tuple[str, ...] = ()
    delegates: tuple[str, ...] = ()
    limits: BudgetLimits = field(default_factory=BudgetLimits)
    description: str = ""


@dataclass(frozen=True)
class AgentChoice:
    """The agent a thread runs (``name``) and every agent definition it may reach."""

    name: str
    agents: Mapping[str, AgentSpec]

    def __post_init__(self) -> None:
        if self.name not in self.agents:
            raise DelegationError(f"there is no agent named {self.name!r}")


def _walk(
    agents: Mapping[str, AgentSpec], name: str, chain: tuple[str, ...], out: list[str]
) -> None:
    spec = agents.get(name)
    if spec is None:
        return
    for delegate in spec.delegates:
        if delegate not in agents:
            out.append(f"{name} asks {delegate!r}, which is not an agent here.")
        elif delegate in chain or delegate == name:
            path = " asks ".join((*chain, name, delegate))
            out.append(f"{path}: an agent cannot ask one that is asking it.")
        elif len(chain) + 1 > MAX_DEPTH:
            path = " asks ".join((*chain, name, delegate))
            out.append(f"{path} is deeper than {MAX_DEPTH} delegations.")
        else:
            _walk(agents, delegate, (*chain, name), out)


def delegation_problems(agents: Mapping[str, AgentSpec], name: str) -> list[str]:
    """What is wrong with ``name``'s delegation, each in one sentence (empty: nothing): a
    delegate that does not exist, a loop (A asks B asks A), a chain deeper than
    :data:`~app.core.agent.delegation.MAX_DEPTH`, two delegates with one tool name."""
    out: list[str] = []
    if name not in agents:
        return [f"there is no agent named {name!r}"]
    _walk(agents, name, (), out)
    names: dict[str, str] = {}
    for delegate in agents[name].delegates:
        slug = tool_name_for(delegate)
        if slug in names and names[slug] != delegate:
            out.append(f"{names[slug]} and {delegate} would both be asked through {slug}.")
        names[slug] = delegate
    return list(dict.fromkeys(out))


async def _model(models: ModelSource, spec: str) -> ChatModel:
    made = models(spec)
    return await made if inspect.isawaitable(made) else made


@dataclass(frozen=True)
class _Build:
    agents: Mapping[str, AgentSpec]
    models: ModelSource
    tools: ToolSource
    thread_model: str
    approval_policy: ApprovalPolicy | None
    secret_resolver: SecretSource | None
    context_hook: ContextHook | None = None

    async def graph(
        self, spec: AgentSpec, chain: tuple[str, ...], checkpointer: Checkpointer | None
    ) -> CompiledGraph[AgentState]:
        found = self.tools(spec.tools)
        missing = [t for t in spec.tools if t not in found]
        if missing:
            raise DelegationError(
                f"{spec.name} uses the tool {missing[0]!r}, which is not available here"
            )
        tools: list[Tool[..., Any]] = [found[t] for t in spec.tools]
        for name in spec.delegates:
            delegate = self.agents.get(name)
            if delegate is None:
                raise DelegationError(f"{spec.name} asks {name!r}, which is not an agent here")
            # a loop or a chain too deep is refused when the call runs; the tool still
            # exists, so the asking model reads why
            deeper = (*chain, spec.name)
            leaf = name in deeper or len(deeper) > MAX_DEPTH
            child = await self.graph(
                delegate if not leaf else _without_delegates(delegate), deeper, None
            )
            # defining an agent with its tools grants their permissions when it runs, as
            # switching a tool on in a thread does; a sensitive call still asks
            own = self.tools(delegate.tools).values()
            grants = frozenset(p for t in own for p in t.permissions)
            tools.append(
                delegate_tool(
                    child,
                    name=name,
                    asked_by=spec.name,
                    description=delegate.description,
                    grants=grants,
                )
            )
        return create_agent(
            await _model(self.models, spec.model or self.thread_model),
            tools,
            system_prompt=spec.instructions or None,
            secret_resolver=self.secret_resolver,
            approval_policy=self.approval_policy,
            checkpointer=checkpointer,
            trim_context=True,
            context_hook=self.context_hook,
            name=tool_name_for(spec.name).removeprefix("ask_"),
            agent_name=spec.name,
        )


def _without_delegates(spec: AgentSpec) -> AgentSpec:
    return AgentSpec(
        name=spec.name,
        instructions=spec.instructions,
        model=spec.model,
        tools=spec.tools,
        limits=spec.limits,
        description=spec.description,
    )


async def build_agent(
    name: str,
    agents: Mapping[str, AgentSpec],
    *,
    models: ModelSource,
    tools: ToolSource,
    thread_model: str,
    checkpointer: Checkpointer | None = None,
    approval_policy: ApprovalPolicy | None = None,
    secret_resolver: SecretSource | None = None,
    context_hook: ContextHook | None = None,
) -> CompiledGraph[AgentState]:
    """The graph a turn of agent ``name`` runs: its model (``thread_model`` when it names
    none), its tools and an ``ask_*`` tool per delegate, checkpointed by ``checkpointer``;
    every agent's model calls go through ``context_hook`` (see :mod:`app.core.agent.hooks`).

    Raises :class:`DelegationError` for an unknown agent, delegate or tool."""
    spec = agents.get(name)
    if spec is None:
        raise DelegationError(f"there is no agent named {name!r}")
    build = _Build(
        agents, models, tools, thread_model, approval_policy, secret_resolver, context_hook
    )
    return await build.graph(spec, (), checkpointer)
