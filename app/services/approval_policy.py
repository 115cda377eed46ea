"""The approval policy the app uses: "always allow" rules and the audit log, in the store,
and the agents whose proposed memories are kept without asking."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from pydantic import JsonValue

from app.core.tools.approvals import AuditEntry, args_fingerprint, requests_of
from app.core.tools.argument_rules import ArgumentRule, RuleSpec
from app.store import BUILTIN_AGENT_ID, Store, StoredArgumentRule
from app.tools.memory import REMEMBER_TOOL

__all__ = ["StoreApprovalPolicy"]


class StoreApprovalPolicy:
    """An :class:`app.core.tools.ApprovalPolicy` kept in the thread database, so "always"
    decisions survive a restart and every request and decision is audited."""

    def __init__(
        self, store: Store, keep_unasked: Callable[[], Collection[str]] = frozenset
    ) -> None:
        self.store = store
        self._keep_unasked = keep_unasked
        """The ids of the agents whose ``remember`` calls run without asking (the person
        chose "Keep what agents remember without asking" for them)."""

    async def is_allowed(self, tool: str, thread_id: str | None, agent: str = "") -> bool:
        """Whether a rule lets ``tool`` run unasked in ``thread_id`` when ``agent`` (a
        delegate; ``""``: the thread's own agent) calls it; ``remember`` also runs unasked
        for an agent whose memories are kept without asking."""
        if tool == REMEMBER_TOOL and await self._keeps_unasked(thread_id, agent):
            return True
        return await self.store.is_allowed(tool, thread_id=thread_id, agent=agent)

    async def _keeps_unasked(self, thread_id: str | None, agent: str) -> bool:
        chosen = self._keep_unasked()
        if not chosen:
            return False
        if agent:
            found = await self.store.find_agent(agent)
            return found is not None and found.id in chosen
        thread = await self.store.get_thread(thread_id) if thread_id else None
        return (thread.agent_id if thread else BUILTIN_AGENT_ID) in chosen

    async def allow(self, tool: str, thread_id: str | None, agent: str = "") -> None:
        """Let ``tool`` run unasked in ``thread_id`` for ``agent`` (``thread_id=None``:
        everywhere, for every agent)."""
        await self.store.allow_always(tool, thread_id=thread_id, agent=agent)

    async def revoke(self, tool: str, thread_id: str | None, agent: str = "") -> None:
        """Remove the rule."""
        await self.store.revoke_allow_rule(tool, thread_id=thread_id, agent=agent)

    async def record(self, entry: AuditEntry) -> None:
        """Append ``entry`` to the audit log (fingerprints only, never arguments)."""
        scope = {"call": "once", None: "once"}.get(entry.scope, entry.scope or "once")
        await self.store.record_approval(
            thread_id=entry.thread_id,
            tool=entry.tool,
            args_fingerprint=entry.fingerprint,
            decision=entry.decision or entry.event,
            scope=scope,
            reason=entry.reason,
            at=entry.time,
            rule=entry.rule,
        )

    async def _own_agent(self, thread_id: str | None) -> str | None:
        """The name of the thread's stored agent, whose calls are the thread's own."""
        thread = await self.store.get_thread(thread_id) if thread_id else None
        agent = await self.store.get_agent(thread.agent_id) if thread else None
        return agent.name if agent else None

    async def matching_rule(
        self,
        tool: str,
        args: Mapping[str, JsonValue],
        thread_id: str | None,
        agent: str = "",
        spec: RuleSpec | None = None,
    ) -> ArgumentRule | None:
        """The kept argument rule the call's real arguments fall inside, if any: a rule of
        no agent, or one of the agent making the call (``agent``, a delegate; ``""``: the
        thread's own agent); ``spec`` is what the tool declares (see
        :meth:`ArgumentRule.matches`)."""
        rules = await self.store.list_argument_rules(tool=tool)
        if not rules:
            return None
        who = agent or await self._own_agent(thread_id)
        for kept in rules:
            if kept.rule.matches(tool, args, thread_id, who, spec):
                return kept.rule
        return None

    async def allow_rule(self, rule: ArgumentRule) -> None:
        """Keep an argument-scoped rule ("write_file inside ~/notes", for its agent when it
        names one)."""
        await self.store.add_argument_rule(rule)

    async def argument_rules(self) -> list[StoredArgumentRule]:
        """Every argument-scoped rule, for the settings list."""
        return await self.store.list_argument_rules()

    async def revoke_argument_rule(self, rule_id: int) -> bool:
        """Remove an argument-scoped rule; return whether it was there."""
        return await self.store.revoke_argument_rule(rule_id)

    async def abandon_pending(self, thread_id: str) -> None:
        """A new message leaves the approvals the thread waited on unanswered: the calls will
        not run, and the audit log says so."""
        for pending in await self.store.checkpointer.apending_interrupts(thread_id):
            for request in requests_of(pending.value) or []:
                await self.record(
                    AuditEntry(
                        thread_id=thread_id,
                        tool=request.tool,
                        call_id=request.call_id,
                        fingerprint=request.fingerprint or args_fingerprint(request.args),
                        event="decided",
                        decision="deny",
                        reason="not answered: the user wrote a new message instead",
                    )
                )
