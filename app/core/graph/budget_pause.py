"""Budget pauses: when the next call would go over a limit, the run asks instead of ending.

A node calls :func:`pause_for_budget` before a model call or a batch of tool calls that its
budget does not allow. With ``budget_pause`` set in the run config, the run pauses with a
:class:`BudgetPause` question (an interrupt, saved like an approval, so it survives a restart);
without it the caller ends the turn as before. The answer is a :class:`BudgetAnswer`: raise the
limit *to* a new value for this run, or stop. Raising to an absolute value keeps the answer
safe to apply again when the node runs again after a later pause.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from app.core.graph.context import RunContext, interrupt

__all__ = [
    "BUDGET_PAUSE",
    "BudgetAnswer",
    "BudgetPause",
    "budget_pause_of",
    "pause_for_budget",
    "suggested_raise",
]

BUDGET_PAUSE = "budget_pause"
"""The ``type`` of a budget pause's interrupt value."""


class BudgetPause(BaseModel):
    """The question a budget pause asks: ``limit`` (a :data:`~app.core.budget.LIMIT_NAMES`
    name) is at ``value`` and ``used`` of it is spent; the next step needs ``needed`` more."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    type: Literal["budget_pause"] = "budget_pause"
    limit: str
    value: float
    used: float
    needed: float = 1
    suggested_to: float
    text: str
    agent: str | None = None
    asked_by: str | None = None


class BudgetAnswer(BaseModel):
    """The answer to a :class:`BudgetPause`: ``raise`` the limit to ``to``, or ``stop``."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    decision: Literal["raise", "stop"]
    limit: str | None = None
    to: float | None = Field(default=None, gt=0)


def budget_pause_of(value: JsonValue) -> BudgetPause | None:
    """The budget pause an interrupt value holds, or ``None`` when it is something else."""
    if not isinstance(value, dict) or value.get("type") != BUDGET_PAUSE:
        return None
    try:
        return BudgetPause.model_validate(value)
    except ValidationError:
        return None


def suggested_raise(limit: str, value: float, needed: float = 1) -> float:
    """A sensible new limit: half as much again (at least what the next step needs, and at
    least 1 more call or 1,000 more tokens)."""
    if limit == "max_cost":
        return round(value + max(value / 2, 0.01), 4)
    floor = 1000 if limit == "max_tokens" else 1
    return float(int(value + max(value // 2, needed, floor)))


def _used(ctx: RunContext, limit: str) -> float:
    usage = ctx.budget.usage
    return float(
        {
            "max_model_calls": usage.model_calls,
            "max_tool_calls": usage.tool_calls,
            "max_tokens": usage.tokens,
            "max_cost": usage.cost,
        }[limit]
    )


def _answered(ctx: RunContext) -> bool:
    saved = ctx.saved_answer()
    return isinstance(saved, dict) and saved.get("decision") in ("raise", "stop")


def pause_for_budget(ctx: RunContext, limit: str | None, needed: float = 1) -> bool:
    """Ask whether to raise ``limit`` for this run; return True when the step may go on.

    ``limit`` is the limit the step would go over, or ``None`` when it fits: then an answer
    saved at this point (the limit was raised before a later pause) is still taken, so the
    node's later questions keep their places. Returns False at once when the run config does
    not ask for budget pauses, and when the person chose to stop. Pauses the run (raises
    ``GraphInterrupt``) until answered."""
    if limit is None and not _answered(ctx):
        return True
    if not ctx.config.budget_pause:
        return limit is None
    question = None
    if limit is not None:
        value = float(getattr(ctx.budget.limits, limit))
        whose = f" of {ctx.agent} (asked by {ctx.agents[-2]})" if ctx.agent else ""
        question = BudgetPause(
            limit=limit,
            value=value,
            used=_used(ctx, limit),
            needed=needed,
            suggested_to=suggested_raise(limit, value, needed),
            text=f"The next step{whose} would go over {ctx.budget.describe(limit)}.",
            agent=ctx.agent or None,
            asked_by=ctx.agents[-2] if ctx.agent else None,
        )
    dumped = question.model_dump(mode="json", exclude_none=True) if question else None
    answer = interrupt(dumped)
    try:
        parsed = BudgetAnswer.model_validate(answer)
    except ValidationError:
        return limit is None
    if parsed.decision == "stop" or parsed.to is None:
        return limit is None
    name = limit or parsed.limit
    if name is not None:
        ctx.budget.raise_limit(name, parsed.to)
    return True
