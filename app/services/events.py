"""What the services tell their views: typed events, each about one thread (or none).

Every service emits on one :class:`~app.services.bus.EventBus`; views subscribe with
``workspace.events.subscribe`` and receive these on the event loop, in order. Messages arrive
already reduced: a streamed reply comes as the whole message so far, under the id it will keep.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from app.core.budget import BudgetLimits, BudgetUsage
from app.core.graph.budget_pause import BudgetPause
from app.core.state import ChunkMerge, MarkedMerge, Message
from app.core.tools import ApprovalRequest

if TYPE_CHECKING:
    from app.services.settings.file import AppSettings

__all__ = [
    "AgentsChanged",
    "ApprovalNeeded",
    "BudgetPaused",
    "BudgetUpdated",
    "KeysChanged",
    "KnowledgeChanged",
    "KnowledgeProgress",
    "MemoriesChanged",
    "MessageAdded",
    "MessageRemoved",
    "MessageStreamed",
    "ModelStatus",
    "Problem",
    "ProblemKind",
    "Remedy",
    "Retrying",
    "RunStatus",
    "RunStatusChanged",
    "SettingsChanged",
    "ThreadsChanged",
    "ToolActivity",
    "ToolsChanged",
    "WorkspaceEvent",
]

RunStatus = Literal["running", "idle", "waiting", "stopped", "failed"]
"""How a thread's run stands: ``waiting`` for an approval, ``stopped`` by the user."""

ProblemKind = Literal[
    "connection",
    "auth",
    "rate_limited",
    "timeout",
    "interrupted",
    "unsupported",
    "model",
    "busy",
    "storage",
    "conflict",
    "invalid",
    "internal",
]


@dataclass(frozen=True, slots=True)
class Remedy:
    """What the user can do about a problem, for a view to offer as an action.

    ``action`` is one of ``retry``, ``set_key`` (``target`` is the key's name), ``pick_model``,
    ``open_settings``; ``label`` is the action's text.
    """

    action: Literal["retry", "set_key", "pick_model", "open_settings"]
    label: str
    target: str | None = None


@dataclass(frozen=True, slots=True)
class AgentsChanged:
    """The agents changed: one was added, edited or removed (``agent_id``), or any."""

    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class ThreadsChanged:
    """The list of threads changed (created, renamed, deleted, new activity)."""

    thread_id: str | None = None


@dataclass(frozen=True, slots=True)
class MessageAdded:
    """A message was added to the thread (or replaced one with the same id)."""

    thread_id: str
    message: Message


@dataclass(frozen=True, slots=True)
class MessageStreamed:
    """A reply grew: :attr:`message` is everything that has arrived so far.

    The reply is put together only when read, so a view that reads once per frame pays for
    its length once per frame, not once per chunk."""

    thread_id: str
    merge: ChunkMerge | MarkedMerge

    @property
    def message_id(self) -> str:
        """The id the reply keeps."""
        return str(self.merge.message_id)

    @property
    def message(self) -> Message:
        """The reply so far."""
        return self.merge.message()


@dataclass(frozen=True, slots=True)
class MessageRemoved:
    """A message left the thread."""

    thread_id: str
    message_id: str


@dataclass(frozen=True, slots=True)
class RunStatusChanged:
    """A thread's run started, ended, paused or was stopped."""

    thread_id: str
    status: RunStatus


@dataclass(frozen=True, slots=True)
class ApprovalNeeded:
    """The run paused until a person decides on these tool calls."""

    thread_id: str
    interrupt_id: str
    requests: list[ApprovalRequest]


@dataclass(frozen=True, slots=True)
class BudgetUpdated:
    """What the current run has spent against its limits; ``by_agent`` is who spent it
    (the thread's own agent as ``""``, each delegate agent by name)."""

    thread_id: str
    usage: BudgetUsage
    limits: BudgetLimits
    by_agent: dict[str, BudgetUsage] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BudgetPaused:
    """The run paused before going over a limit: raise it for this run, or stop."""

    thread_id: str
    interrupt_id: str
    pause: BudgetPause


@dataclass(frozen=True, slots=True)
class ToolActivity:
    """A tool call started, progressed, finished or failed."""

    thread_id: str
    call_id: str
    tool: str
    status: Literal["started", "progress", "finished", "error"]
    message: str = ""


@dataclass(frozen=True, slots=True)
class Retrying:
    """The provider failed for now and will be asked again after ``delay`` seconds."""

    thread_id: str
    provider: str
    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True, slots=True)
class ModelStatus:
    """A model is loading, ready or failed to load (``progress`` from 0 to 1 when known)."""

    spec: str
    state: Literal["loading", "ready", "failed"]
    progress: float | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Problem:
    """Something went wrong: ``text`` says what, ``remedies`` what the user can do."""

    kind: ProblemKind
    text: str
    thread_id: str | None = None
    remedies: tuple[Remedy, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class ToolsChanged:
    """The tools on offer changed (a server started, failed or was reconfigured).
    ``problems`` holds, by server name, why each failed server is not running."""

    problems: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    """The user's settings were saved: ``before`` is what they were, ``after`` what they are."""

    before: AppSettings
    after: AppSettings


@dataclass(frozen=True, slots=True)
class KeysChanged:
    """An API key was set or deleted: models that read one are built again."""

    ref: str


@dataclass(frozen=True, slots=True)
class KnowledgeProgress:
    """How a knowledge folder's indexing stands: files and bytes read of those to read,
    the file being read (its path inside the folder) and ``state``: ``indexing``, then
    ``done``, ``cancelled`` or ``failed`` (``error`` says why). While passages of files read
    before are given vectors (search by meaning), ``passages_total`` is how many and
    ``passages_done`` how many have one so far."""

    folder: str
    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    current: str = ""
    state: Literal["indexing", "done", "cancelled", "failed"] = "indexing"
    error: str | None = None
    passages_done: int = 0
    passages_total: int = 0


@dataclass(frozen=True, slots=True)
class KnowledgeChanged:
    """The knowledge folders changed: one added, removed or synced (``folder``), or all."""

    folder: str | None = None


@dataclass(frozen=True, slots=True)
class MemoriesChanged:
    """The memories changed: one added, edited, pinned, used or forgotten (``memory_id``),
    or several at once (``None``: an agent's forgotten, a file imported)."""

    memory_id: str | None = None


WorkspaceEvent = (
    ThreadsChanged
    | MessageAdded
    | MessageStreamed
    | MessageRemoved
    | RunStatusChanged
    | ApprovalNeeded
    | BudgetUpdated
    | BudgetPaused
    | ToolActivity
    | Retrying
    | ModelStatus
    | Problem
    | ToolsChanged
    | SettingsChanged
    | KeysChanged
    | AgentsChanged
    | KnowledgeProgress
    | KnowledgeChanged
    | MemoriesChanged
)
"""Every event a service emits."""
