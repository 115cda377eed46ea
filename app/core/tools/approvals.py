"""Approvals: the human in the loop for sensitive tool calls.

A :class:`ToolNode` that meets calls needing approval pauses the run with one
``interrupt(payload)`` for the whole batch. The payload (``ApprovalPayload`` as JSON)::

    {"kind": "tool_approval",
     "requests": [{"call_id": "c1", "tool": "update_ticket", "description": "...",
                   "permissions": ["crm:write"], "args": {"ticket_id": "T-42"},
                   "fingerprint": "<sha256 of the canonical JSON of args>",
                   "thread_id": "t1", "note": ""}]}

A tool built with ``approval_preview=`` adds what the call would do to its request, for the
dialog to show beside the arguments, e.g. ``"preview": {"format": "diff", "title": "notes.txt",
"text": "--- a/notes.txt\n+++ b/notes.txt\n..."}``. Requests without one have no such key.

The run resumes with an answer (``ApprovalAnswer`` as JSON)::

    {"decisions": [{"call_id": "c1", "decision": "approve"},
                   {"call_id": "c2", "decision": "deny", "reason": "wrong ticket"},
                   {"call_id": "c3", "decision": "edit", "args": {"ticket_id": "T-43"}},
                   {"call_id": "c4", "decision": "always", "scope": "tool"}]}

A bare list of decisions, or ``{call_id: "approve" | {...}}``, is accepted too. A call without
a decision is denied. ``always`` approves the call and remembers the rule through the
:class:`ApprovalPolicy` (``scope="thread"``: in this thread, for the agent making the call
only; ``"tool"``: everywhere, for every agent;
``"argument"``: the decision's ``rule``, an :class:`~app.core.tools.argument_rules.ArgumentRule`
such as "write_file inside ~/notes", kept only when the call shown falls inside it).

Front ends ask through one seam: an :class:`ApprovalHandler` (the window's dialog, the
terminal's prompt) gets the typed requests and returns typed decisions, and
:func:`answer_requests` binds them into the typed :class:`ApprovalAnswer` the run resumes
with. The JSON above is only how a pause and its answer are kept in the checkpoint.

What a person approves is what runs. :func:`answer_requests` binds each decision to the
request that was shown (its ``tool``, ``thread_id`` and the fingerprint of the ``args`` shown,
computed again rather than trusted). Just before the calls run, the tool node compares a bound
decision with the call it would run; when the tool, the thread or the arguments differ (a
hand-edited, imported or forked state), the call does not run and is put to the person again
with its real arguments and a ``note`` saying why. A decision without a ``fingerprint`` (a
program resuming with ``{"c1": "approve"}``) is taken as given for ``call_id``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from app.core.tools.argument_rules import ArgumentRule, RuleSpec

__all__ = [
    "APPROVAL_KIND",
    "ApprovalAnswer",
    "ApprovalDecision",
    "ApprovalHandler",
    "ApprovalPayload",
    "ApprovalPolicy",
    "ApprovalPreview",
    "ApprovalRequest",
    "AuditEntry",
    "DecisionPostponed",
    "answer_approvals",
    "answer_requests",
    "args_fingerprint",
    "bind_decision",
    "parse_answer",
    "requests_of",
]

APPROVAL_KIND: Literal["tool_approval"] = "tool_approval"
"""The ``kind`` of an interrupt payload that asks for tool approvals."""

Decision = Literal["approve", "deny", "edit", "always"]
Scope = Literal["thread", "tool", "argument"]


_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
)
"""Writes the canonical JSON (made once: ``json.dumps`` with options makes one per call)."""


def args_fingerprint(args: Any) -> str:
    """Return the sha256 of the canonical JSON of ``args`` (sorted keys, no spaces)."""
    return hashlib.sha256(_CANONICAL.encode(args).encode()).hexdigest()


class ApprovalPreview(BaseModel):
    """What a call would do, shown with its approval request: plain text or a unified diff.

    ``title`` names the thing affected (a file, a URL); ``truncated`` says ``text`` was cut.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    format: Literal["text", "diff"] = "text"
    title: str = ""
    text: str
    truncated: bool = False


class ApprovalRequest(BaseModel):
    """One tool call waiting for a person's decision; ``args`` are exactly what will run.

    ``preview`` is present only for tools that describe their effect before running.
    ``agent`` is the delegate agent whose call it is and ``asked_by`` the agent that asked it
    (both ``None`` for a call of the thread's own agent).
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    call_id: str
    tool: str
    description: str = ""
    permissions: list[str] = Field(default_factory=list)
    args: dict[str, JsonValue] = Field(default_factory=dict)
    fingerprint: str = ""
    thread_id: str | None = None
    note: str = ""
    preview: ApprovalPreview | None = None
    agent: str | None = None
    asked_by: str | None = None


class ApprovalDecision(BaseModel):
    """A person's decision on one call.

    ``reason`` (for ``deny``) is shown to the model; ``args`` (for ``edit``) replace the
    call's arguments and are validated again; ``scope`` (for ``always``) says how far the rule
    reaches, and ``rule`` is the rule an ``argument``-scoped one keeps.
    ``tool``, ``thread_id`` and ``fingerprint`` say which request the person saw
    (set by :func:`answer_approvals`); a decision that carries them holds only for that call.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    call_id: str
    decision: Decision
    reason: str | None = None
    args: dict[str, JsonValue] | None = None
    scope: Scope = "thread"
    rule: ArgumentRule | None = None
    tool: str | None = None
    thread_id: str | None = None
    fingerprint: str | None = None


class ApprovalPayload(BaseModel):
    """What a run asks when it pauses for approvals: every pending call of one message."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    kind: Literal["tool_approval"] = APPROVAL_KIND
    requests: list[ApprovalRequest]


class ApprovalAnswer(BaseModel):
    """The answer that resumes the run: one decision per call id."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    decisions: list[ApprovalDecision]


class DecisionPostponed(Exception):
    """Raised by an :class:`ApprovalHandler` whose person closed the question without deciding:
    nothing is answered and the run stays paused, to be asked again later."""


@runtime_checkable
class ApprovalHandler(Protocol):
    """Something that asks a person and returns their decisions: each front end (the window's
    dialog, the terminal's prompt, a server, a scheduler) implements it, and
    :func:`answer_requests` binds what it returns to the requests shown."""

    async def decide(self, requests: Sequence[ApprovalRequest]) -> list[ApprovalDecision]:
        """Return one decision per request (missing ones count as ``deny``); raise
        :class:`DecisionPostponed` to decide nothing now."""
        ...


class AuditEntry(BaseModel):
    """One line of the approval audit log. Holds no argument values and no secrets.

    ``event`` is ``requested`` (a call was put to a person), ``decided`` (their answer) or
    ``allowed_by_rule`` (an earlier ``always`` let the call run unasked); ``rule`` says in
    words which rule allowed it or was made ("write_file inside ~/notes").
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    time: float = Field(default_factory=time.time)
    thread_id: str | None
    tool: str
    call_id: str
    fingerprint: str
    event: Literal["requested", "decided", "allowed_by_rule"]
    decision: Decision | None = None
    scope: Literal["call", "thread", "tool"] | None = None
    reason: str | None = None
    edited_fingerprint: str | None = None
    rule: str | None = None


class ApprovalPolicy(Protocol):
    """Remembers "always allow" rules and keeps the audit log (SQLite in the app).

    Methods may return plain values or awaitables; the tool node awaits what needs awaiting.
    ``thread_id=None`` in :meth:`allow` / :meth:`revoke` means "in every thread". ``agent`` is
    the delegate agent making a call (``""``: the thread's own agent): a rule for one thread
    covers only the agent it was made for; a rule for every thread covers every agent.
    """

    def is_allowed(
        self, tool: str, thread_id: str | None, agent: str = ""
    ) -> bool | Awaitable[bool]:
        """Whether ``tool`` may run without asking in ``thread_id`` when ``agent`` calls it."""
        ...

    def allow(self, tool: str, thread_id: str | None, agent: str = "") -> Awaitable[None] | None:
        """Let ``tool`` run without asking in ``thread_id`` for ``agent`` (``thread_id=None``:
        everywhere, for every agent)."""
        ...

    def revoke(self, tool: str, thread_id: str | None, agent: str = "") -> Awaitable[None] | None:
        """Remove a rule made by :meth:`allow` with the same arguments."""
        ...

    def record(self, entry: AuditEntry) -> Awaitable[None] | None:
        """Append ``entry`` to the audit log."""
        ...

    def matching_rule(
        self,
        tool: str,
        args: Mapping[str, JsonValue],
        thread_id: str | None,
        agent: str = "",
        spec: RuleSpec | None = None,
    ) -> ArgumentRule | Awaitable[ArgumentRule | None] | None:
        """The argument-scoped rule that lets this call (its real arguments) run unasked;
        ``agent`` is the delegate agent making the call (``""``: the thread's own agent) and
        ``spec`` what the tool declares about its deciding argument."""
        ...

    def allow_rule(self, rule: ArgumentRule) -> Awaitable[None] | None:
        """Keep ``rule``: calls inside it run without asking."""
        ...


def requests_of(value: JsonValue) -> list[ApprovalRequest] | None:
    """Return the requests of an interrupt's saved value (its JSON in the checkpoint), or
    ``None`` if it is not an approval. Only the checkpoint boundary needs this: a run that
    pauses reports its requests typed (``ApprovalNeeded``)."""
    if not isinstance(value, dict) or value.get("kind") != APPROVAL_KIND:
        return None
    try:
        return ApprovalPayload.model_validate(value).requests
    except ValidationError:
        return None


def _decision_of(call_id: str, item: Any) -> ApprovalDecision:
    if isinstance(item, str):
        return ApprovalDecision.model_validate({"call_id": call_id, "decision": item})
    return ApprovalDecision.model_validate({**item, "call_id": call_id})


def parse_answer(value: JsonValue) -> dict[str, ApprovalDecision]:
    """Read a saved resume answer (the JSON of an :class:`ApprovalAnswer`, or one of the older
    shapes above) into ``{call_id: decision}``; raises ``ValueError`` if unreadable."""
    try:
        if isinstance(value, dict) and "decisions" in value:
            items = ApprovalAnswer.model_validate(value).decisions
        elif isinstance(value, list):
            items = [ApprovalDecision.model_validate(v) for v in value]
        elif isinstance(value, dict):
            items = [_decision_of(str(k), v) for k, v in value.items()]
        else:
            raise ValueError(
                f"an approval answer must be an object or a list, not {type(value).__name__}"
            )
    except ValidationError as exc:
        raise ValueError(f"the approval answer is malformed: {exc.errors()[0]['msg']}") from None
    return {d.call_id: d for d in items}


def bind_decision(decision: ApprovalDecision, request: ApprovalRequest) -> ApprovalDecision:
    """Tie ``decision`` to what ``request`` showed: its tool, its thread and the fingerprint of
    its ``args`` (computed from them, not copied from the request)."""
    return decision.model_copy(
        update={
            "tool": request.tool,
            "thread_id": request.thread_id,
            "fingerprint": args_fingerprint(request.args),
        }
    )


async def answer_approvals(handler: ApprovalHandler, value: JsonValue) -> JsonValue:
    """Ask ``handler`` about an approval interrupt's saved value; return the answer as it is
    saved (JSON), for code that resumes a graph by hand (see :func:`answer_requests`)."""
    requests = requests_of(value)
    if requests is None:
        raise ValueError("this interrupt does not ask for tool approvals")
    return (await answer_requests(handler, requests)).model_dump(mode="json")


async def answer_requests(
    handler: ApprovalHandler, requests: Sequence[ApprovalRequest]
) -> ApprovalAnswer:
    """Ask ``handler`` about ``requests`` (one pause's calls) and return the answer to resume
    with: the one binding of every front end. Each decision is bound to the request it answers
    (see :func:`bind_decision`); a decision for a call that was not asked about is dropped, so
    that call is denied. :class:`DecisionPostponed` from the handler goes through."""
    shown = {r.call_id: r for r in requests}
    decisions = await handler.decide(requests)
    bound = [bind_decision(d, shown[d.call_id]) for d in decisions if d.call_id in shown]
    return ApprovalAnswer(decisions=bound)
