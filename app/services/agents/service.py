"""``AgentService``: the agents of one store — list, get, add, edit, remove, export and import —
checked when saved and told on the bus as :class:`~app.services.events.AgentsChanged`.

The service keeps the last list it read (:attr:`AgentService.cached`) so a view can name a
thread's agent without waiting; every change reads the list again before it is told.
"""

from __future__ import annotations

import asyncio
import builtins
import os
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from app.core.errors import UserError
from app.core.tools.argument_rules import ArgumentRule
from app.services.agents.folders import folder_problem
from app.services.agents.importing import AgentImport, compare
from app.services.agents.knowledge_folders import KnowledgeFolders
from app.services.agents.model import BUILTIN_AGENT_ID, Agent, agent_key
from app.services.agents.validation import AgentField, agent_problems, first_problem
from app.services.bus import EventBus
from app.services.events import AgentsChanged, MemoriesChanged
from app.services.memory.files import FileMemory
from app.services.settings.store import SettingsStore
from app.services.tool_entry import Unavailable
from app.store import MemoryRecord, Store, StoredArgumentRule, Thread

if TYPE_CHECKING:  # an agent file's models load with the first file written or read
    from app.services.agents.files import AgentExport

__all__ = ["AgentImport", "AgentService", "agent_names"]  # AgentImport: from .importing


async def agent_names(data_dir: str | os.PathLike[str] | None) -> dict[str, str]:
    """Every agent's name by its id, the built-in "Parley" first, read from the database in
    ``data_dir`` (``--data-dir``, ``PARLEY_DATA_DIR`` or the user data directory) without a
    workspace and without writing."""
    async with Store.open_data_dir(data_dir, reading_is_enough=True) as store:
        return {a.id: a.name for a in await store.list_agents()}


class AgentService:
    """The agents of one store; see the module docstring."""

    def __init__(
        self,
        store: Store,
        *,
        events: EventBus,
        settings: SettingsStore,
        tool_names: Callable[[], Collection[str]],
        knowledge: KnowledgeFolders | None = None,
        tool_unavailable: Callable[[str], Unavailable | None] = lambda _name: None,
    ) -> None:
        self._store = store
        self._knowledge = knowledge
        self._events = events
        self._settings = settings
        self._tool_names = tool_names
        self._tool_unavailable = tool_unavailable
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
        """The tool names an agent can use here: built-in and the started MCP servers' (also
        those that cannot work now; see :meth:`tool_unavailable`)."""
        return sorted(set(self._tool_names()))

    def tool_unavailable(self, name: str) -> Unavailable | None:
        """Why the tool ``name`` cannot work now (no run is offered it until it can), or
        ``None`` when it can."""
        return self._tool_unavailable(name)

    # Checking and saving -------------------------------------------------------------

    def problems(self, draft: Agent) -> dict[AgentField, str]:
        """A sentence per field of ``draft`` that cannot be saved (against the agents as last
        read and the tools known now); empty when it can be."""
        # a tool of a server that is off now is kept: it works again once the server runs
        waiting = [t for t in draft.tools if self.tool_unavailable(t) is not None]
        return agent_problems(draft, self.cached, [*self.known_tools(), *waiting])

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
        """Remove the agent and its memories; its threads go on with "Parley". Returns how
        many moved."""
        moved = await self._store.remove_agent(agent_id)
        await self.list()
        self._events.emit(AgentsChanged(agent_id))
        self._events.emit(MemoriesChanged())
        return moved

    # Files ---------------------------------------------------------------------------

    @staticmethod
    def file_name(agent: Agent) -> str:
        """The file an export of ``agent`` is written to: ``NAME.agent.json``."""
        from app.services.agents.files import agent_file_name

        return agent_file_name(agent)

    async def export(self, agent: Agent, *, with_memory: bool = False) -> AgentExport:
        """``agent`` as an agent file with its approval rules and knowledge folders (a secret
        appears only as its keyring reference; a folder outside the home folder or a hidden
        one is left out, with a note), and ``with_memory`` its own memories (not everyone's;
        a local-only one is left out, with a note). Raises :class:`UserError` when its text
        holds what looks like a key."""
        from app.services.agents.files import export_file

        rules = [kept.rule for kept in await self.rules_of(agent)]
        memories = None
        if with_memory:
            kept = await self._store.memories.list(agent.id, every=True) if agent.id else []
            memories = [
                FileMemory(m.text, pinned=m.pinned, local_only=m.local_only, made_at=m.made_at)
                for m in kept
                if m.agent_id == agent.id
            ]
        return export_file(agent, rules, self.knowledge_of(agent), memories)

    async def read_file(self, data: bytes) -> AgentImport:
        """What the agent file ``data`` asks for, compared with this machine; adds nothing.
        Raises :class:`UserError` with one sentence when it is no agent file."""
        from app.services.agents.files import read_agent_file

        read = read_agent_file(data)
        await self.list()
        owners = await self._knowledge_owners()
        return compare(read, self.cached, self.known_tools(), self._model_note, owners)

    async def _knowledge_owners(self) -> dict[str, str | None]:
        """The knowledge folders here with the name of the agent each belongs to (``None``:
        every thread's); a folder of an agent no longer here is no one's, so left out."""
        if self._knowledge is None:
            return {}
        names = {a.id: a.name for a in self.cached}
        return {
            f.path: names[f.agent] if f.agent else None
            for f in await self._knowledge.folders()
            if not f.agent or f.agent in names
        }

    async def import_agent(self, plan: AgentImport) -> Agent:
        """Add the agent of ``plan`` with its approval rules, knowledge folders and memories
        (after a person said yes to it); a folder that belongs to another agent or to every
        thread stays theirs."""
        if plan.refusal is not None:
            raise UserError(plan.refusal)
        agent = await self.add(plan.agent)
        for rule in plan.rules:
            await self._store.add_argument_rule(rule.for_agent(agent.name))
        if self._knowledge is not None:
            owned = await self._knowledge_owners()  # never one taken meanwhile
            mine = []
            for folder in plan.knowledge:
                # as it is now, not as it was when it was shown
                real = Path(await asyncio.to_thread(os.path.realpath, folder))
                if str(real) in owned or folder_problem(real) is not None:
                    continue
                mine.append(await self._knowledge.add_folder(real, agent.id))
            await self._knowledge.set_owner(agent.id, mine)
        if plan.memories:
            await self._store.memories.add(
                [
                    MemoryRecord(
                        id="",
                        text=m.text,
                        agent_id=agent.id,
                        made_at=m.made_at or time.time(),
                        pinned=m.pinned,
                        local_only=m.local_only,
                    )
                    for m in plan.memories
                ]
            )
            self._events.emit(MemoriesChanged())
        return agent

    # Memory ----------------------------------------------------------------------------

    def keeps_memories_unasked(self, agent_id: str) -> bool:
        """Whether what the agent proposes to remember is kept without asking."""
        return agent_id in self._settings.current.memory_keep_unasked

    def memory_paused_for(self, agent_id: str) -> bool:
        """Whether memory is paused for the agent (its turns use none and keep none)."""
        return agent_id in self._settings.current.memory_paused_agents

    async def set_memory_paused_for(self, agent_id: str, on: bool) -> None:
        """Pause memory for the agent (``on``), or let it work again."""
        kept = [a for a in self._settings.current.memory_paused_agents if a != agent_id]
        if on != (agent_id in self._settings.current.memory_paused_agents):
            await self._settings.update(memory_paused_agents=[*kept, agent_id] if on else kept)

    async def set_keep_memories_unasked(self, agent_id: str, on: bool) -> None:
        """Keep what the agent proposes to remember without asking (``on``), or ask again."""
        kept = [a for a in self._settings.current.memory_keep_unasked if a != agent_id]
        if on != (agent_id in self._settings.current.memory_keep_unasked):
            await self._settings.update(memory_keep_unasked=[*kept, agent_id] if on else kept)

    # Rules and knowledge ---------------------------------------------------------------

    async def rules_of(self, agent: Agent) -> builtins.list[StoredArgumentRule]:
        """The approval rules that belong to ``agent``."""
        if not agent.id:
            return []
        return await self._store.list_argument_rules(agent_id=agent.id)

    async def add_rule(self, agent: Agent, rule: ArgumentRule) -> StoredArgumentRule:
        """Keep ``rule`` as one of ``agent``'s approval rules."""
        kept = await self._store.add_argument_rule(rule.for_agent(agent.name))
        self._events.emit(AgentsChanged(agent.id))
        return kept

    async def remove_rule(self, rule_id: int) -> None:
        """Remove one of an agent's approval rules: its next call asks again."""
        if not await self._store.revoke_argument_rule(rule_id):
            raise UserError("that rule is gone already")
        self._events.emit(AgentsChanged(""))

    def knowledge_of(self, agent: Agent) -> builtins.list[str]:
        """The knowledge folders that belong to ``agent`` (as last read)."""
        if self._knowledge is None or not agent.id:
            return []
        return [f.path for f in self._knowledge.known if f.agent == agent.id]

    def knowledge_folders(self) -> builtins.list[tuple[str, str | None]]:
        """Every knowledge folder with the name of the agent it belongs to (``None``: none)."""
        if self._knowledge is None:
            return []
        names = {a.id: a.name for a in self.cached}
        return [
            (f.path, names.get(f.agent, "an agent no longer here") if f.agent else None)
            for f in self._knowledge.known
        ]

    async def set_knowledge(self, agent: Agent, folders: Collection[str]) -> None:
        """Make ``folders`` (knowledge folders already added) the ones of ``agent``: each
        checked one belongs to it alone, each it no longer has belongs to no agent."""
        if self._knowledge is not None and agent.id:
            await self._knowledge.set_owner(agent.id, folders)

    def _model_note(self, model: str) -> tuple[str | None, str | None]:
        """(a warning, and the model to keep) for the file's ``model``."""
        from app.providers.spec import parse_spec

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
