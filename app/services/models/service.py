"""``ModelService``: each model spec built once and each thread's agent built from it, what the
picker offers, checking and preloading a model, and building remote models again when their key
or provider URL changes.

Models are built off the event loop. A remote model dropped while a turn still uses it is kept
until the service closes, so its connections close then.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from app.core.agent import create_agent
from app.core.agent.hooks import ContextHook
from app.core.budget import BudgetLimits
from app.core.checkpoint import Checkpointer
from app.core.errors import ParleyError
from app.core.graph import CompiledGraph
from app.core.models.protocol import ChatModel
from app.core.netgate import GATE
from app.core.state import AgentState
from app.core.tools import Tool
from app.services.approval_policy import StoreApprovalPolicy
from app.services.bus import EventBus
from app.services.delegation import AgentChoice, AgentSpec, build_agent
from app.services.events import KeysChanged, ModelStatus, SettingsChanged, WorkspaceEvent
from app.services.models.access import ModelAccess, ModelResolver
from app.services.models.choices import ModelChoice, list_model_choices
from app.services.models.downloads import ModelDownloads
from app.services.settings.store import SettingsStore
from app.store import Thread
from app.tools.memory import REMEMBER_TOOL

if TYPE_CHECKING:
    from app.core.models.protocol import ModelInfo
    from app.services.agents import Agent, AgentService
    from app.services.workspace_tools import WorkspaceTools

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "AgentParts",
    "AgentRunSetup",
    "ModelAccess",
    "ModelResolver",
    "ModelService",
]

log = logging.getLogger(__name__)

_DELEGATING = object()
"""First in the cache key of an agent built from agent definitions."""

DEFAULT_SYSTEM_PROMPT = "You are Parley, a helpful assistant. Answer clearly and briefly."


@dataclass(frozen=True, slots=True)
class AgentParts:
    """What every agent built here is made with besides its model and tools: where its steps
    are saved, who decides on its calls' approvals, what each model call goes through (the
    knowledge passages put before a question), and, for threads of "Parley", the tools every
    thread is offered and the system prompt."""

    checkpointer: Checkpointer
    policy: StoreApprovalPolicy
    context_hook: ContextHook | None = None
    offered: tuple[Tool[..., Any], ...] = ()
    system_prompt: str = DEFAULT_SYSTEM_PROMPT


@dataclass(frozen=True, slots=True)
class AgentRunSetup:
    """What a turn takes from the agent the user defined for its thread: the agent, its
    limits (the turn's budget) and what its tools need granted."""

    agent: Agent
    limits: BudgetLimits
    permissions: tuple[str, ...]


LISTING_FRESH_S = 2.0
"""How long one look at the providers' models serves every part of the window that asks."""


class ModelService:
    """The models and agents of one workspace; see the module docstring.

    ``access``: what models need from this machine; ``parts``: what every agent is made with;
    its neighbours give the settings (the default model, provider URLs), the downloaded models,
    the tools and the agents a person saved."""

    def __init__(
        self,
        access: ModelAccess,
        parts: AgentParts,
        *,
        events: EventBus,
        settings: SettingsStore,
        downloads: ModelDownloads,
        tools: WorkspaceTools,
        agents: AgentService,
    ) -> None:
        self._access = access
        self._parts = parts
        self._settings = settings
        self._downloads = downloads
        self._tools = tools
        self._agent_defs = agents
        self._events = events
        self._agents: dict[tuple[Any, ...], CompiledGraph[AgentState]] = {}
        self._models: dict[str, ChatModel] = {}
        self._retired: list[ChatModel] = []
        self._listing: tuple[float, bool, asyncio.Future[list[ModelChoice]]] | None = None
        """The latest look at what the providers offer: when it began, whether offline."""
        events.subscribe(self._on_event)

    def _on_event(self, event: WorkspaceEvent) -> None:
        urls_changed = (
            isinstance(event, SettingsChanged)
            and event.before.provider_urls() != event.after.provider_urls()
        )
        if isinstance(event, KeysChanged | SettingsChanged):
            self._listing = None
        if isinstance(event, KeysChanged) or urls_changed:
            self.drop_remote()

    async def choices(self) -> list[ModelChoice]:
        """Every model the picker can offer, each saying whether it can be reached."""
        now, offline = time.monotonic(), GATE.offline
        last = self._listing
        if last is None or now - last[0] > LISTING_FRESH_S or last[1] != offline:
            # parts of the window asking at once (as they do at launch) share one look, so an
            # Ollama that is not running is tried once, not once for each
            listing = list_model_choices(self._settings.current, self._access.list_ollama)
            self._listing = last = (now, offline, asyncio.ensure_future(listing))
        listed = await asyncio.shield(last[2])
        return listed + await self._downloads.choices()

    async def check(self, spec: str) -> ModelInfo | None:
        """Build the model ``spec`` names now (off the loop) and return what it can take;
        raises the reason when it cannot be used, before anything is sent."""
        return (await self.model(spec)).info

    async def preload(self, spec: str) -> None:
        """Load a local model now (off the loop), reporting ``ModelStatus`` events."""
        self._events.emit(ModelStatus(spec, "loading", None, "Loading the model…"))
        try:
            model = await self.model(spec)
            load = getattr(model, "aload", None)
            if load is not None:
                await load()
        except ParleyError as exc:
            self._events.emit(ModelStatus(spec, "failed", None, str(exc)))
            return
        self._events.emit(ModelStatus(spec, "ready", 1.0, "Ready"))

    async def model(self, spec: str) -> ChatModel:
        """The model ``spec`` names, built on first use (off the loop) and kept."""
        if spec not in self._models:
            self._models[spec] = await asyncio.to_thread(self._access.resolve, spec)
        return self._models[spec]

    async def _defined_agent(self, thread: Thread) -> Agent | None:
        """The agent the user defined that runs ``thread``; ``None`` for "Parley"."""
        agent = await self._agent_defs.for_thread(thread)
        return None if agent.builtin else agent

    async def run_setup(self, thread: Thread) -> AgentRunSetup | None:
        """The limits and tool permissions a turn on ``thread`` takes from its agent;
        ``None`` for threads of "Parley" (their own tool choice and the settings' limits)."""
        agent = await self._defined_agent(thread)
        if agent is None:
            return None
        tools = self._tools.named(agent.tools)
        return AgentRunSetup(agent, agent.limits, tuple(self._tools.permissions_of(tools)))

    async def agent_for(self, thread: Thread) -> CompiledGraph[AgentState]:
        """The agent a turn on ``thread`` runs: its model, system prompt and tools — those of
        the thread's agent, or for "Parley" the thread's own (without ``remember`` in an
        incognito thread or while memory is paused)."""
        spec = thread.model or self._settings.current.default_model
        prompt = thread.system_prompt or self._parts.system_prompt
        # one of each name: a tool offered to every thread may also be switched on in it
        tools = list(
            {t.name: t for t in [*self._parts.offered, *self._tools.for_thread(thread.id)]}.values()
        )
        own = await self._agent_defs.for_thread(thread)
        defined = None if own.builtin else own
        if defined is not None:
            spec = defined.model or spec
            prompt = defined.instructions.strip() or self._parts.system_prompt
            tools = self._tools.named(defined.tools)
        current = self._settings.current
        if (
            current.memory_paused
            or thread.agent_id in current.memory_paused_agents
            or self._tools.incognito(thread.id)
        ):
            tools = [t for t in tools if t.name != REMEMBER_TOOL]  # nothing is remembered
        if defined is not None and defined.delegates:
            return await self._delegating(await self._reach(defined), spec, prompt, tools)
        key = (spec, prompt, own.name, *(id(t) for t in tools))
        if key not in self._agents:
            self._agents[key] = create_agent(
                await self.model(spec),
                tools,
                system_prompt=prompt,
                agent_name=own.name,
                context_hook=self._parts.context_hook,
                secret_resolver=self._access.secrets,
                approval_policy=self._parts.policy,
                checkpointer=self._parts.checkpointer,
                trim_context=True,
            )
        return self._agents[key]

    async def _reach(self, agent: Agent) -> AgentChoice:
        """``agent`` and every stored agent it may ask, directly or through another, as the
        definitions a delegating turn is built from."""
        specs: dict[str, AgentSpec] = {}
        todo = [agent]
        while todo:
            one = todo.pop()
            if one.name in specs:
                continue
            asked = await self._agent_defs.delegates_of(one)
            specs[one.name] = AgentSpec(
                name=one.name,
                instructions=one.instructions,
                model=one.model,
                tools=tuple(one.tools),
                delegates=tuple(a.name for a in asked),
                limits=one.limits,
                description=one.description,
            )
            todo += asked
        return AgentChoice(agent.name, specs)

    async def _delegating(
        self, chosen: AgentChoice, spec: str, prompt: str, tools: list[Tool[..., Any]]
    ) -> CompiledGraph[AgentState]:
        agents = dict(chosen.agents)
        root = agents[chosen.name]
        # the thread's agent keeps the thread's tools and prompt unless it names its own
        agents[chosen.name] = replace(
            root,
            tools=root.tools or tuple(t.name for t in tools),
            instructions=root.instructions or prompt,
        )
        known = {t.name: t for t in [*self._tools.available(), *tools]}
        key = (
            _DELEGATING,
            spec,
            chosen.name,
            tuple(sorted(agents.items())),
            *map(id, known.values()),
        )
        if key not in self._agents:
            self._agents[key] = await build_agent(
                chosen.name,
                agents,
                models=self.model,
                tools=lambda names: {n: known[n] for n in names if n in known},
                thread_model=spec,
                checkpointer=self._parts.checkpointer,
                approval_policy=self._parts.policy,
                secret_resolver=self._access.secrets,
                context_hook=self._parts.context_hook,
            )
        return self._agents[key]

    def offered_tool(self, name: str) -> Tool[..., Any] | None:
        """The tool called ``name`` that a thread or an agent may use (for showing and
        checking its arguments, and the rule it declares)."""
        found = next((t for t in self._parts.offered if t.name == name), None)
        # also one that cannot work now: a call asked before the folder or network went away
        return found or next((t for t in self._tools.known() if t.name == name), None)

    def drop_remote(self) -> None:
        """Build the remote models again on their next turn (their key or URL changed)."""
        remote = [s for s in self._models if not s.startswith(("local", "gguf:", "scripted:"))]
        # a running turn may still use a dropped model: its connections close with the service
        self._retired.extend(self._models.pop(spec) for spec in remote)
        self._agents = {k: v for k, v in self._agents.items() if k[0] not in remote}

    def forget(self) -> None:
        """Build every model and agent again on its next use."""
        self._models.clear()
        self._agents.clear()

    async def aclose(self) -> None:
        """Close the connections of every model built here (local models stay loaded)."""
        models, self._retired = [*self._models.values(), *self._retired], []
        self.forget()
        for model in models:
            close = getattr(model, "aclose", None)
            if close is not None:
                try:
                    await close()
                except Exception:  # closing must not keep the rest from closing
                    log.warning("closing a model's connections failed", exc_info=True)
