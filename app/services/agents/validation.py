"""Checking an agent before it is saved: one sentence for each field that cannot be kept.

:func:`agent_problems` is pure (the editor calls it on every key press): it is given the agent,
the other agents and the tool names known here, and returns a sentence per field it refuses.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from app.core.agent.delegation import tool_name_for
from app.core.delegates import MAX_DELEGATION_DEPTH, delegation_depth, find_loop
from app.core.errors import UserError
from app.services.agents.model import LIMIT_NAMES, MAX_STARTERS, Agent, agent_key
from app.services.agents.names import mixed_alphabets, skeleton
from app.text.hidden_chars import escape_hidden

__all__ = [
    "MAX_DESCRIPTION",
    "MAX_INSTRUCTIONS",
    "MAX_NAME",
    "MAX_STARTER",
    "AgentField",
    "agent_problems",
    "first_problem",
    "text_problems",
]

MAX_NAME = 60
MAX_DESCRIPTION = 500
MAX_INSTRUCTIONS = 32_000
"""Characters of instructions an agent may have: a long prompt fits, a pasted book does not."""
MAX_STARTER = 500

AgentField = str
"""A field of :class:`Agent` a problem is about (``name``, ``tools``, ``delegates``, ...)."""


def _hidden(text: str) -> bool:
    return escape_hidden(text) != text


def text_problems(agent: Agent) -> dict[AgentField, str]:
    """The problems of ``agent``'s own text: name, description, instructions, model spec and
    starters (no other agent or tool needed to find them)."""
    found: dict[AgentField, str] = {}
    name = agent.name.strip()
    if not name:
        found["name"] = "An agent needs a name."
    elif len(name) > MAX_NAME:
        found["name"] = f"A name has at most {MAX_NAME} characters; this one has {len(name)}."
    elif _hidden(name) or "\n" in name or "\t" in name:
        found["name"] = "The name holds control or invisible characters; type it plainly."
    elif (mixed := mixed_alphabets(name)) is not None:
        found["name"] = (
            f"The name mixes {mixed[0]} and {mixed[1]} letters in one word, so it can pass for "
            "another; type each word in one alphabet."
        )
    if len(agent.description) > MAX_DESCRIPTION:
        found["description"] = f"A description has at most {MAX_DESCRIPTION} characters."
    elif _hidden(agent.description):
        found["description"] = "The description holds control or invisible characters."
    if len(agent.instructions) > MAX_INSTRUCTIONS:
        found["instructions"] = (
            f"The instructions are {len(agent.instructions):,} characters long; "
            f"at most {MAX_INSTRUCTIONS:,} fit."
        )
    elif _hidden(agent.instructions):
        found["instructions"] = "The instructions hold control or invisible characters."
    if agent.model is not None:
        from app.providers.spec import parse_spec

        try:
            parse_spec(agent.model)
        except UserError as exc:
            found["model"] = f"{str(exc)[:1].upper()}{str(exc)[1:]}."
    if len(agent.starters) > MAX_STARTERS:
        found["starters"] = (
            f"An agent has at most {MAX_STARTERS} starter prompts; this one has "
            f"{len(agent.starters)}."
        )
    elif any(len(s) > MAX_STARTER or _hidden(s) or not s.strip() for s in agent.starters):
        found["starters"] = (
            f"Each starter prompt is one plain line of at most {MAX_STARTER} characters."
        )
    return found


def _limit_problem(agent: Agent) -> str | None:
    for name in LIMIT_NAMES:
        value = getattr(agent.limits, name)
        if value is not None and not value > 0:
            return f"Limits must be positive: {name} is {value:g}."
    return None


def _delegate_problem(agent: Agent, others: Sequence[Agent]) -> str | None:
    known = {a.key: a for a in others if a.id != agent.id or not agent.id}
    known.pop(agent.key, None)
    for name in agent.delegates:
        key = agent_key(name)
        if key == agent.key:
            return "An agent cannot delegate to itself."
        if key not in known:
            return f"There is no agent called {name.strip()!r} to delegate to."
        if known[key].builtin:
            return f"{known[key].name} is the plain chat; it cannot be a delegate."
    if (clash := _tool_clash(agent, agent.delegates)) is not None:
        return clash
    graph = {k: [agent_key(d) for d in a.delegates] for k, a in known.items()}
    graph[agent.key] = [agent_key(d) for d in agent.delegates]
    loop = find_loop(graph, agent.key)
    if loop is None:
        loop = find_loop(graph)
    if loop is not None and agent.key in loop:
        names = {k: a.name for k, a in known.items()} | {agent.key: agent.name.strip()}
        return "That makes a loop of delegation: " + " → ".join(names[k] for k in loop) + "."
    if loop is None:
        for key in graph:
            if delegation_depth(graph, key) > MAX_DELEGATION_DEPTH:
                who = known[key].name if key in known else agent.name.strip()
                return (
                    f"That makes {who}'s chain of delegation deeper than "
                    f"{MAX_DELEGATION_DEPTH} agents."
                )
    return None


def _looks_like(agent: Agent, others: Sequence[Agent]) -> Agent | None:
    """Another agent whose name looks the same as ``agent``'s on screen."""
    mine = skeleton(agent.name)
    return next(
        (a for a in others if (not agent.id or a.id != agent.id) and skeleton(a.name) == mine),
        None,
    )


def _tool_clash(asker: Agent, delegates: Sequence[str]) -> str | None:
    """Why ``asker`` could not ask ``delegates``: two of them would be asked through one
    ``ask_*`` tool, or one through the name of a tool it uses."""
    seen: dict[str, str] = {}
    for name in delegates:
        tool = tool_name_for(name)
        if tool in seen and agent_key(seen[tool]) != agent_key(name):
            return (
                f"{seen[tool].strip()} and {name.strip()} would both be asked through {tool}; "
                "rename one of them."
            )
        if tool in asker.tools:
            return f"{name.strip()} would be asked through {tool}, a tool it already uses."
        seen[tool] = name
    return None


def _asked_by_others(agent: Agent, others: Sequence[Agent]) -> str | None:
    """A problem of another agent that asks ``agent`` once it is saved (renamed)."""
    before = next((a for a in others if agent.id and a.id == agent.id), None)
    if before is None or before.key == agent.key:
        return None
    for other in others:
        if other.id == agent.id:
            continue
        names = [agent.name if agent_key(d) == before.key else d for d in other.delegates]
        if names != list(other.delegates) and (clash := _tool_clash(other, names)) is not None:
            return f"For {other.name}, which asks it: {clash}"
    return None


def agent_problems(
    agent: Agent, others: Sequence[Agent], known_tools: Collection[str]
) -> dict[AgentField, str]:
    """A sentence per field of ``agent`` that cannot be saved, checked against ``others``
    (every saved agent; the one being edited, matched by id, is left out) and the tool names
    ``known_tools`` (built-in and MCP). Empty when it can be saved."""
    found = text_problems(agent)
    if "name" not in found:
        taken = next(
            (a for a in others if a.key == agent.key and (not agent.id or a.id != agent.id)),
            None,
        )
        if taken is not None:
            found["name"] = f"Another agent is already called {taken.name}."
        elif (alike := _looks_like(agent, others)) is not None:
            found["name"] = (
                f"The name looks the same as {alike.name}, another agent's name, written with "
                "other letters; choose a name that reads differently."
            )
    unknown = [t for t in agent.tools if t not in known_tools]
    if unknown:
        names = ", ".join(unknown[:3]) + (" …" if len(unknown) > 3 else "")
        found["tools"] = f"There is no tool called {names} here."
    if (limits := _limit_problem(agent)) is not None:
        found["limits"] = limits
    if (delegates := _delegate_problem(agent, others)) is not None:
        found["delegates"] = delegates
    if "name" not in found and (asked := _asked_by_others(agent, others)) is not None:
        found["name"] = asked
    return found


def first_problem(problems: dict[AgentField, str]) -> str | None:
    """The sentence to show when only one fits (in field order)."""
    order = ("name", "description", "instructions", "model", "tools", "delegates")
    for field in (*order, "limits", "starters"):
        if field in problems:
            return problems[field]
    return next(iter(problems.values()), None)
