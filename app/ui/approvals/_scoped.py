"""What the approval dialog says about who asks (a delegate agent, on whose behalf) and the
argument-scoped rule it offers for the call shown ("Always allow writing inside ~/notes")."""

from __future__ import annotations

from app.core.tools import ApprovalDecision, ApprovalRequest, ArgumentRule, suggest_rule
from app.services.hidden_chars import mark_hidden

__all__ = [
    "argument_decision",
    "asker_of",
    "heading_for",
    "rule_choice",
    "rule_for",
    "scope_explained",
]

_LONGEST_NAME = 80


def _name(text: str) -> str:
    shown = mark_hidden(text)
    return shown if len(shown) <= _LONGEST_NAME else shown[: _LONGEST_NAME - 1] + "…"


def asker_of(request: ApprovalRequest) -> str:
    """Who wants the call, in words: "Parley", or "Researcher, asked by Parley"."""
    if not request.agent:
        return "Parley"
    by = f", asked by {_name(request.asked_by)}" if request.asked_by else ""
    return f"{_name(request.agent)}{by}"


def heading_for(requests: list[ApprovalRequest]) -> str:
    """The dialog's title: "Allow Parley to run a tool?", or, for a delegate's calls,
    "Researcher, asked by Parley, wants to write_file"."""
    askers = {asker_of(r) for r in requests}
    if len(askers) != 1 or not requests[0].agent:
        return (
            "Allow Parley to run a tool?"
            if len(requests) == 1
            else (f"Allow Parley to run {len(requests)} tools?")
        )
    who = askers.pop() + ("," if requests[0].asked_by else "")
    if len(requests) == 1:
        return f"{who} wants to {_name(requests[0].tool)}"
    return f"{who} wants to run {len(requests)} tools"


def rule_for(request: ApprovalRequest, own_agent: str | None = None) -> ArgumentRule | None:
    """The argument-scoped rule that fits the call shown, if one does: a rule of the agent
    making the call (the delegate, else ``own_agent``, the thread's stored agent), or of no
    agent when the thread's is the built-in one."""
    try:
        rule = suggest_rule(request.tool, request.args)
    except ValueError:
        return None
    return None if rule is None else rule.for_agent(request.agent or own_agent)


def rule_choice(rule: ArgumentRule) -> str:
    """The rule as a choice after "Always allow:": "writing inside ~/notes"."""
    return mark_hidden(rule.offer().removeprefix("Always allow "))


def argument_decision(request: ApprovalRequest, rule: ArgumentRule) -> ApprovalDecision:
    """Approve the call and keep ``rule`` for the calls that fall inside it."""
    return ApprovalDecision(call_id=request.call_id, decision="always", scope="argument", rule=rule)


def scope_explained(tool_name: str, rule: ArgumentRule | None, *, batch: bool) -> str:
    """What each "always allow" choice means, for the call shown."""
    tool = mark_hidden(tool_name)
    thread, everywhere = (
        ("Always allow in this thread", "Always allow this tool")
        if batch
        else ("In this thread", "For this tool")
    )
    scoped = (
        f"{rule_choice(rule).capitalize()}: only calls whose real arguments fall inside it "
        "run without asking. "
        if rule is not None
        else ""
    )
    return (
        f"{thread}: {tool} runs without asking again in this thread only. "
        f"{everywhere}: {tool} runs without asking in every thread, now and later. "
        f"{scoped}Each can be revoked in Settings."
    )
