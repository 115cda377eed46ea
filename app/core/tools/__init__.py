"""Tools: ``@tool``, the ``Runtime`` a tool sees, secrets, approvals and ``ToolNode``.

Before a call runs: static permissions, optional ``tool_authorize``, argument validation,
approval, secret resolution, and the timeout. Every refusal reaches the model as one sentence
in an error result; the run goes on.
"""

from app.core.tools._pipeline import ToolAuthorize
from app.core.tools._redact import Redactor
from app.core.tools.approvals import (
    APPROVAL_KIND,
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalHandler,
    ApprovalPayload,
    ApprovalPolicy,
    ApprovalPreview,
    ApprovalRequest,
    AuditEntry,
    DecisionPostponed,
    answer_approvals,
    answer_requests,
    args_fingerprint,
    parse_answer,
    requests_of,
)
from app.core.tools.argument_rules import ArgumentRule, RuleSpec, free_arguments, suggest_rule
from app.core.tools.node import ToolNode, tool_message_id
from app.core.tools.policy import InMemoryApprovalPolicy
from app.core.tools.runtime import Runtime, idempotency_key
from app.core.tools.secrets import SecretError, SecretResolver, SecretSource, resolve_secret
from app.core.tools.tool import ApprovalPreviewFn, Tool, ToolError, tool

__all__ = [
    "APPROVAL_KIND",
    "ApprovalAnswer",
    "ApprovalDecision",
    "ApprovalHandler",
    "ApprovalPayload",
    "ApprovalPolicy",
    "ApprovalPreview",
    "ApprovalPreviewFn",
    "ApprovalRequest",
    "ArgumentRule",
    "AuditEntry",
    "DecisionPostponed",
    "InMemoryApprovalPolicy",
    "Redactor",
    "RuleSpec",
    "Runtime",
    "SecretError",
    "SecretResolver",
    "SecretSource",
    "Tool",
    "ToolAuthorize",
    "ToolError",
    "ToolNode",
    "answer_approvals",
    "answer_requests",
    "args_fingerprint",
    "free_arguments",
    "idempotency_key",
    "parse_answer",
    "requests_of",
    "resolve_secret",
    "suggest_rule",
    "tool",
    "tool_message_id",
]
