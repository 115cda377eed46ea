"""The approval step of a tool node: one interrupt for every call that needs a person.

The node re-runs from its start when the run resumes, so nothing before the ``interrupt`` has
side effects: checks only. ``requested`` audit entries are written when the run actually pauses,
so a resume does not write them twice.

A decision bound to the request a person saw (tool, thread, argument fingerprint) is compared
with the call that would run. A call that differs is not run: it is put to the person again in
a further ``interrupt`` (the node's next one, so earlier answers still resume in order), and
the audit log records the refusal.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Mapping
from typing import Any, Literal, TypeVar

from app.core.graph.context import GraphInterrupt, RunContext, interrupt
from app.core.tools._pipeline import Failure, Outcome, Prepared, ToolAuthorize, authorize, validate
from app.core.tools.approvals import (
    ApprovalDecision,
    ApprovalPayload,
    ApprovalPolicy,
    ApprovalPreview,
    ApprovalRequest,
    AuditEntry,
    args_fingerprint,
    parse_answer,
)
from app.core.tools.argument_rules import ArgumentRule
from app.core.tools.runtime import Runtime
from app.core.tools.tool import ToolError

T = TypeVar("T")


async def _maybe(value: T | Awaitable[T]) -> T:
    # a policy in memory answers with plain values, for which isawaitable is slow
    if value is not None and type(value) is not bool and inspect.isawaitable(value):
        return await value
    return value


ASKED_AGAIN = (
    "Asked again: the call that would run is not the one you were shown ({why}). "
    "These are its real arguments."
)


MAX_PREVIEW_CHARS = 100_000
"""A preview longer than this is cut (and marked ``truncated``) before it enters the payload."""


async def _preview(item: Prepared) -> ApprovalPreview | Failure | None:
    """The call's preview; a :class:`ToolError` from it refuses the call before asking."""
    make = item.tool.approval_preview
    if make is None:
        return None
    try:
        if inspect.iscoroutinefunction(make):
            made = await make(item.args)
        else:
            made = await asyncio.to_thread(make, item.args)
            if inspect.isawaitable(made):
                made = await made
    except ToolError as exc:
        return Failure(item.call, "error", f"Tool {item.tool.name!r} failed: {exc}")
    except Exception as exc:  # a preview is a courtesy: its failure never blocks the request
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return ApprovalPreview(text=f"No preview could be made ({detail}).")
    if made is None:
        return None
    preview = made if isinstance(made, ApprovalPreview) else ApprovalPreview(text=str(made))
    if len(preview.text) > MAX_PREVIEW_CHARS:
        cut = preview.text[:MAX_PREVIEW_CHARS]
        preview = preview.model_copy(update={"text": cut, "truncated": True})
    return preview


def _request(
    item: Prepared,
    ctx: RunContext,
    note: str,
    preview: ApprovalPreview | None,
) -> ApprovalRequest:
    agent = ctx.agent or None
    return ApprovalRequest(
        call_id=item.call.id,
        tool=item.tool.name,
        description=item.tool.description,
        permissions=list(item.tool.permissions),
        args=item.json_args,
        fingerprint=args_fingerprint(item.json_args),
        thread_id=ctx.thread_id,
        note=note,
        preview=preview,
        agent=agent,
        asked_by=ctx.agents[-2] if agent else None,
    )


def _mismatch(
    decision: ApprovalDecision, item: Prepared, thread_id: str | None, fresh: bool
) -> str | None:
    """Why ``decision`` does not hold for the call ``item`` would run, or ``None`` if it does.

    A denial always holds. A decision bound to no request (a program resuming with
    ``{"c1": "approve"}``) holds only when it was given to start this run: one saved before
    (or carried in an imported or edited state) does not say which call it approved."""
    if decision.decision == "deny":
        return None
    if decision.fingerprint is None:
        return None if fresh else "the saved answer does not say which call it approved"
    why = []
    if decision.tool != item.tool.name:
        why.append(
            f"it was shown as a call to {decision.tool!r}, but the call is to {item.tool.name!r}"
        )
    if decision.fingerprint != args_fingerprint(item.json_args):
        why.append("its arguments differ from the ones shown")
    if decision.thread_id != thread_id:
        why.append("it was shown for another thread")
    return "; ".join(why) or None


def _audit(
    item: Prepared,
    thread_id: str | None,
    event: Literal["requested", "decided", "allowed_by_rule"],
    **fields: Any,
) -> AuditEntry:
    return AuditEntry(
        thread_id=thread_id,
        tool=item.tool.name,
        call_id=item.call.id,
        fingerprint=args_fingerprint(item.json_args),
        event=event,
        **fields,
    )


def _fits(rule: ArgumentRule, item: Prepared, ctx: RunContext) -> bool:
    """Whether the rule a person chose holds the call: its real arguments fall inside it (as
    the tool declares its deciding argument), and a rule kept from a delegate's call belongs
    to that delegate or to no agent."""
    if ctx.agent and rule.agent not in (None, ctx.agent):
        return False
    return rule.matches(item.tool.name, item.json_args, ctx.thread_id, rule.agent, item.tool.rule)


async def _apply(
    item: Prepared,
    decision: ApprovalDecision,
    policy: ApprovalPolicy,
    check: ToolAuthorize | None,
    ctx: RunContext,
) -> Outcome:
    tool, call = item.tool, item.call
    if decision.decision == "deny":
        why = f": {decision.reason}" if decision.reason else "."
        return Failure(call, "denied", f"The user denied this call to {tool.name!r}{why}")
    if decision.decision == "always" and decision.scope == "argument":
        rule = decision.rule
        if rule is not None and _fits(rule, item, ctx):
            await _maybe(policy.allow_rule(rule))
    elif decision.decision == "always" and decision.scope == "thread":
        # in this thread, for the agent that asked only (a delegate, or the thread's own)
        await _maybe(policy.allow(tool.name, ctx.thread_id, agent=ctx.agent))
    elif decision.decision == "always":
        await _maybe(policy.allow(tool.name, None))
    if decision.decision != "edit" or decision.args is None:
        return item
    edited = call.model_copy(update={"args": dict(decision.args)})
    refused = await authorize(check, tool, edited, Runtime.for_call(call.id, tool.name, ctx))
    if refused:
        return refused
    outcome = validate(tool, edited, decision.args)
    if isinstance(outcome, Failure):
        return Failure(
            call, outcome.code, f"The user's edited arguments were rejected. {outcome.message}"
        )
    assert isinstance(outcome, Prepared)
    return Prepared(
        outcome.call,
        tool,
        outcome.args,
        outcome.json_args,
        {"approval": "edited", "edited_args": outcome.json_args},
    )


async def approve(
    outcomes: list[Outcome],
    ctx: RunContext | None,
    policy: ApprovalPolicy,
    check: ToolAuthorize | None,
) -> list[Outcome]:
    """Ask once for every call that needs approval and apply the decisions; the calls whose
    decision does not hold for them (see :func:`_mismatch`) are asked about again."""
    thread_id = ctx.thread_id if ctx else None
    agent = ctx.agent if ctx else ""
    pending: dict[int, Prepared] = {}
    for i, item in enumerate(outcomes):
        if not isinstance(item, Prepared) or not item.tool.requires_approval:
            continue
        if await _maybe(policy.is_allowed(item.tool.name, thread_id, agent=agent)):
            await _maybe(policy.record(_audit(item, thread_id, "allowed_by_rule")))
        elif rule := await _maybe(
            policy.matching_rule(item.tool.name, item.json_args, thread_id, agent, item.tool.rule)
        ):
            entry = _audit(item, thread_id, "allowed_by_rule", rule=rule.describe())
            await _maybe(policy.record(entry))
        else:
            pending[i] = item
    if not pending:
        return outcomes
    result = list(outcomes)
    previews: dict[int, ApprovalPreview | None] = {}
    for i, item in list(pending.items()):
        preview = await _preview(item)
        if isinstance(preview, Failure):
            result[i] = preview
            del pending[i]
        else:
            previews[i] = preview
    if not pending:
        return result
    if ctx is None:
        for i, item in pending.items():
            result[i] = Failure(
                item.call,
                "approval_unavailable",
                f"Tool {item.tool.name!r} needs the user's approval, which cannot be asked "
                "outside a graph run.",
            )
        return result
    asked, note = pending, ""
    unrecorded: list[AuditEntry] = []
    while True:
        payload = ApprovalPayload(
            requests=[_request(p, ctx, note, previews.get(i)) for i, p in asked.items()]
        )
        try:
            # a request without a preview has no "preview" key, as before previews existed
            answer = interrupt(payload.model_dump(mode="json", exclude_none=True))
        except GraphInterrupt:
            # the run pauses here for the first time: what led to this question is new too
            for entry in unrecorded:
                await _maybe(policy.record(entry))
            for item in asked.values():
                await _maybe(policy.record(_audit(item, thread_id, "requested")))
            raise
        # an answered question: the entries before it were recorded when the run paused on it
        unrecorded = []
        fresh = ctx.answered_now()
        try:
            decisions: Mapping[str, ApprovalDecision] = parse_answer(answer)
            unread = ""
        except ValueError as exc:
            decisions, unread = {}, str(exc)
        again: dict[int, Prepared] = {}
        reasons: list[str] = []
        for i, item in asked.items():
            decision = decisions.get(item.call.id) or ApprovalDecision(
                call_id=item.call.id,
                decision="deny",
                reason=unread or "no decision was given for this call",
            )
            why = _mismatch(decision, item, thread_id, fresh)
            if why is not None:
                again[i] = item
                reasons.append(why)
                unrecorded.append(
                    _audit(
                        item,
                        thread_id,
                        "decided",
                        decision="deny",
                        scope="call",
                        reason=f"not run and asked again: {why}",
                    )
                )
                continue
            outcome = await _apply(item, decision, policy, check, ctx)
            result[i] = outcome
            unrecorded.append(_decided(item, decision, outcome, thread_id))
        if not again:
            for entry in unrecorded:
                await _maybe(policy.record(entry))
            return result
        asked, note = again, ASKED_AGAIN.format(why="; ".join(dict.fromkeys(reasons)))


def _decided(
    item: Prepared, decision: ApprovalDecision, outcome: Outcome, thread_id: str | None
) -> AuditEntry:
    edited = outcome.json_args if isinstance(outcome, Prepared) and outcome is not item else None
    rule = decision.rule if decision.decision == "always" and decision.scope == "argument" else None
    return _audit(
        item,
        thread_id,
        "decided",
        decision=decision.decision,
        scope=_audit_scope(decision),
        reason=decision.reason,
        edited_fingerprint=args_fingerprint(edited) if edited is not None else None,
        rule=rule.describe() if rule is not None else None,
    )


def _audit_scope(decision: ApprovalDecision) -> Literal["call", "thread", "tool"]:
    """How far a decision reaches, as the audit log says it (an argument rule is the tool's,
    narrowed by the rule the entry names)."""
    if decision.decision != "always":
        return "call"
    return "thread" if decision.scope == "thread" else "tool"
