"""``Runtime``: what a tool may know about the call it is serving.

Declare a parameter annotated ``Runtime`` and it is filled in at the call boundary; the model
never sees it. ``idempotency_key`` is the same when a call is retried or resumed after a crash
and different for every other call, so a tool can pass it to a service that de-duplicates.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from app.core.budget import Budget
from app.core.graph.context import RunContext
from app.core.graph.run_config import RunConfig

__all__ = ["Runtime", "idempotency_key"]


def idempotency_key(thread_id: str | None, call_id: str, tool: str) -> str:
    """Return a stable key for one tool call: sha256 of thread id, call id and tool name."""
    raw = "\x1f".join((thread_id or "", call_id, tool))
    return hashlib.sha256(raw.encode()).hexdigest()


def _no_redaction(text: str) -> str:
    return text


@dataclass(frozen=True)
class Runtime:
    """The call a tool is serving: thread, call id, idempotency key, budget and config."""

    thread_id: str | None
    call_id: str
    tool: str
    idempotency_key: str
    budget: Budget
    config: RunConfig = field(default_factory=RunConfig)
    context: RunContext | None = field(default=None, repr=False, compare=False)
    _redact: Callable[[str], str] = field(default=_no_redaction, repr=False, compare=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False, compare=False)
    _loop_thread: int | None = field(default=None, repr=False, compare=False)

    @classmethod
    def for_call(
        cls,
        call_id: str,
        tool: str,
        context: RunContext | None = None,
        redact: Callable[[str], str] = _no_redaction,
    ) -> Runtime:
        """Build the runtime of one call, from the run context when there is one."""
        thread_id = context.thread_id if context else None
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        return cls(
            thread_id=thread_id,
            call_id=call_id,
            tool=tool,
            idempotency_key=idempotency_key(thread_id, call_id, tool),
            budget=context.budget if context else Budget(),
            config=context.config if context else RunConfig(),
            context=context,
            _redact=redact,
            _loop=loop,
            _loop_thread=threading.get_ident() if loop else None,
        )

    def report_progress(self, message: str = "", progress: float | None = None) -> None:
        """Tell whoever follows the run how far the tool is (``progress`` in 0..1).

        Safe to call from a sync tool running in a worker thread; does nothing outside a run.
        """
        ctx = self.context
        if ctx is None:
            return
        text = self._redact(message)

        def send() -> None:
            ctx.report_progress(self.call_id, self.tool, text, progress, "progress")

        if self._loop is not None and threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(send)
        else:
            send()
