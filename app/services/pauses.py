"""What a paused run waits on, typed: the graph's interrupts read as approvals and budget
pauses. This is where a pause saved as JSON in the checkpoint becomes typed again, whether it
comes from the run that just paused or from the store after a restart."""

from __future__ import annotations

from collections.abc import Iterable

from app.core.graph.budget_pause import budget_pause_of
from app.core.state import Interrupt
from app.core.tools import requests_of
from app.services.events import ApprovalNeeded, BudgetPaused

__all__ = ["Pause", "pauses_of"]

Pause = ApprovalNeeded | BudgetPaused
"""Something a paused thread waits on: a person's decisions, or a budget limit."""


def pauses_of(thread_id: str, interrupts: Iterable[Interrupt]) -> list[Pause]:
    """The approvals, then the budget pauses, among ``interrupts`` (others are left out)."""
    approvals: list[Pause] = []
    budgets: list[Pause] = []
    for item in interrupts:
        requests = requests_of(item.value)
        if requests is not None:
            approvals.append(ApprovalNeeded(thread_id, item.id, requests))
        elif (pause := budget_pause_of(item.value)) is not None:
            budgets.append(BudgetPaused(thread_id, item.id, pause))
    return [*approvals, *budgets]
