"""What the approval dialog says about who asks (the thread's agent, or a delegate on whose
behalf), which agents each "always allow" choice covers, and the argument-scoped rule it
offers for the call shown ("Always allow writing inside ~/notes") with the arguments that
rule leaves unchecked."""

from __future__ import annotations

from app.core.tools import (
    ApprovalDecision,
    ApprovalRequest,
    ArgumentRule,
    RuleSpec,
    free_arguments,
    suggest_rule,
)
from app.text.hidden_chars import mark_hidden

__all__ = [
    "argument_decision",
    "asker_of",
    "callers_of",
    "heading_for",
    "rule_choice",
    "rule_for",
    "scope_explained",
]

_LONGEST_NAME = 80
_BUILT_IN = "Parley"


def _name(text: str) -> str:
    shown = mark_hidden(text)
    return shown if len(shown) <= _LONGEST_NAME else shown[: _LONGEST_NAME - 1] + "…"


def _own(own_agent: str | None) -> str:
    return _name(own_agent) if own_agent else _BUILT_IN


def _caller(request: ApprovalRequest, own_agent: str | None) -> str:
    """The agent making the call: the delegate, else the thread's own agent."""
    return _name(request.agent) if request.agent else _own(own_agent)


def asker_of(request: ApprovalRequest, own_agent: str | None = None) -> str:
    """Who wants the call, in words: the thread's agent ("Parley", "Writer"), or a delegate
    and who asked it ("Researcher, asked by Writer")."""
    if not request.agent:
        return _own(own_agent)
    by = f", asked by {_name(request.asked_by)}" if request.asked_by else ""
    return f"{_name(request.agent)}{by}"


def callers_of(requests: list[ApprovalRequest], own_agent: str | None = None) -> list[str]:
    """The agent making each call: its delegate, else the thread's own agent."""
    return [_caller(r, own_agent) for r in requests]


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def heading_for(requests: list[ApprovalRequest], own_agent: str | None = None) -> str:
    """The dialog's title, naming who asks: "Allow Writer to run a tool?" for the thread's
    agent, "Researcher, asked by Writer, wants to write_file" for a delegate, and "Researcher
    and Checker want to run 2 tools" for a batch of several agents' calls."""
    callers = list(dict.fromkeys(callers_of(requests, own_agent)))
    many = "a tool" if len(requests) == 1 else f"{len(requests)} tools"
    if len(callers) > 1:
        return f"{_listed(callers)} want to run {many}"
    first = requests[0]
    if not first.agent:
        return f"Allow {callers[0]} to run {many}?"
    who = asker_of(first) + ("," if first.asked_by else "")
    if len(requests) == 1:
        return f"{who} wants to {_name(first.tool)}"
    return f"{who} wants to run {many}"


def rule_for(
    request: ApprovalRequest, own_agent: str | None = None, spec: RuleSpec | None = None
) -> ArgumentRule | None:
    """The argument-scoped rule that fits the call shown, if one does: on the argument the
    tool declares deciding (``spec``), else pinning every argument. It is a rule of the agent
    making the call (the delegate, else ``own_agent``, the thread's stored agent), or of no
    agent when the thread's is the built-in one."""
    try:
        rule = suggest_rule(request.tool, request.args, spec)
    except ValueError:
        return None
    return None if rule is None else rule.for_agent(request.agent or own_agent)


def rule_choice(rule: ArgumentRule, spec: RuleSpec | None = None) -> str:
    """The rule as a choice after "Always allow:": "writing inside ~/notes"."""
    return mark_hidden(rule.offer(spec).removeprefix("Always allow "))


def argument_decision(request: ApprovalRequest, rule: ArgumentRule) -> ApprovalDecision:
    """Approve the call and keep ``rule`` for the calls that fall inside it."""
    return ApprovalDecision(call_id=request.call_id, decision="always", scope="argument", rule=rule)


def _unchecked(rule: ArgumentRule, request: ApprovalRequest) -> str:
    """Which arguments ``rule`` leaves free, in a sentence."""
    free = free_arguments(rule, request.args)
    if rule.pins_every_argument:
        return "Every argument must be exactly as now."
    if not free:
        return f"The call has no argument besides {_name(rule.argument)}."
    return f"Other arguments ({', '.join(_name(n) for n in free)}) are not checked."


def scope_explained(
    request: ApprovalRequest,
    rule: ArgumentRule | None,
    spec: RuleSpec | None = None,
    own_agent: str | None = None,
    *,
    batch: bool,
) -> str:
    """What each "always allow" choice means for the call shown (``spec``: what its tool
    declares; ``own_agent``: the thread's stored agent): which calls, in which threads, of
    which agents, run without asking."""
    tool = mark_hidden(request.tool)
    caller = _caller(request, own_agent)
    thread, everywhere = (
        ("Always allow in this thread", "Always allow this tool")
        if batch
        else ("In this thread", "For this tool")
    )
    scoped = ""
    if rule is not None:
        whose = f"for {_name(rule.agent)} only" if rule.agent else "for every agent"
        scoped = (
            f"{rule_choice(rule, spec).capitalize()}: only calls whose real arguments fall "
            f"inside it run without asking, in every thread, {whose}. "
            f"{_unchecked(rule, request)} "
        )
    return (
        f"{thread}: {tool} runs without asking again in this thread only, and only when "
        f"{caller} calls it. {everywhere}: {tool} runs without asking in every thread, for every "
        f"agent, now and later. {scoped}Each can be revoked in Settings."
    )
