"""``Workspace``: the one service the window talks to — threads, pages of messages, turns on
each thread's own model, approvals answered by decision, stop — with typed events.

Every method is async and never blocks the event loop: the store, the keyring and model
construction run on worker threads. Runs are saved pauses, not blocked calls: a turn that needs
an approval ends paused (``ApprovalNeeded``) and :meth:`Workspace.answer` continues it, in
this process or after a restart.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from app.core.agent import create_agent
from app.core.errors import CheckpointConflict, ParleyError, UserError
from app.core.graph import (
    BudgetChanged,
    CompiledGraph,
    GraphEvent,
    Interrupted,
    MessageDelta,
    NodeFinished,
    Resume,
    RunConfig,
    ToolProgress,
)
from app.core.models.protocol import ChatModel
from app.core.models.retries import RetryNotice, listening_for_retries
from app.core.state import AgentState, ChunkMerge, ContentBlock, Message, RemoveMessage, TextBlock
from app.core.state.agent_state import normalise_update
from app.core.tools import Tool, requests_of
from app.core.tools.secrets import SecretSource
from app.services.approval_policy import StoreApprovalPolicy
from app.services.backups import BackupService
from app.services.data_actions import DataActions
from app.services.events import (
    ApprovalNeeded,
    BudgetPaused,
    BudgetUpdated,
    MessageAdded,
    MessageRemoved,
    MessageStreamed,
    ModelStatus,
    RunStatus,
    RunStatusChanged,
    ThreadsChanged,
    ToolActivity,
    WorkspaceEvent,
)
from app.services.model_choices import ModelChoice, list_model_choices
from app.services.model_downloads import ModelDownloads
from app.services.network import NetworkLedger, forced_offline
from app.services.problems import problem_of
from app.services.settings import AppSettings, load_settings, save_settings
from app.services.workspace_tools import WorkspaceTools
from app.store import ImportedThread, MessagePage, SearchHit, Store, Thread
from app.store.paths import database_path, resolve_data_dir

if TYPE_CHECKING:
    from app.core.models.protocol import ModelInfo
    from app.media import IngestProgress, Source
    from app.services.attach import Attachments
    from app.services.attachments import AttachmentService
    from app.services.preferences import Preferences

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "MessagePage",
    "SearchHit",
    "ThreadBusy",
    "ThreadSummary",
    "Workspace",
]

log = logging.getLogger(__name__)

DEFAULT_SYSTEM_PROMPT = "You are Parley, a helpful assistant. Answer clearly and briefly."

Listener = Callable[[WorkspaceEvent], None]
ModelResolver = Callable[[str], ChatModel]


class ThreadBusy(ParleyError, RuntimeError):
    """The thread is already running a turn; wait for it or stop it first."""

    kind = "busy"


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    """A thread as the sidebar shows it."""

    thread: Thread
    last_line: str
    status: Literal["idle", "running", "waiting", "cut_off"]


def title_of(text: str, width: int = 60) -> str:
    """A thread title made from the first message."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass
class _Run:
    agent: CompiledGraph[AgentState]
    task: asyncio.Task[AgentState | None]


class Workspace:
    """Threads in one store, each run on its own model; see the module docstring."""

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
    ) -> None:
        self._store = store
        self._resolve = resolve_model
        self.data_dir = data_dir
        self.settings = settings or AppSettings()
        self._secrets = secret_resolver
        self._tools = list(tools)
        self._run_config = run_config or RunConfig(budget_pause=True)
        self._system_prompt = system_prompt
        self._list_ollama = list_ollama
        self._policy = StoreApprovalPolicy(store)
        self._listeners: list[Listener] = []
        self._runs: dict[str, _Run] = {}
        self._agents: dict[tuple[Any, ...], CompiledGraph[AgentState]] = {}
        self._models: dict[str, ChatModel] = {}
        self._retired: list[ChatModel] = []
        self._preferences: Any = None
        self._attachments: AttachmentService | None = None

        self.tools = WorkspaceTools(
            data_dir,
            store,
            settings=lambda: self.settings,
            save_settings=self.save_settings,
            emit=self._emit,
            secret_resolver=secret_resolver,
        )
        """The tools threads may switch on, and the MCP servers behind some of them."""
        self.data = DataActions(store, data_dir, self.aclose)
        """Diagnostics, the data and log folders, export all, delete everything."""
        self.downloads = ModelDownloads(data_dir)
        """The model catalogue: models to download, and the downloaded ones."""
        self.backups = BackupService(store.path, enabled=store.read_only is None)
        """Backups of the thread database: take, list, restore, and one a day."""
        self.network = NetworkLedger(store)
        """Offline mode, and the ledger of every connection Parley opens."""

    @property
    def attachments(self) -> AttachmentService:
        """Attaching files and reading their stored media back (the window's door); built on
        first use, so opening the window does not load the ingest stack."""
        if self._attachments is None:
            from app.services.attachments import AttachmentService

            self._attachments = AttachmentService(self._store, self._model)
        return self._attachments

    # Opening and closing -------------------------------------------------------------

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
            store = await asyncio.to_thread(Store.open, database_path(directory))
        settings = await asyncio.to_thread(load_settings, directory)
        list_ollama = None
        if resolve_model is None or secret_resolver is None:
            from app.secrets.keyring_resolver import KeyringSecretResolver
            from app.services.model_access import api_key_lookup, media_loader
            from app.services.model_registry import ModelRegistry

            keyring = (
                secret_resolver
                if isinstance(secret_resolver, KeyringSecretResolver)
                else await asyncio.to_thread(KeyringSecretResolver)
            )
            if secret_resolver is None:
                secret_resolver = keyring
            if resolve_model is None:
                # vision models get the stored bytes of attached images
                opened: list[Workspace] = []
                registry = ModelRegistry(
                    api_key_lookup(keyring),
                    media_loader=media_loader(store),
                    provider_urls=lambda: opened[0].settings.provider_urls() if opened else {},
                )
                resolve_model = registry.resolve

                async def list_ollama(url: str) -> list[dict[str, Any]]:
                    return await registry.ollama_models(url)

        workspace = cls(
            store,
            resolve_model,
            data_dir=directory,
            settings=settings,
            secret_resolver=secret_resolver,
            list_ollama=list_ollama,
            **options,
        )
        if list_ollama is not None:
            opened.append(workspace)  # models built from now on use its provider URLs
        workspace.network.set_offline(settings.offline or forced_offline())
        workspace.network.start()
        return workspace

    async def aclose(self) -> None:
        """Stop every run (each keeps what it saved) and close the store."""
        for thread_id in list(self._runs):
            self.stop(thread_id)
        tasks = [r.task for r in self._runs.values()]
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        await self.backups.aclose()
        await self.tools.aclose()
        await self._close_models()
        await self.network.aclose()
        await self._store.aclose()

    async def _close_models(self) -> None:
        """Close the connections of every model built here (local models stay loaded)."""
        models, self._retired = [*self._models.values(), *self._retired], []
        self._models.clear()
        self._agents.clear()
        for model in models:
            close = getattr(model, "aclose", None)
            if close is not None:
                try:
                    await close()
                except Exception:  # closing must not keep the rest from closing
                    log.warning("closing a model's connections failed", exc_info=True)

    # Events --------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with every event from now on; returns the unsubscribe call."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: WorkspaceEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken view must not break the run
                log.exception("a workspace listener failed on %s", type(event).__name__)

    # Threads -------------------------------------------------------------------------

    async def list_threads(self, *, limit: int = 500) -> list[ThreadSummary]:
        """Threads, most recently active first, with their last line and run status."""
        threads = await self._store.list_threads(limit=limit)
        overviews = await self._store.thread_overviews([t.id for t in threads])
        out = []
        for t in threads:
            ov = overviews.get(t.id)
            status: Literal["idle", "running", "waiting", "cut_off"] = "idle"
            if t.id in self._runs:
                status = "running"
            elif t.pending_interrupts:
                status = "waiting"
            elif ov is not None and ov.run_status == "running":
                status = "cut_off"
            out.append(ThreadSummary(t, ov.last_line if ov else "", status))
        return out

    async def get_thread(self, thread_id: str) -> Thread:
        """The thread; :class:`UserError` when there is none."""
        found = await self._store.get_thread(thread_id)
        if found is None:
            raise UserError(f"there is no thread {thread_id}")
        return found

    async def create_thread(
        self, *, title: str = "", model: str | None = None, system_prompt: str | None = None
    ) -> Thread:
        """A new, empty thread on ``model`` (the default model when not given)."""
        thread = await self._store.create_thread(
            title, model=model or self.settings.default_model, system_prompt=system_prompt
        )
        self._emit(ThreadsChanged(thread.id))
        return thread

    async def rename_thread(self, thread_id: str, title: str) -> Thread:
        """Give the thread a new title (blank titles are refused)."""
        title = " ".join(title.split())
        if not title:
            raise UserError("a thread needs a title")
        thread = await self._store.rename_thread(thread_id, title)
        self._emit(ThreadsChanged(thread_id))
        return thread

    async def delete_thread(self, thread_id: str) -> None:
        """Delete the thread for good (stopping its run first)."""
        if thread_id in self._runs:
            self.stop(thread_id)
            await asyncio.wait([self._runs[thread_id].task], timeout=5)
        await self._store.delete_thread(thread_id)
        await asyncio.to_thread(self.tools.choices.forget, thread_id)
        self._emit(ThreadsChanged(thread_id))

    async def set_thread_model(self, thread_id: str, spec: str) -> Thread:
        """Run the thread's next turns on ``spec``."""
        from app.services.model_registry import parse_spec

        parse_spec(spec)  # refuse a malformed spec before saving it
        thread = await self._store.update_thread(thread_id, model=spec)
        self._emit(ThreadsChanged(thread_id))
        return thread

    async def set_system_prompt(self, thread_id: str, prompt: str | None) -> Thread:
        """The thread's own system prompt (``None`` or blank: the default)."""
        value = prompt if prompt and prompt.strip() else None
        return await self._store.update_thread(thread_id, system_prompt=value)

    async def search(self, text: str, *, limit: int = 50) -> list[SearchHit]:
        """Messages containing every word of ``text``; matches wrapped in ``\\x02``/``\\x03``."""
        if not text.strip():
            return []
        return await self._store.search(text, limit=limit, marks=("\x02", "\x03"))

    async def export_thread(self, thread_id: str, fmt: Literal["markdown", "json"]) -> bytes:
        """The thread as a Markdown document or as JSON that :meth:`import_thread` reads."""
        if fmt == "markdown":
            return (await self._store.export_markdown(thread_id)).encode()
        return await self._store.export_json(thread_id)

    async def import_thread(self, data: bytes) -> ImportedThread:
        """A new thread from an exported JSON document. An export is a file from anywhere: the
        thread keeps only media whose bytes it carries and a model set up here (else the
        default model); ``notes`` on the result, and on the messages concerned, say what was
        left out and why."""
        from app.services.imported_model import imported_model_check

        try:
            installed = [c.spec for c in await self.downloads.choices() if c.available]
        except (OSError, ParleyError):  # an unreadable model list: only settings count
            installed = []
        check = imported_model_check(self.settings, installed)
        thread = await self._store.import_json(data, check_model=check)
        self._emit(ThreadsChanged(thread.id))
        return thread

    async def saved_state(self, thread_id: str) -> AgentState | None:
        """The thread's latest saved state (``None`` before its first turn)."""
        latest = await self._store.checkpointer.aget(thread_id, AgentState)
        return latest.state if latest else None

    async def attach(
        self,
        sources: Sequence[Source | os.PathLike[str]],
        *,
        on_progress: Callable[[IngestProgress], None] | None = None,
    ) -> Attachments:
        """Turn files into content blocks, their bytes kept once in the store's media; a
        problem line for each file that cannot be attached (the others still are)."""
        from app.services.attach import attach

        return await attach(self._store.store_media, sources, on_progress=on_progress)

    async def read_messages(
        self, thread_id: str, *, before: int | None = None, limit: int = 100
    ) -> MessagePage:
        """A page of the thread's messages: the newest first, older pages with ``before``."""
        return await self._store.read_messages(thread_id, before=before, limit=limit)

    # Settings and models -------------------------------------------------------------

    async def save_settings(self, settings: AppSettings) -> None:
        """Keep ``settings`` and write them to disk. Remote models are built again on their
        next turn when a provider's URL changed."""
        changed = settings.provider_urls() != self.settings.provider_urls()
        if settings.offline != self.settings.offline:
            self.network.set_offline(settings.offline or forced_offline())
        self.settings = settings
        await asyncio.to_thread(save_settings, self.data_dir, settings)
        if changed:
            self.drop_remote_models()

    async def model_choices(self) -> list[ModelChoice]:
        """Every model the picker can offer, each saying whether it can be reached."""
        listed = await list_model_choices(self.settings, self._list_ollama)
        return listed + await self.downloads.choices()

    async def check_model(self, spec: str) -> ModelInfo | None:
        """Build the model ``spec`` names now (off the loop) and return what it can take;
        raises the reason when it cannot be used, before anything is sent."""
        return getattr(await self._model(spec), "info", None)

    async def preload(self, spec: str) -> None:
        """Load a local model now (off the loop), reporting ``ModelStatus`` events."""
        self._emit(ModelStatus(spec, "loading", None, "Loading the model…"))
        try:
            model = await self._model(spec)
            load = getattr(model, "aload", None)
            if load is not None:
                await load()
        except ParleyError as exc:
            self._emit(ModelStatus(spec, "failed", None, str(exc)))
            return
        self._emit(ModelStatus(spec, "ready", 1.0, "Ready"))

    async def _model(self, spec: str) -> ChatModel:
        if spec not in self._models:
            self._models[spec] = await asyncio.to_thread(self._resolve, spec)
        return self._models[spec]

    async def _agent_for(self, thread: Thread) -> CompiledGraph[AgentState]:
        spec = thread.model or self.settings.default_model
        prompt = thread.system_prompt or self._system_prompt
        tools = [*self._tools, *self.tools.for_thread(thread.id)]
        key = (spec, prompt, *(id(t) for t in tools))
        if key not in self._agents:
            self._agents[key] = create_agent(
                await self._model(spec),
                tools,
                system_prompt=prompt,
                secret_resolver=self._secrets,
                approval_policy=self._policy,
                checkpointer=self._store.checkpointer,
                trim_context=True,
            )
        return self._agents[key]

    async def set_api_key(self, ref: str, value: str) -> str:
        """Keep an API key in the keyring; return where it went. Models that read it are
        built again on their next turn."""
        from app.secrets.keyring_resolver import KeyringSecretResolver

        resolver = self._secrets
        if not isinstance(resolver, KeyringSecretResolver):
            resolver = await asyncio.to_thread(KeyringSecretResolver)
        status = await asyncio.to_thread(resolver.set, ref, value)
        self.drop_remote_models()
        return str(status.backend)

    def drop_remote_models(self) -> None:
        """Build the remote models again on their next turn (their key or URL changed)."""
        remote = [s for s in self._models if not s.startswith(("local", "gguf:", "scripted:"))]
        # a running turn may still use a dropped model: its connections close with the workspace
        self._retired.extend(self._models.pop(spec) for spec in remote)
        self._agents = {k: v for k, v in self._agents.items() if k[0] not in remote}

    @property
    def preferences(self) -> Preferences:
        """The settings pages' service: connections, keys, rules, audit log, limits, theme."""
        from app.services.preferences import Preferences

        if self._preferences is None:
            self._preferences = Preferences(self, self._store, self._secrets)
        return self._preferences  # type: ignore[no-any-return]

    # Runs ----------------------------------------------------------------------------

    def is_running(self, thread_id: str) -> bool:
        """Whether a turn is running on the thread now."""
        return thread_id in self._runs

    def any_running(self) -> bool:
        """Whether a turn is running on any thread now."""
        return bool(self._runs)

    async def send(
        self,
        thread_id: str,
        text: str,
        blocks: Sequence[ContentBlock] = (),
        *,
        replace: str | None = None,
        notes: Sequence[str] = (),
    ) -> asyncio.Task[AgentState | None]:
        """Add the user's message (in place of message ``replace``, when given) and start a
        turn; returns the running turn. ``notes`` are shown on the message (e.g. what of its
        attachments the model will not see).

        Raises at once, sending nothing, when the thread is busy or missing, the message is
        empty or the model cannot be built; problems during the turn arrive as events."""
        if not text.strip() and not blocks:
            raise UserError("there is nothing to send: the message is empty")
        thread = await self.get_thread(thread_id)
        self._refuse_if_running(thread_id)
        agent = await self._agent_for(thread)
        self._refuse_if_running(thread_id)
        content: list[ContentBlock] = [TextBlock(text=text)] if text.strip() else []
        message = Message(role="user", content=[*content, *blocks])
        if notes:
            from app.services.attach import NOTES_KEY

            message.metadata[NOTES_KEY] = list(notes)
        await self._abandon_pending(thread_id)
        if not thread.title:
            await self._store.rename_thread(thread_id, title_of(text) or "Attachment")
        update: list[Message | RemoveMessage] = [message]
        if replace is not None:
            update.insert(0, RemoveMessage(id=replace))
            self._emit(MessageRemoved(thread_id, replace))
        self._emit(MessageAdded(thread_id, message))
        return self._start(thread_id, agent, {"messages": update})

    async def regenerate(self, thread_id: str) -> asyncio.Task[AgentState | None]:
        """Drop the replies after the last user message and ask the model again."""
        thread = await self.get_thread(thread_id)
        self._refuse_if_running(thread_id)
        agent = await self._agent_for(thread)
        snapshot = await agent.aget_state(RunConfig(thread_id=thread_id))
        context = snapshot.state.context if snapshot else []
        users = [i for i, m in enumerate(context) if m.role == "user"]
        if not users:
            raise UserError("there is no message to answer again")
        await self._abandon_pending(thread_id)
        removed = [m.message_id for m in context[users[-1] + 1 :]]
        for message_id in removed:
            self._emit(MessageRemoved(thread_id, str(message_id)))
        update = [RemoveMessage(id=m) for m in removed]
        return self._start(thread_id, agent, {"messages": update})

    async def fork_for_edit(self, thread_id: str, message_id: str) -> Thread:
        """A copy of the thread that ends with ``message_id``, for sending an edited version
        of that message with ``send(..., replace=message_id)``; the original stays as it was."""
        original = await self.get_thread(thread_id)
        fork = await self._store.fork_thread(
            thread_id, at_message=message_id, title=f"{original.title} (edited)"
        )
        self._emit(ThreadsChanged(fork.id))
        return fork

    async def edit_and_resend(
        self, thread_id: str, message_id: str, text: str
    ) -> tuple[Thread, asyncio.Task[AgentState | None]]:
        """Fork the thread at ``message_id`` and send ``text`` there instead of it."""
        if not text.strip():
            raise UserError("there is nothing to send: the message is empty")
        fork = await self.fork_for_edit(thread_id, message_id)
        return fork, await self.send(fork.id, text, replace=message_id)

    async def delete_message(self, thread_id: str, message_id: str) -> None:
        """Remove one message from the thread (saved as a new step; runs nothing)."""
        from app.services.state_edits import save_edited_state

        self._refuse_if_running(thread_id)
        latest = await self._store.checkpointer.aget(thread_id, AgentState)
        if latest is None:
            raise UserError("this thread has nothing saved yet")
        context = [m for m in latest.state.context if str(m.message_id) != str(message_id)]
        if len(context) == len(latest.state.context):
            raise UserError("that message is no longer in the thread")
        state = latest.state.model_copy(update={"context": context})
        await save_edited_state(self._store, latest, state)
        self._emit(MessageRemoved(thread_id, message_id))
        self._emit(ThreadsChanged(thread_id))

    async def answer(
        self, thread_id: str, answers: dict[str, Any]
    ) -> asyncio.Task[AgentState | None]:
        """Continue a paused thread with decisions, by interrupt id (see
        :mod:`app.core.tools.approvals` for the answer's form)."""
        thread = await self.get_thread(thread_id)
        self._refuse_if_running(thread_id)
        agent = await self._agent_for(thread)
        return self._start(thread_id, agent, Resume(answers=answers))

    async def pending_approvals(self, thread_id: str) -> list[ApprovalNeeded]:
        """The approvals the thread waits on (also after a restart)."""
        pending = await self._store.checkpointer.apending_interrupts(thread_id)
        out = []
        for item in pending:
            requests = requests_of(item.value)
            if requests is not None:
                out.append(ApprovalNeeded(thread_id, item.id, requests))
        return out

    def tool(self, name: str) -> Tool[..., Any] | None:
        """The offered tool called ``name`` (for showing and checking its arguments)."""
        return next((t for t in self._tools if t.name == name), None)

    async def is_cut_off(self, thread_id: str) -> bool:
        """Whether the thread's run stopped unfinished (the app or machine died mid-run)."""
        from app.services.cut_off import is_cut_off

        return thread_id not in self._runs and await is_cut_off(self._store, thread_id)

    async def resume_cut_off(self, thread_id: str) -> asyncio.Task[AgentState | None]:
        """Continue a cut-off run from its last checkpoint (finished steps are not run again)."""
        thread = await self.get_thread(thread_id)
        self._refuse_if_running(thread_id)
        if not await self.is_cut_off(thread_id):
            raise UserError("this thread has no cut-off run to resume")
        return self._start(thread_id, await self._agent_for(thread), None)

    async def discard_cut_off(self, thread_id: str) -> None:
        """End a cut-off run where it stopped, running nothing more."""
        from app.services.cut_off import discard_cut_off

        self._refuse_if_running(thread_id)
        for message in await discard_cut_off(self._store, thread_id):
            self._emit(MessageAdded(thread_id, message))
        self._emit(RunStatusChanged(thread_id, "idle"))
        self._emit(ThreadsChanged(thread_id))

    async def pending_budget(self, thread_id: str) -> list[BudgetPaused]:
        """The budget pauses the thread waits on (also after a restart)."""
        from app.services.budget_control import pending_budget_pauses

        return await pending_budget_pauses(self._store, thread_id)

    async def answer_budget(
        self, thread_id: str, interrupt_id: str, raise_to: float | None
    ) -> asyncio.Task[AgentState | None]:
        """Go on past a budget pause with the limit raised to ``raise_to``, or stop there
        (``None``)."""
        from app.services.budget_control import budget_answer

        answer = budget_answer(await self.pending_budget(thread_id), interrupt_id, raise_to)
        return await self.answer(thread_id, {interrupt_id: answer})

    def stop(self, thread_id: str) -> bool:
        """Stop the thread's turn at the next chunk; what arrived is kept."""
        run = self._runs.get(thread_id)
        return run.agent.request_stop(thread_id) if run else False

    async def wait_idle(self) -> None:
        """Wait until no turn is running (for shutdown and tests)."""
        while self._runs:
            await asyncio.wait([r.task for r in self._runs.values()])

    def _refuse_if_running(self, thread_id: str) -> None:
        if thread_id in self._runs:
            raise ThreadBusy("this thread is still answering; wait for it or stop it first")

    async def _abandon_pending(self, thread_id: str) -> None:
        await self._policy.abandon_pending(thread_id)

    def _start(
        self, thread_id: str, agent: CompiledGraph[AgentState], graph_input: Any
    ) -> asyncio.Task[AgentState | None]:
        task = asyncio.create_task(self._run(thread_id, agent, graph_input))
        self._runs[thread_id] = _Run(agent, task)
        self._emit(RunStatusChanged(thread_id, "running"))
        self._emit(ThreadsChanged(thread_id))
        return task

    async def _run(
        self, thread_id: str, agent: CompiledGraph[AgentState], graph_input: Any
    ) -> AgentState | None:
        base = self._run_config
        config = replace(
            base,
            thread_id=thread_id,
            limits=self.settings.default_limits.model_copy(
                update=base.limits.model_dump(exclude_none=True)
            ),
            tool_permissions=base.tool_permissions | frozenset(self.tools.permissions(thread_id)),
        )
        status: RunStatus = "failed"
        state: AgentState | None = None
        streams: dict[str, ChunkMerge] = {}
        waits: list[ApprovalNeeded | BudgetPaused] = []

        def on_retry(notice: RetryNotice) -> None:
            from app.services.events import Retrying

            self._emit(
                Retrying(thread_id, notice.provider, notice.attempt, notice.delay, notice.reason)
            )

        try:
            with listening_for_retries(on_retry):
                async for event in agent.astream(graph_input, config):
                    self._forward(thread_id, event, streams)
            snapshot = await agent.aget_state(config)
            state = snapshot.state if snapshot else None
            status = "idle"
            if state is not None:
                # reported once the run is over (below), so whoever answers finds it idle
                waits = [*await self.pending_approvals(thread_id)]
                waits += await self.pending_budget(thread_id)
                if waits:
                    status = "waiting"
                last = state.context[-1] if state.context else None
                if status == "idle" and last is not None and last.end_reason == "stopped":
                    status = "stopped"
        except CheckpointConflict:
            self._emit(
                problem_of(
                    "conflict",
                    "Another window or process changed this thread while it was answering; "
                    "the reply was not saved. Open the thread again to see its latest state.",
                    thread_id,
                )
            )
        except ParleyError as exc:
            self._emit(problem_of(exc.kind or "model", str(exc), thread_id))
        except Exception as exc:
            log.exception("a turn failed unexpectedly on thread %s", thread_id)
            self._emit(
                problem_of(
                    "internal",
                    f"Something went wrong inside Parley ({type(exc).__name__}). What was saved "
                    "is kept; try again.",
                    thread_id,
                )
            )
        finally:
            self._runs.pop(thread_id, None)
            for wait in waits:
                self._emit(wait)
            self._emit(RunStatusChanged(thread_id, status))
            self._emit(ThreadsChanged(thread_id))
        return state

    def _forward(self, thread_id: str, event: GraphEvent, streams: dict[str, ChunkMerge]) -> None:
        if event.namespace:
            return
        if isinstance(event, MessageDelta):
            chunk = event.chunk
            key = str(chunk.message_id)
            merge = streams.get(key)
            if merge is None:
                merge = streams[key] = ChunkMerge(chunk)
            else:
                merge.add(chunk)
            self._emit(MessageStreamed(thread_id, merge))
        elif isinstance(event, NodeFinished):
            try:
                update = normalise_update(AgentState(), event.update)
            except ParleyError:
                return
            for item in update.get("context", update.get("messages", [])) or []:
                if isinstance(item, RemoveMessage):
                    self._emit(MessageRemoved(thread_id, str(item.id)))
                elif isinstance(item, Message):
                    streams.pop(str(item.message_id), None)
                    self._emit(MessageAdded(thread_id, item))
        elif isinstance(event, ToolProgress):
            self._emit(
                ToolActivity(thread_id, event.call_id, event.tool, event.status, event.message)
            )
        elif isinstance(event, BudgetChanged):
            self._emit(BudgetUpdated(thread_id, event.usage, event.limits))
        elif isinstance(event, Interrupted):
            pass  # reported once the pause is saved, from the store (see _run)
