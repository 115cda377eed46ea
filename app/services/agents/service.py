"""``AgentService``: the agents of one store — list, get, add, edit, remove, export and import —
checked when saved and told on the bus as :class:`~app.services.events.AgentsChanged`.

The service keeps the last list it read (:attr:`AgentService.cached`) so a view can name a
thread's agent without waiting; every change reads the list again before it is told.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import UserError
from app.services.agents.files import (
    AgentFile,
    agent_file_bytes,
    agent_file_name,
    read_agent_file,
)
from app.services.agents.model import BUILTIN_AGENT_ID, Agent, agent_key
from app.services.agents.validation import AgentField, agent_problems, first_problem
from app.services.bus import EventBus
from app.services.events import AgentsChanged
from app.services.settings.store import SettingsStore
from app.store import Store, Thread

__all__ = ["AgentImport", "AgentService"]


@dataclass(frozen=True, slots=True)
class AgentImport:
    """An agent file compared with this machine, for a person to say yes or no to.

    ``agent`` is what a yes adds (tools and delegates not here left out); ``asks`` lists what
    it asks for, a line each; ``warnings`` are the sentences the yes answers; ``refusal``,
    when set, is why it cannot be added at all."""

    agent: Agent
    asks: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    refusal: str | None = None


class AgentService:
    """The agents of one store; see the module docstring."""

    def __init__(
        self,
        store: Store,
        *,
        events: EventBus,
        settings: SettingsStore,
        tool_names: Callable[[], Collection[str]],
    ) -> None:
        self._store = store
        self._events = events
        self._settings = settings
        self._tool_names = tool_names
        self.cached: builtins.list[Agent] = []
        """The agents as last read (the built-in one first)."""

    # Reading -------------------------------------------------------------------------

    async def list(self) -> builtins.list[Agent]:
        """Every agent, the built-in "Parley" first, then by name."""
        self.cached = [Agent.of_record(r) for r in await self._store.list_agents()]
        return list(self.cached)

    async def by_id(self, agent_id: str) -> Agent | None:
        """The agent with ``agent_id``, or ``None``."""
        record = await self._store.get_agent(agent_id)
        return Agent.of_record(record) if record else None

    async def get(self, name: str) -> Agent:
        """The agent called ``name`` (any case); :class:`UserError` when there is none."""
        record = await self._store.find_agent(name)
        if record is None:
            raise UserError(f"there is no agent called {name.strip()!r}; see parley agents list")
        return Agent.of_record(record)

    async def for_thread(self, thread: Thread) -> Agent:
        """The agent that runs ``thread`` ("Parley" when its own is gone)."""
        found = await self.by_id(thread.agent_id)
        if found is None:
            found = await self.by_id(BUILTIN_AGENT_ID)
        assert found is not None, "the built-in agent is always there"
        return found

    async def delegates_of(self, agent: Agent) -> builtins.list[Agent]:
        """The agents ``agent`` may ask, in its order (names no longer here left out)."""
        by_key = {a.key: a for a in await self.list()}
        return [by_key[k] for k in (agent_key(d) for d in agent.delegates) if k in by_key]

    async def thread_counts(self) -> dict[str, int]:
        """How many threads each agent runs, by agent id."""
        return await self._store.agent_thread_counts()

    def named(self, agent_id: str) -> str:
        """The name of the agent with ``agent_id`` as last read ("Parley" when unknown)."""
        return next((a.name for a in self.cached if a.id == agent_id), "Parley")

    def stored_name(self, agent_id: str) -> str | None:
        """The name of the agent a person defined with ``agent_id`` as last read; ``None``
        for the built-in one or one not known."""
        return next((a.name for a in self.cached if a.id == agent_id and not a.builtin), None)

    def known_tools(self) -> builtins.list[str]:
        """The tool names an agent can use here: built-in and the running MCP servers'."""
        return sorted(set(self._tool_names()))

    # Checking and saving -------------------------------------------------------------

    def problems(self, draft: Agent) -> dict[AgentField, str]:
        """A sentence per field of ``draft`` that cannot be saved (against the agents as last
        read and the tools known now); empty when it can be."""
        return agent_problems(draft, self.cached, self.known_tools())

    async def _save(self, draft: Agent) -> Agent:
        await self.list()
        if (problem := first_problem(self.problems(draft))) is not None:
            raise UserError(problem)
        saved = Agent.of_record(await self._store.save_agent(draft.record()))
        await self.list()
        self._events.emit(AgentsChanged(saved.id))
        return saved

    async def add(self, draft: Agent) -> Agent:
        """Save ``draft`` as a new agent; :class:`UserError` with one sentence when it cannot
        be (unknown tool or delegate, a loop, too many starters, a limit not positive, ...)."""
        return await self._save(draft.model_copy(update={"id": "", "builtin": False}))

    async def edit(self, agent_id: str, draft: Agent) -> Agent:
        """Save ``draft`` in place of the agent ``agent_id`` (checked as :meth:`add` does)."""
        before = await self.by_id(agent_id)
        if before is None:
            raise UserError("that agent is no longer there")
        if before.builtin:
            raise UserError(f"{before.name} is built in and stays as it is; make a new agent")
        return await self._save(draft.model_copy(update={"id": agent_id, "builtin": False}))

    async def remove(self, agent_id: str) -> int:
        """Remove the agent; its threads go on with "Parley". Returns how many moved."""
        moved = await self._store.remove_agent(agent_id)
        await self.list()
        self._events.emit(AgentsChanged(agent_id))
        return moved

    # Files ---------------------------------------------------------------------------

    @staticmethod
    def file_name(agent: Agent) -> str:
        """The file an export of ``agent`` is written to: ``NAME.agent.json``."""
        return agent_file_name(agent)

    @staticmethod
    def export(agent: Agent) -> bytes:
        """``agent`` as an agent file (a secret appears only as its keyring reference)."""
        return agent_file_bytes(agent)

    async def read_file(self, data: bytes) -> AgentImport:
        """What the agent file ``data`` asks for, compared with this machine; adds nothing.
        Raises :class:`UserError` with one sentence when it is no agent file."""
        read = read_agent_file(data)
        await self.list()
        return _compare(read, self.cached, self.known_tools(), self._model_note)

    async def import_agent(self, plan: AgentImport) -> Agent:
        """Add the agent of ``plan`` (after a person said yes to it)."""
        if plan.refusal is not None:
            raise UserError(plan.refusal)
        return await self.add(plan.agent)

    def _model_note(self, model: str) -> tuple[str | None, str | None]:
        """(a warning, and the model to keep) for the file's ``model``."""
        from app.services.models.registry import parse_spec

        spec = parse_spec(model)
        if spec.provider in ("gguf", "scripted") and not Path(spec.name).expanduser().is_file():
            return (
                f"Its model file {spec.name} is not on this computer; it will use the "
                "thread's model.",
                None,
            )
        urls = set(self._settings.current.provider_urls().values())
        if spec.url is not None and spec.url.rstrip("/") not in {u.rstrip("/") for u in urls}:
            return (
                f"It sends your messages to {spec.url}, a model endpoint never configured here.",
                model,
            )
        return None, model


def _compare(
    read: AgentFile,
    agents: list[Agent],
    tools: Collection[str],
    model_note: Callable[[str], tuple[str | None, str | None]],
) -> AgentImport:
    """The import of ``read`` on a machine with ``agents`` and ``tools``."""
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
    problems = agent_problems(agent, agents, tools)
    refusal = first_problem(problems)
    if refusal is not None:
        refusal = f"{refusal} Nothing was imported."
    return AgentImport(agent, tuple(asks), tuple(warnings), refusal)
