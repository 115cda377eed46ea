"""What the store hands back: plain, immutable records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.core.state.message import Message
from app.core.tools.argument_rules import ArgumentRule

__all__ = [
    "AgentRecord",
    "AllowRule",
    "ApprovalDecision",
    "ApprovalRecord",
    "ApprovalScope",
    "Branch",
    "ImportedThread",
    "MediaBlob",
    "MemoryRecord",
    "MessagePage",
    "SearchHit",
    "StoredArgumentRule",
    "Thread",
    "ThreadOverview",
]

ApprovalDecision = Literal["requested", "approve", "deny", "edit", "always", "allowed_by_rule"]
"""An audit entry: a request put to a person, their decision, or a run allowed by a rule."""
ApprovalScope = Literal["once", "thread", "tool"]


@dataclass(frozen=True, slots=True)
class Thread:
    """A conversation as the sidebar lists it."""

    id: str
    title: str
    created_at: float
    updated_at: float
    model: str | None = None
    system_prompt: str | None = None
    archived: bool = False
    message_count: int = 0
    pending_interrupts: int = 0
    head_checkpoint_id: str | None = None
    agent_id: str = "parley"
    origin: str = ""
    """Where the thread was started when not in the window: ``api`` through the server."""


@dataclass(frozen=True, slots=True)
class Branch:
    """One alternative at a message of a thread (an edited question, a regenerated answer):
    the path from its first message ``message_id`` on. The alternatives of one message follow
    the same ``parent_id`` (``None`` at the thread's start)."""

    number: int
    """Its number in the thread's tree, from 1, depth first."""
    index: int
    """Its place among the alternatives of its message, from 1."""
    count: int
    """How many alternatives its message has."""
    parent_id: str | int | None
    message_id: str | int
    at: int
    """Where its first message stands on the path, from 1."""
    depth: int
    """0 for a message every path holds, 1 inside another alternative, and so on."""
    line: str
    """The first line of its first message."""
    shown: bool
    """Whether it is on the path the thread shows now."""
    length: int
    """How many messages its path holds where it was last shown."""
    created_at: float
    name: str = ""


@dataclass(frozen=True, slots=True)
class AgentRecord:
    """An agent as saved: what it is told, which model and tools it uses, whom it may ask,
    its limits and starter prompts. ``model`` ``None`` means the thread's model; ``limits``
    maps ``max_model_calls``, ``max_tool_calls``, ``max_tokens``, ``max_cost`` to a number."""

    id: str
    name: str
    description: str = ""
    instructions: str = ""
    model: str | None = None
    tools: tuple[str, ...] = ()
    delegates: tuple[str, ...] = ()
    limits: tuple[tuple[str, float], ...] = ()
    starters: tuple[str, ...] = ()
    builtin: bool = False
    created_at: float = 0.0
    updated_at: float = 0.0


@dataclass(frozen=True, slots=True)
class ImportedThread(Thread):
    """A thread just made from an export, with a sentence for each thing the import left out
    or changed (media that pointed outside the export, a model the user never set up)."""

    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One message matching a full-text search; ``snippet`` marks the matched words."""

    thread_id: str
    thread_title: str
    message_id: str | int
    role: str
    snippet: str
    rank: float
    branch: int | None = None
    """The branch the message is on when the thread does not show it now (its number as
    :meth:`Store.branches` numbers them); ``None`` on the path shown."""


@dataclass(frozen=True, slots=True)
class MediaBlob:
    """Bytes of one stored media file, addressed by their SHA-256."""

    sha256: str
    mime_type: str
    data: bytes


@dataclass(frozen=True, slots=True)
class ApprovalRecord:
    """One decision taken on a tool call, as written in the audit log."""

    id: int
    time: float
    thread_id: str | None
    tool: str
    args_fingerprint: str
    decision: ApprovalDecision
    scope: ApprovalScope
    reason: str | None
    rule: str | None = None
    """The rule that let the call run unasked, or that the decision made, in words."""


@dataclass(frozen=True, slots=True)
class AllowRule:
    """An "always allow" rule: ``tool`` runs without asking, in ``thread_id`` or everywhere
    (``thread_id`` is ``None``); a thread's rule only when ``agent`` calls it (a delegate's
    name; ``""``: the thread's own agent)."""

    id: int
    tool: str
    thread_id: str | None
    created_at: float
    agent: str = ""


@dataclass(frozen=True, slots=True)
class StoredArgumentRule:
    """An argument-scoped "always allow" rule as kept: its row id, the rule, when made, and
    the id of the agent it belongs to (``None``: every agent's calls)."""

    id: int
    rule: ArgumentRule
    created_at: float
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class MessagePage:
    """A run of a thread's messages, oldest first; ``first_position`` is where the next older
    page ends (pass it as ``before``), ``has_more`` whether older messages exist."""

    messages: list[Message]
    first_position: int | None
    has_more: bool


@dataclass(frozen=True, slots=True)
class ThreadOverview:
    """What the sidebar shows besides the title: the last message's line and how the last
    run stands (``idle``, ``running`` when it was cut off, ``interrupted`` when paused)."""

    last_line: str
    run_status: str


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One memory as kept: its text, the agent it is for (``agent_id``; ``None``: everyone,
    "about me"), where it came from (a thread's message; both ``None``: added by the person),
    when it was made and last put before a model (``None``: never), pinned (always used) and
    local only (never put before a model on another computer)."""

    id: str
    text: str
    agent_id: str | None = None
    thread_id: str | None = None
    message_id: str | None = None
    made_at: float = 0.0
    last_used_at: float | None = None
    pinned: bool = False
    local_only: bool = False

    @property
    def short_id(self) -> str:
        """The first characters of the id, enough to name it in the terminal."""
        return self.id[:8]
