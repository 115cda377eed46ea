"""An agent file compared with this machine (:class:`AgentImport`): what it asks for (tools,
delegates, model, keys, limits, approval rules, knowledge folders), what it would not get
here, and what a yes adds. Nothing is added here."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.core.tools.argument_rules import ArgumentRule
from app.services.agents.files import AgentFile, file_rules
from app.services.agents.model import Agent, agent_key
from app.services.agents.validation import agent_problems, first_problem

__all__ = ["AgentImport", "compare"]


@dataclass(frozen=True, slots=True)
class AgentImport:
    """An agent file compared with this machine, for a person to say yes or no to.

    ``agent`` is what a yes adds (tools and delegates not here left out); ``asks`` lists what
    it asks for, a line each; ``warnings`` are the sentences the yes answers; ``refusal``,
    when set, is why it cannot be added at all; ``rules`` are the approval rules a yes keeps
    for the agent and ``knowledge`` the folders (resolved, existing here) it adds for it."""

    agent: Agent
    asks: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    refusal: str | None = None
    rules: tuple[ArgumentRule, ...] = ()
    knowledge: tuple[str, ...] = ()


def compare(
    read: AgentFile,
    agents: list[Agent],
    tools: Collection[str],
    model_note: Callable[[str], tuple[str | None, str | None]],
) -> AgentImport:
    """The import of ``read`` on a machine with ``agents`` and ``tools``: what it asks for,
    what it would not get here."""
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
    model = agent.model
    if model is not None:
        asks.append(f"Model: {model}")
        warning, model = model_note(model)
        if warning:
            warnings.append(warning)
    else:
        asks.append("Model: the thread's model")
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
    rules = tuple(r for r in file_rules(read) if r.tool in tools)
    if read.rules:
        asks.append("Always allow: " + "; ".join(r.describe() for r in file_rules(read)))
    if dropped := sorted({r.tool for r in file_rules(read) if r.tool not in tools}):
        warnings.append(
            "The rules for tools that do not exist here are left out: " + ", ".join(dropped) + "."
        )
    knowledge, absent = _folders(read.knowledge)
    if read.knowledge:
        asks.append("Knowledge folders: " + ", ".join(read.knowledge))
    if absent:
        warnings.append(
            "These knowledge folders do not exist here and are left out: " + ", ".join(absent) + "."
        )
    problems = agent_problems(agent, agents, tools)
    refusal = first_problem(problems)
    if refusal is not None:
        refusal = f"{refusal} Nothing was imported."
    return AgentImport(agent, tuple(asks), tuple(warnings), refusal, rules, knowledge)


def _folders(asked: Sequence[str]) -> tuple[tuple[str, ...], list[str]]:
    """The asked folders that exist here (resolved), and those that do not."""
    found: list[str] = []
    absent: list[str] = []
    for folder in asked:
        path = Path(folder).expanduser()
        try:
            real = str(path.resolve(strict=True)) if path.is_absolute() else ""
        except (OSError, RuntimeError):
            real = ""
        if real and Path(real).is_dir():
            if real not in found:
                found.append(real)
        else:
            absent.append(folder)
    return tuple(found), absent
