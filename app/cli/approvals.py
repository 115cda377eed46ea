"""Asks for tool approvals on the terminal, for ``parley chat``.

Each pending call is printed with its tool, what it may do and its exact arguments, with
terminal controls and bidi characters escaped. Only a whole, explicit answer counts (any
letter case): ``y``/``yes``/``approve``, ``n``/``no``/``deny`` (with an optional reason),
``e``/``edit`` (edit the arguments as JSON, then run) or ``always`` (allow this tool from now
on, in ``thread`` or ``everywhere``, which must be answered too).
Anything else, an empty answer included, asks again; end of input denies.

An agent proposing a memory (the ``remember`` tool) is asked about as "Parley will remember:
TEXT — Keep this memory? [y/N]": ``y``/``yes`` keeps it; anything else, or end of input,
keeps nothing.

A run paused at a budget limit is asked about too (:meth:`TerminalApprovalHandler.raise_limit`):
``y``/``yes`` raises the limit by the suggested amount and goes on; anything else, or end of
input, stops the run there.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, Literal, TextIO

from app.cli.stdin import read_line, stdin_lines
from app.core.graph.budget_pause import BudgetPause
from app.core.tools.approvals import ApprovalDecision, ApprovalRequest
from app.services.memory import REMEMBER_TOOL, remembered_text
from app.text.hidden_chars import escape_hidden, json_escape_hidden

__all__ = ["TerminalApprovalHandler"]

_CHOICES = "y/yes/approve, n/no/deny, e/edit, always"
_SCOPES = "t/thread, everywhere"

_ANSWERS: dict[str, Literal["approve", "deny", "edit", "always"]] = {
    "y": "approve",
    "yes": "approve",
    "approve": "approve",
    "n": "deny",
    "no": "deny",
    "deny": "deny",
    "e": "edit",
    "edit": "edit",
    "always": "always",
}
_SCOPE_ANSWERS: dict[str, Literal["thread", "tool"]] = {
    "t": "thread",
    "thread": "thread",
    "everywhere": "tool",
}


def _choice(answer: str) -> str:
    """The answer as a key of the tables above: trimmed, lower case, inner spaces collapsed."""
    return " ".join(answer.split()).lower()


class TerminalApprovalHandler:
    """An :class:`~app.core.tools.ApprovalHandler` that prompts on stdin/stdout.

    ``read_line`` defaults to reading stdin like :func:`input`; it runs on a daemon thread
    (:func:`app.cli.stdin.read_line`), so the event loop keeps going while the
    user thinks and Ctrl-C ends the program at once. End of input denies every remaining
    call.
    """

    def __init__(
        self,
        read_line: Callable[[str], str] | None = None,
        output: TextIO | None = None,
    ) -> None:
        self._read_line = read_line or stdin_lines
        self._out = output

    def _print(self, text: str) -> None:
        out = self._out or sys.stdout
        out.write(escape_hidden(text) + "\n")
        out.flush()

    async def _ask(self, prompt: str) -> str | None:
        try:
            answer = await read_line(escape_hidden(prompt), self._read_line)
        except EOFError:
            return None
        return answer.strip()

    async def decide(self, requests: Sequence[ApprovalRequest]) -> list[ApprovalDecision]:
        """Ask about each request in turn and return the decisions, in request order."""
        decisions = []
        for number, request in enumerate(requests, 1):
            if request.tool == REMEMBER_TOOL:
                decisions.append(await self._keep_memory(request))
                continue
            self._show(request, number, len(requests))
            decisions.append(await self._decide_one(request))
        return decisions

    async def _keep_memory(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask whether to keep the memory an agent proposes: only ``y``/``yes`` keeps it."""
        why = request.args.get("why")
        if isinstance(why, str) and why.strip():
            who = request.agent or "The agent"
            self._print(f"\n{who} proposes a memory. Why: {' '.join(why.split())}")
        answer = await self._ask(
            f"\nParley will remember: {remembered_text(request.args)} — Keep this memory? [y/N]: "
        )
        if _choice(answer or "") in ("y", "yes"):
            return ApprovalDecision(call_id=request.call_id, decision="approve")
        reason = "no answer was given" if answer is None else "the user chose not to keep it"
        return ApprovalDecision(
            call_id=request.call_id, decision="deny", reason=f"not kept: {reason}"
        )

    async def raise_limit(self, pause: BudgetPause) -> float | None:
        """Ask whether to raise the limit the run paused at; return the new limit, or
        ``None`` to stop there."""
        by = pause.suggested_to - pause.value
        whose = f" at a step of {pause.agent}" if pause.agent else ""
        answer = await self._ask(
            f"\nThe run reached its limit of {_amount(pause.limit, pause.value)}{whose}. "
            f"Raise by {_amount(pause.limit, by)} and continue? [y/N]: "
        )
        return pause.suggested_to if _choice(answer or "") in ("y", "yes") else None

    def _show(self, request: ApprovalRequest, number: int, total: int) -> None:
        self._print(f"\nTool call {number} of {total} needs your approval: {request.tool}")
        if request.agent:
            by = f", asked by {request.asked_by}" if request.asked_by else ""
            self._print(f"  {request.agent}{by}, wants to make this call")
        if request.note:
            self._print(f"  {request.note}")
        if request.description:
            self._print(f"  {request.description.splitlines()[0]}")
        if request.permissions:
            self._print(f"  Permissions: {', '.join(request.permissions)}")
        args = json.dumps(request.args, indent=2, ensure_ascii=False, sort_keys=True)
        args = json_escape_hidden(args)  # still the same JSON, to copy into an edit
        self._print("  Arguments: " + args.replace("\n", "\n  "))

    async def _decide_one(self, request: ApprovalRequest) -> ApprovalDecision:
        call_id = request.call_id
        while True:
            answer = await self._ask(f"Allow this call? [{_CHOICES}]: ")
            if answer is None:
                return ApprovalDecision(call_id=call_id, decision="deny", reason="no answer given")
            choice = _ANSWERS.get(_choice(answer))
            if choice == "approve":
                return ApprovalDecision(call_id=call_id, decision="approve")
            if choice == "deny":
                reason = await self._ask("Reason, shown to the model (optional): ")
                return ApprovalDecision(call_id=call_id, decision="deny", reason=reason or None)
            if choice == "edit":
                edited = await self._edit(request)
                if edited is not None:
                    return ApprovalDecision(call_id=call_id, decision="edit", args=edited)
                continue
            if choice == "always":
                scope = await self._scope(request)
                if scope is None:
                    return ApprovalDecision(call_id=call_id, decision="deny", reason="no answer")
                return ApprovalDecision(call_id=call_id, decision="always", scope=scope)
            self._print(f"Please answer with one of: {_CHOICES}.")

    async def _scope(self, request: ApprovalRequest) -> Literal["thread", "tool"] | None:
        """Ask how far an "always" rule reaches, saying whom each answer covers; only an
        explicit answer counts."""
        who = request.agent or "this thread's agent"
        self._print(
            f"  In this thread: {request.tool} runs unasked in this thread only, and only when "
            f"{who} calls it. Everywhere: in every thread, for every agent."
        )
        while True:
            where = await self._ask(f"Always allow in this thread or everywhere? [{_SCOPES}]: ")
            if where is None:
                return None
            scope = _SCOPE_ANSWERS.get(_choice(where))
            if scope is not None:
                return scope
            self._print(f"Please answer with one of: {_SCOPES}.")

    async def _edit(self, request: ApprovalRequest) -> dict[str, Any] | None:
        while True:
            text = await self._ask(
                "New arguments as a JSON object (keys left out keep their value; empty: back): "
            )
            if not text:
                return None
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                self._print(f"That is not valid JSON ({exc.msg}); try again.")
                continue
            if not isinstance(value, dict):
                self._print('The arguments must be a JSON object, like {"name": "value"}.')
                continue
            return {**request.args, **value}


def _amount(limit: str, value: float) -> str:
    """``value`` of budget limit ``limit`` in words: "8 model calls", "$0.5000"."""
    if limit == "max_cost":
        return f"${value:.4f}"
    what = {"max_model_calls": "model call", "max_tool_calls": "tool call"}.get(limit, "token")
    return f"{value:g} {what}{'' if value == 1 else 's'}"
