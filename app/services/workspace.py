"""``Workspace``: the place that opens the services of one data directory, holds them and closes
them — the one door the window and the terminal go through.

Each seam is a small service of its own, given only what it needs (the store, the event bus,
the settings store, its neighbours): ``threads`` (list, search, rename, delete, fork, export,
import, pages of messages), ``runs`` (send, answer, stop, cut-off and budget pauses),
``models`` (model and agent cache, choices, check, preload), ``agents`` (the agents a
person defines), ``settings`` (the typed settings with their change event), ``preferences``
(what the settings pages change), ``tools`` (the tools threads may switch on), ``mcp`` (the
MCP servers behind some of them), ``downloads``, ``data``, ``backups``, ``network``,
``attachments``, ``knowledge`` (folders indexed for search, and answers citing them) and
``memory`` (what agents remember across threads).
Every event goes through ``events``.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.agent.hooks import chain_hooks
from app.core.graph import RunConfig
from app.core.tools import Tool
from app.core.tools.secrets import SecretSource
from app.services.agents import AgentService
from app.services.approval_policy import StoreApprovalPolicy
from app.services.bus import EventBus
from app.services.compare import CompareService
from app.services.data.actions import DataActions
from app.services.data.backups import BackupService
from app.services.events import SettingsChanged
from app.services.knowledge import KnowledgeService, PassagesHook
from app.services.knowledge.embedders import embedder_for
from app.services.knowledge.needs import EmbeddingSetting, asking_agent
from app.services.mcp.service import McpService
from app.services.memory import MemoryHook, MemoryService, runs_elsewhere
from app.services.models.access import ModelAccess, ModelResolver
from app.services.models.downloads import ModelDownloads
from app.services.models.service import DEFAULT_SYSTEM_PROMPT, AgentParts, ModelService
from app.services.network import NetworkLedger, forced_offline
from app.services.runs import RunService
from app.services.schedules.service import ScheduleService
from app.services.settings import AppSettings, load_settings
from app.services.settings.store import SettingsStore
from app.services.threads import ThreadService
from app.services.voice.service import VoiceService
from app.services.workspace_tools import WorkspaceTools
from app.store import Store
from app.store.knowledge import KnowledgeIndex
from app.store.paths import database_path, resolve_data_dir

if TYPE_CHECKING:
    from app.services.attachments.service import AttachmentService
    from app.services.schedules.runner import Clock, ScheduleRunner
    from app.services.settings.preferences import Preferences

__all__ = ["Workspace"]

REMEMBER_LATEST = 3
"""How many threads' latest messages the store keeps in memory, so a long thread's next turn
does not parse its whole history again (see :mod:`app.store._head_cache`)."""


class Workspace:
    """The services of one store and data directory; see the module docstring."""

    def __init__(
        self,
        store: Store,
        resolve_model: ModelResolver,
        *,
        data_dir: Path,
        settings: AppSettings | None = None,
        secret_resolver: SecretSource | None = None,
        tools: Sequence[Tool[..., Any]] = (),
        run_config: RunConfig | None = None,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        list_ollama: Callable[[str], Any] | None = None,
        knowledge: KnowledgeIndex | None = None,
        offer_knowledge: bool = False,
        auto_passages: bool = True,
        memory: bool = True,
        offer_memory: bool = False,
    ) -> None:
        self._store = store
        self._secrets = secret_resolver
        self.data_dir = data_dir
        self.events = EventBus()
        """Every event of every service, in order."""
        self.settings = SettingsStore(data_dir, self.events, settings)
        """The user's settings, shared by every service and settings page."""
        self.network = NetworkLedger(store)
        """Offline mode, and the ledger of every connection Parley opens."""
        self.events.subscribe(self.network.follow_settings)
        self.downloads = ModelDownloads(data_dir)
        """The model catalogue: models to download, and the downloaded ones."""
        self.knowledge = KnowledgeService(
            knowledge or KnowledgeIndex.open_data_dir(data_dir),
            self.events,
            agents=store,
            embeddings=EmbeddingSetting(self.downloads, self.settings),
        )
        """Knowledge folders: indexed, watched once started, searched and cited."""
        if offer_knowledge:  # the terminal's --tools: search_knowledge when a folder exists
            tools = [*tools, *self.knowledge.tools()]
        self.mcp = McpService(data_dir, events=self.events, secret_resolver=secret_resolver)
        """The MCP servers: their file, starting them, adding, changing and removing one."""
        self.tools = WorkspaceTools(
            data_dir,
            store,
            settings=self.settings,
            mcp=self.mcp,
            # remember is a tool a thread or an agent may switch on (not with --no-memory)
            extra=lambda: [*self.knowledge.tools(), *(self.memory.tools() if memory else [])],
            offline=lambda: self.network.offline,
        )
        """The tools threads may switch on: built-in and the running MCP servers'."""
        self._follow_embedding()
        self.agents = AgentService(
            store,
            events=self.events,
            settings=self.settings,
            tool_names=lambda: [t.name for t in self.tools.known()],
            knowledge=self.knowledge,
            tool_unavailable=self.tools.unavailable,
        )
        """The agents a person defines: list, add, edit, remove, export, import."""
        self.memory = MemoryService(store, events=self.events, meaning=self.knowledge.meaning)
        """What agents remember across threads: every memory listed, changed, chosen."""
        if offer_memory and memory:  # the terminal's --tools: remember, asking before it keeps
            tools = [*tools, *self.memory.tools()]
        policy = StoreApprovalPolicy(
            store, keep_unasked=lambda: self.settings.current.memory_keep_unasked
        )
        self.models = ModelService(
            ModelAccess(resolve_model, secret_resolver, list_ollama),
            AgentParts(
                store.checkpointer,
                policy,
                chain_hooks(
                    # without --no-knowledge, questions get passages unless their thread says no
                    PassagesHook(self.knowledge.sources, allowed=auto_passages),
                    # then the memories chosen for the question (none with --no-memory)
                    MemoryHook(
                        lambda question, agent, remote: self.memory.choose(
                            question, agent, remote=remote
                        ),
                        self.memory.mark_used,
                        lambda model: runs_elsewhere(model, self.settings.current.provider_urls()),
                        asking=lambda ctx: asking_agent(ctx, store),
                        allowed=memory,
                    ),
                ),
                offered=tuple(tools),
                system_prompt=system_prompt,
            ),
            events=self.events,
            settings=self.settings,
            downloads=self.downloads,
            tools=self.tools,
            agents=self.agents,
        )
        """Each model built once, each thread's agent, the picker's choices."""
        self.runs = RunService(
            store,
            events=self.events,
            settings=self.settings,
            models=self.models,
            tools=self.tools,
            policy=policy,
            run_config=run_config,
            memory=memory,
        )
        """Turns: send, answer, stop, cut-off runs and budget pauses."""
        self.threads = ThreadService(
            store,
            events=self.events,
            settings=self.settings,
            runs=self.runs,
            tool_choices=self.tools.choices,
            downloads=self.downloads,
        )
        """The threads: list, search, rename, delete, fork, export, import, messages."""
        self.compare = CompareService(
            store,
            events=self.events,
            model=self.models.model,
            refuse_if_busy=self.runs.refuse_if_busy,
            system_prompt=system_prompt,
        )
        """One question to several models at once, their answers kept as versions of one."""
        self.schedules = ScheduleService(
            store, agents=self.agents, threads=self.threads, data_dir=data_dir
        )
        """Schedules: an agent's prompt run at set times, and their runs."""
        self.data = DataActions(store, data_dir, self.aclose)
        """Diagnostics, the data and log folders, export all, delete everything."""
        self.backups = BackupService(store.path, enabled=store.read_only is None)
        """Backups of the thread database: take, list, restore, and one a day."""
        self.voice = VoiceService(data_dir)
        """Speech on this computer: transcribing recordings, speaking text, speech models."""
        self._preferences: Preferences | None = None
        self._attachments: AttachmentService | None = None

    @property
    def attachments(self) -> AttachmentService:
        """Attaching files and reading their stored media back (the window's door); built on
        first use, so opening the window does not load the ingest stack."""
        if self._attachments is None:
            from app.services.attachments.service import AttachmentService

            self._attachments = AttachmentService(
                self._store, self.models.model, transcriber=self.voice
            )
        return self._attachments

    @property
    def preferences(self) -> Preferences:
        """The settings pages' service: connections, keys, rules, audit log, limits, theme."""
        if self._preferences is None:
            from app.services.settings.preferences import Preferences

            self._preferences = Preferences(self.settings, self._store, self._secrets, self.events)
        return self._preferences

    @classmethod
    async def open(
        cls,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        resolve_model: ModelResolver | None = None,
        secret_resolver: SecretSource | None = None,
        store: Store | None = None,
        **options: Any,
    ) -> Workspace:
        """Open the store in ``data_dir`` (``--data-dir``, ``PARLEY_DATA_DIR`` or the user
        data directory) and the keyring, off the event loop. ``store``: use this one instead
        (a read-only copy of a damaged database)."""
        directory = resolve_data_dir(data_dir)
        if store is None:
            store = await asyncio.to_thread(
                partial(Store.open, remember_latest=REMEMBER_LATEST), database_path(directory)
            )
        settings = await asyncio.to_thread(load_settings, directory)
        knowledge = await asyncio.to_thread(KnowledgeIndex.open_data_dir, directory)
        list_ollama = None
        opened: list[Workspace] = []
        if resolve_model is None or secret_resolver is None:
            from app.services.models.access import keyring_models

            secret_resolver, registry = await keyring_models(
                store,
                secret_resolver,
                provider_urls=lambda: opened[0].settings.current.provider_urls() if opened else {},
                build=resolve_model is None,
                data_dir=directory,
            )
            if registry is not None:
                resolve_model, list_ollama = registry.resolve, registry.ollama_models
        assert resolve_model is not None
        workspace = cls(
            store,
            resolve_model,
            data_dir=directory,
            settings=settings,
            secret_resolver=secret_resolver,
            list_ollama=list_ollama,
            knowledge=knowledge,
            **options,
        )
        opened.append(workspace)  # models built from now on use its provider URLs
        workspace.network.set_offline(settings.offline or forced_offline())
        workspace.network.start()
        return workspace

    def _follow_embedding(self) -> None:
        """Hand the knowledge service the embedding model the settings name, now and each
        time the setting changes."""
        knowledge, settings = self.knowledge, self.settings

        def use(spec: str, resync: bool = True) -> None:
            knowledge.use_embedder(embedder_for(spec), spec, resync=resync)

        def follow(event: object) -> None:
            if isinstance(event, SettingsChanged) and (
                event.before.knowledge_embedding != event.after.knowledge_embedding
            ):
                use(event.after.knowledge_embedding)

        if settings.current.knowledge_embedding:  # start() syncs the folders, if it is called
            use(settings.current.knowledge_embedding, resync=False)
        self.events.subscribe(follow)

    def schedule_runner(self, clock: Clock) -> ScheduleRunner:
        """A runner of this workspace's schedules on ``clock`` (take its lock to run)."""
        from app.services.schedules.runner import ScheduleRunner

        return ScheduleRunner(
            self._store, self.schedules, runs=self.runs, threads=self.threads,
            agents=self.agents, events=self.events, clock=clock,
        )  # fmt: skip

    async def aclose(self) -> None:
        """Stop every run (each keeps what it saved), then close every service and the store."""
        await self.runs.aclose()
        await self.backups.aclose()
        await self.mcp.aclose()
        await self.models.aclose()
        await self.network.aclose()
        await self.knowledge.aclose()
        await self.voice.aclose()
        await self._store.aclose()
