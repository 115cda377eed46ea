"""An in-memory :class:`ApprovalPolicy`, for tests and for runs that keep nothing."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from app.core.tools.approvals import AuditEntry
from app.core.tools.argument_rules import ArgumentRule, RuleSpec

__all__ = ["InMemoryApprovalPolicy"]


class InMemoryApprovalPolicy:
    """Keeps "always allow" rules and the audit log in memory; forgotten on exit."""

    def __init__(self, own_agent: str = "") -> None:
        self.own_agent = own_agent
        """The name of the agent whose calls are the thread's own (``""``: none named)."""
        self._rules: set[tuple[str, str | None, str]] = set()
        self.argument_rules: list[ArgumentRule] = []
        self.audit: list[AuditEntry] = []

    def is_allowed(self, tool: str, thread_id: str | None, agent: str = "") -> bool:
        """Whether a rule lets ``tool`` run unasked everywhere, or in ``thread_id`` when
        ``agent`` (a delegate; ``""``: the thread's own agent) calls it."""
        return (tool, None, "") in self._rules or (
            thread_id is not None and (tool, thread_id, agent) in self._rules
        )

    def allow(self, tool: str, thread_id: str | None, agent: str = "") -> None:
        """Let ``tool`` run unasked in ``thread_id`` for ``agent``; ``thread_id=None`` means
        every thread and every agent."""
        self._rules.add((tool, thread_id, agent if thread_id is not None else ""))

    def revoke(self, tool: str, thread_id: str | None, agent: str = "") -> None:
        """Remove the rule for ``tool`` in ``thread_id`` (``None``: the everywhere rule)."""
        self._rules.discard((tool, thread_id, agent if thread_id is not None else ""))

    def rules(self) -> list[tuple[str, str | None] | tuple[str, str | None, str]]:
        """Every rule, sorted: ``(tool, thread_id or None)``, or ``(tool, thread_id, agent)``
        for a thread's rule of a delegate agent."""
        return [
            (tool, thread, agent) if agent else (tool, thread)
            for tool, thread, agent in sorted(self._rules, key=lambda r: (r[0], r[1] or "", r[2]))
        ]

    def record(self, entry: AuditEntry) -> None:
        """Append ``entry`` to the audit log."""
        self.audit.append(entry)

    def matching_rule(
        self,
        tool: str,
        args: Mapping[str, JsonValue],
        thread_id: str | None,
        agent: str = "",
        spec: RuleSpec | None = None,
    ) -> ArgumentRule | None:
        """The first kept argument rule that allows this call, if any (``agent``: the
        delegate making it; ``""``: the thread's own agent, :attr:`own_agent`; ``spec``: the
        tool's deciding argument)."""
        who = agent or self.own_agent or None
        return next(
            (r for r in self.argument_rules if r.matches(tool, args, thread_id, who, spec)), None
        )

    def allow_rule(self, rule: ArgumentRule) -> None:
        """Keep ``rule`` (once)."""
        if rule not in self.argument_rules:
            self.argument_rules.append(rule)
