"""An agent file compared with this machine (:class:`AgentImport`): what it asks for (tools,
delegates, model, keys, limits, approval rules, knowledge folders), what it would not get
here, and what a yes adds. Nothing is added here."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.tools.argument_rules import ArgumentRule
from app.services.agents.folders import file_knowledge
from app.services.agents.model import Agent, agent_key
from app.services.agents.validation import agent_problems, first_problem
from app.services.memory.files import FileMemory

if TYPE_CHECKING:  # the file's models load with the first agent file read
    from app.services.agents.files import AgentFile

__all__ = ["AgentImport", "compare"]


@dataclass(frozen=True, slots=True)
class AgentImport:
    """An agent file compared with this machine, for a person to say yes or no to.

    ``agent`` is what a yes adds (tools and delegates not here left out); ``asks`` lists what
    it asks for, a line each; ``warnings`` are the sentences the yes answers; ``refusal``,
    when set, is why it cannot be added at all; ``rules`` are the approval rules a yes keeps
    for the agent, ``knowledge`` the folders (resolved, existing here) it adds for it and
    ``memories`` the memories it adds as the agent's own (only in a file exported with
    them)."""

    agent: Agent
    asks: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    refusal: str | None = None
    rules: tuple[ArgumentRule, ...] = ()
    knowledge: tuple[str, ...] = ()
    memories: tuple[FileMemory, ...] = ()


def compare(
    read: AgentFile,
    agents: list[Agent],
    tools: Collection[str],
    model_note: Callable[[str], tuple[str | None, str | None]],
    owners: Mapping[str, str | None],
) -> AgentImport:
    """The import of ``read`` on a machine with ``agents``, ``tools`` and the knowledge
    folders ``owners`` (resolved, with the name of the agent each belongs to, ``None`` for
    every thread): what it asks for, what it would not get here."""
    from app.services.agents.files import file_memories, file_rules

    agent = read.agent()
    asks: list[str] = []
    warnings: list[str] = []
    missing_tools = [t for t in agent.tools if t not in tools]
    if agent.tools:
        asks.append("Tools: " + ", ".join(agent.tools))
    if missing_tools:
        warnings.append(
            "These tools do not exist here and are left out: " + ", ".join(missing_tools) + "."
        )
    keys = {a.key for a in agents}
    missing = [d for d in agent.delegates if agent_key(d) not in keys and agent_key(d) != agent.key]
    if agent.delegates:
        asks.append("Delegates: " + ", ".join(agent.delegates))
    if missing:
        warnings.append(
            "These agents it delegates to do not exist here and are left out: "
            + ", ".join(missing)
            + "."
        )
    model, note = _model(agent.model, model_note)
    asks.append("Model: " + (agent.model or "the thread's model"))
    warnings.extend(note)
    if read.secrets:
        asks.append("Keys (from the keyring): " + ", ".join(read.secrets))
    if limits := agent.limits.model_dump(exclude_none=True):
        asks.append("Limits: " + ", ".join(f"{k} {v:g}" for k, v in limits.items()))
    agent = agent.model_copy(
        update={
            "model": model,
            "tools": tuple(t for t in agent.tools if t not in missing_tools),
            "delegates": tuple(d for d in agent.delegates if d not in missing),
        }
    )
    asked = file_rules(read)
    rules = tuple(r for r in asked if r.tool in agent.tools)
    if read.rules:
        asks.append("Always allow: " + "; ".join(r.describe() for r in asked))
    if dropped := sorted({r.tool for r in asked if r.tool not in tools}):
        warnings.append(
            "The rules for tools that do not exist here are left out: " + ", ".join(dropped) + "."
        )
    if unused := sorted({r.tool for r in asked if r.tool in tools and r.tool not in agent.tools}):
        warnings.append(
            "The rules for tools the agent does not use are left out: " + ", ".join(unused) + "."
        )
    knowledge = file_knowledge(read.knowledge, owners)
    if read.knowledge:
        asks.append("Knowledge folders: " + ", ".join(knowledge.shown))
    warnings.extend(knowledge.warnings)
    memories = file_memories(read)
    for memory in memories:
        flags = [
            f for f, on in (("pinned", memory.pinned), ("local only", memory.local_only)) if on
        ]
        asks.append(f"Memory: {memory.text}" + (f" ({', '.join(flags)})" if flags else ""))
    problems = agent_problems(agent, agents, tools)
    refusal = first_problem(problems)
    if refusal is not None:
        refusal = f"{refusal} Nothing was imported."
    return AgentImport(
        agent, tuple(asks), tuple(warnings), refusal, rules, knowledge.folders, memories
    )


def _model(
    model: str | None, model_note: Callable[[str], tuple[str | None, str | None]]
) -> tuple[str | None, list[str]]:
    """The model an import keeps for the file's ``model``, and the warnings about it: a
    ``scripted:`` model (replies and tool calls the file's sender wrote) is never kept."""
    if model is None:
        return None, []
    if model.partition(":")[0].strip().lower() == "scripted":
        return None, [
            f"Its model {model} is a scripted one, whose replies and tool calls were written "
            "in advance; an imported agent never keeps one, so it will use the thread's model."
        ]
    warning, kept = model_note(model)
    return kept, [warning] if warning else []
