"""The approval dialog and what keeps a pending approval safe in the window."""

from app.ui.approvals.controller import ApprovalController
from app.ui.approvals.dialog import DISMISSED, ToolApprovalDialog

__all__ = ["DISMISSED", "ApprovalController", "ToolApprovalDialog"]
