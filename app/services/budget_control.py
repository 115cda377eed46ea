"""Budget pauses as the workspace reports and answers them."""

from __future__ import annotations

from typing import Any

from app.core.errors import UserError
from app.core.graph.budget_pause import BudgetAnswer
from app.services.events import BudgetPaused

__all__ = ["budget_answer"]


def budget_answer(
    pending: list[BudgetPaused], interrupt_id: str, raise_to: float | None
) -> dict[str, Any]:
    """The answer that raises the paused limit to ``raise_to`` (or stops, for ``None``);
    refuses a raise that would not let the run go on."""
    found = next((p for p in pending if p.interrupt_id == interrupt_id), None)
    if found is None:
        raise UserError("this thread is no longer waiting at that budget limit")
    if raise_to is None:
        return BudgetAnswer(decision="stop").model_dump(mode="json", exclude_none=True)
    pause = found.pause
    if raise_to < pause.used + pause.needed and pause.limit != "max_cost":
        raise UserError(
            f"the new limit must be at least {pause.used + pause.needed:g} for the run to go on"
        )
    if pause.limit == "max_cost" and raise_to <= pause.used:
        raise UserError(f"the new limit must be more than the ${pause.used:.4f} already spent")
    if raise_to <= pause.value:
        raise UserError(f"the new limit must be more than the current one ({pause.value:g})")
    return BudgetAnswer(decision="raise", limit=pause.limit, to=raise_to).model_dump(
        mode="json", exclude_none=True
    )
