"""A call in the approval dialog as the person is deciding on it, and the decisions a batch
row offers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from app.core.tools import ApprovalRequest, Tool

__all__ = ["CHOICES", "Choice", "PendingCall"]

CHOICES: list[tuple[str, str]] = [
    ("deny", "Deny"),
    ("approve", "Approve"),
    ("thread", "Always allow in this thread"),
    ("tool", "Always allow this tool"),
]
"""A batch row's decisions: (key, label)."""

Choice = Literal["deny", "approve", "thread", "tool"]


@dataclass
class PendingCall:
    """One call as the person is deciding on it."""

    request: ApprovalRequest
    tool: Tool[..., Any] | None
    choice: Choice = "deny"
    reason: str = ""
    edited: dict[str, Any] | None = None
    editing: str | None = None
    problem: str = ""
