"""Budgets: limits on model calls, tool calls, tokens and cost, shared by a run's graphs.

One :class:`Budget` is created per run and handed to every child graph and tool, so an agent
used as a tool spends from its parent's budget. Checks happen *before* a call: a call that
would exceed a limit is not made.

Calls run side by side (a reply's tool calls, the delegates it asks), so a check is also a
:class:`Reservation`, made in the same step (no ``await`` between): a model call reserves
itself and an estimate of its tokens and cost (its prompt and its longest reply) before it is
sent, and is settled with what it really used after; a batch of tool calls reserves its calls
before any runs. A call the others' reservations leave no room for is refused like any call
over a limit; one that only an estimate keeps out waits until the calls in flight settle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from app.core.errors import BudgetExceeded
from app.core.models.protocol import ModelPrice
from app.core.state.message import TokenUsages

__all__ = [
    "AGENT_PREFIX",
    "LIMIT_NAMES",
    "RAISED_PREFIX",
    "Budget",
    "BudgetLimits",
    "BudgetUsage",
    "Reservation",
]

LIMIT_NAMES = ("max_model_calls", "max_tool_calls", "max_tokens", "max_cost")
"""The limits a run can have, as named in a run config and in :class:`BudgetLimits`."""
RAISED_PREFIX = "raised:"
"""Key prefix under which a run's raised limits are saved beside what it spent."""
AGENT_PREFIX = "agent:"
"""Key prefix under which what each delegate agent spent is saved (``agent:NAME:tokens``)."""


class BudgetLimits(BaseModel):
    """The most a run may spend; ``None`` means no limit."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    max_model_calls: int | None = None
    max_tool_calls: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None


class BudgetUsage(BaseModel):
    """What a run has spent so far."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    model_calls: int = 0
    tool_calls: int = 0
    tokens: int = 0
    cost: float = 0.0


def cost_of(usage: TokenUsages, price: ModelPrice) -> float:
    """Return the price in US dollars of one reply's ``usage``."""
    fresh_input = max(
        0,
        usage.prompt_tokens - usage.cache_read_input_tokens - usage.cache_creation_input_tokens,
    )
    return (
        fresh_input * price.input_per_mtok
        + usage.completion_tokens * price.output_per_mtok
        + usage.cache_read_input_tokens * price.cache_read_per_mtok
        + usage.cache_creation_input_tokens * price.cache_write_per_mtok
    ) / 1_000_000


@dataclass
class Reservation:
    """What calls in flight hold of the budget (made by :meth:`Budget.reserve_model_call`
    and :meth:`Budget.reserve_tool_calls`); what is left of it is given back when settled."""

    agent: str
    model_calls: int = 0
    tool_calls: int = 0
    tokens: int = 0
    cost: float = 0.0


class Budget:
    """Tracks spending against limits; ``on_change`` callbacks see every change."""

    def __init__(self, limits: BudgetLimits | None = None) -> None:
        self.limits = limits or BudgetLimits()
        self.usage = BudgetUsage()
        self.raised: dict[str, float] = {}
        """Limits raised during this run (by a person answering a budget pause)."""
        self.by_agent: dict[str, BudgetUsage] = {}
        """What each delegate agent spent of ``usage`` (keyed by name; the thread's own agent
        is ``""``), for showing who used the shared budget."""
        self.reserved = BudgetUsage()
        """What calls in flight hold (not spent yet, so not in ``usage``)."""
        self._listeners: list[Callable[[Budget], None]] = []
        self._settled: asyncio.Event | None = None

    def on_change(self, listener: Callable[[Budget], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener(self)

    def model_call_blocker(self, tokens: int = 0, cost: float = 0.0) -> str | None:
        """The name of the limit that forbids one more model call, or ``None``: the calls
        limit counting the calls in flight, and the token and cost limits when what is spent
        and held leaves no room for ``tokens`` and ``cost`` (the call's prompt)."""
        return self._blocker(tokens, cost, held=True)

    def _blocker(self, tokens: int, cost: float, *, held: bool) -> str | None:
        lim, use, res = self.limits, self.usage, self.reserved
        if lim.max_model_calls is not None and use.model_calls + res.model_calls >= (
            lim.max_model_calls
        ):
            return "max_model_calls"
        tokens_held = res.tokens if held else 0
        if lim.max_tokens is not None and (
            use.tokens >= lim.max_tokens or use.tokens + tokens_held + tokens > lim.max_tokens
        ):
            return "max_tokens"
        cost_held = res.cost if held else 0.0
        if lim.max_cost is not None and (
            use.cost >= lim.max_cost or use.cost + cost_held + cost > lim.max_cost
        ):
            return "max_cost"
        return None

    async def reserve_model_call(
        self,
        tokens: int = 0,
        cost: float = 0.0,
        reply: int = 0,
        agent: str = "",
        reply_cost: float = 0.0,
    ) -> Reservation | str:
        """Reserve one model call by ``agent`` whose prompt is about ``tokens`` long and
        costs ``cost``, and whose reply may be ``reply`` tokens and ``reply_cost`` more
        (held too, not checked); or return the name of the limit it would go over.

        Checked and counted in one step, so calls running side by side cannot all pass the
        same check. A call kept out only by the tokens or cost that calls in flight hold
        (their estimates, most of which they do not use) waits until one of them settles,
        then is checked again. Settle the reservation with :meth:`settle_model_call`.
        """
        while True:
            blocker = self._blocker(tokens, cost, held=True)
            if blocker is None:
                held = Reservation(
                    agent, model_calls=1, tokens=tokens + reply, cost=cost + reply_cost
                )
                self._hold(held, 1)
                return held
            in_flight = blocker in ("max_tokens", "max_cost") and self.reserved.model_calls > 0
            if not in_flight or self._blocker(tokens, cost, held=False) is not None:
                return blocker
            await self._next_settled()

    def reserve_tool_calls(self, count: int, agent: str = "") -> Reservation:
        """Reserve ``count`` tool calls by ``agent``; raise :class:`BudgetExceeded` when
        fewer are left. Spend them one at a time with :meth:`spend_tool_call`; give back the
        rest with :meth:`release`."""
        if count:
            self.check_tool_calls(count)
        held = Reservation(agent, tool_calls=count)
        self._hold(held, 1)
        return held

    def _hold(self, held: Reservation, sign: int) -> None:
        res = self.reserved
        # only what ``held`` holds is written: a tool call's reservation, made and given back
        # for every call, holds none of the rest
        if held.model_calls:
            res.model_calls += sign * held.model_calls
        if held.tool_calls:
            res.tool_calls += sign * held.tool_calls
        if held.tokens:
            res.tokens += sign * held.tokens
        if held.cost or res.cost < 0:
            res.cost = max(0.0, res.cost + sign * held.cost)
        # no model call in flight: no rounding left over either
        if res.model_calls <= 0 and (res.model_calls or res.tokens or res.cost):
            res.model_calls, res.tokens, res.cost = 0, 0, 0.0

    def release(self, held: Reservation, keep_tool_calls: int = 0) -> None:
        """Give back what ``held`` still holds (calls that will not be made), all but
        ``keep_tool_calls`` of its tool calls."""
        kept = min(keep_tool_calls, held.tool_calls)
        held.tool_calls -= kept
        self._hold(held, -1)
        held.model_calls = held.tokens = 0
        held.cost = 0.0
        held.tool_calls = kept
        self._wake()

    def settle_model_call(
        self, held: Reservation, usage: TokenUsages | None = None, price: ModelPrice | None = None
    ) -> None:
        """Count the reserved model call ``held`` with what it really used."""
        self.release(held)
        self.record_model_call(usage, price, held.agent)

    def spend_tool_call(self, held: Reservation) -> bool:
        """Count one of the tool calls ``held`` reserved; False when it holds none."""
        if held.tool_calls <= 0:
            return False
        held.tool_calls -= 1
        self.reserved.tool_calls -= 1
        self.record_tool_calls(1, held.agent)
        return True

    def _wake(self) -> None:
        if self._settled is not None:
            self._settled.set()
            self._settled = None

    async def _next_settled(self) -> None:
        if self._settled is None:
            self._settled = asyncio.Event()
        await self._settled.wait()

    def describe(self, name: str) -> str:
        """``name``'s limit as a phrase, e.g. "the model-call budget (8)"."""
        value = getattr(self.limits, name)
        if name == "max_cost":
            return f"the cost budget (${value:.4f})"
        what = {"max_model_calls": "model-call", "max_tool_calls": "tool-call"}.get(name, "token")
        return f"the {what} budget ({value})"

    def raise_limit(self, name: str, to: float) -> None:
        """Let this run go up to ``to`` on limit ``name`` (never lowers it; repeating a raise
        changes nothing, so a node that runs again after a pause can apply it again)."""
        if name not in LIMIT_NAMES:
            raise ValueError(f"there is no budget limit named {name!r}")
        current = getattr(self.limits, name)
        if current is not None and to <= current:
            return
        value: float = int(to) if name != "max_cost" else float(to)
        self.limits = self.limits.model_copy(update={name: value})
        self.raised[name] = value
        self._changed()

    def saved(self) -> dict[str, float]:
        """What a checkpoint keeps: the spending and the limits raised during this run."""
        out = {k: float(v) for k, v in self.usage.__dict__.items()}  # its fields, as model_dump
        out.update({RAISED_PREFIX + k: float(v) for k, v in self.raised.items()})
        for agent, use in self.by_agent.items():
            if agent:
                out.update({f"{AGENT_PREFIX}{agent}:{k}": float(v) for k, v in use})
        return out

    def restore(self, saved: dict[str, float]) -> None:
        """Go on from :meth:`saved`: the same spending and raised limits."""
        usage = {k: v for k, v in saved.items() if k in BudgetUsage.model_fields}
        self.usage = BudgetUsage.model_validate(
            {k: int(v) if k != "cost" else v for k, v in usage.items()}
        )
        self.by_agent = {}
        for key, value in saved.items():
            agent, _, name = key.removeprefix(AGENT_PREFIX).rpartition(":")
            if key.startswith(AGENT_PREFIX) and agent and name in BudgetUsage.model_fields:
                use = self.by_agent.setdefault(agent, BudgetUsage())
                setattr(use, name, value if name == "cost" else int(value))
        own = self._agent_usage("")
        own.model_calls = self.usage.model_calls - sum(u.model_calls for u in self._others())
        own.tool_calls = self.usage.tool_calls - sum(u.tool_calls for u in self._others())
        own.tokens = self.usage.tokens - sum(u.tokens for u in self._others())
        own.cost = self.usage.cost - sum(u.cost for u in self._others())
        for key, value in saved.items():
            if key.startswith(RAISED_PREFIX):
                self.raise_limit(key.removeprefix(RAISED_PREFIX), value)

    def check_tool_calls(self, count: int = 1) -> None:
        """Raise :class:`BudgetExceeded` if ``count`` more tool calls are not allowed."""
        lim = self.limits.max_tool_calls
        if lim is not None and self.usage.tool_calls + self.reserved.tool_calls + count > lim:
            left = max(0, lim - self.usage.tool_calls - self.reserved.tool_calls)
            raise BudgetExceeded(
                f"the tool-call budget ({lim}) allows {left} more call(s), {count} were asked"
            )

    def remaining_tool_calls(self) -> int | None:
        """How many tool calls are left (not spent nor reserved), or ``None`` without a
        limit."""
        lim = self.limits.max_tool_calls
        return (
            None if lim is None else max(0, lim - self.usage.tool_calls - self.reserved.tool_calls)
        )

    def _agent_usage(self, agent: str) -> BudgetUsage:
        return self.by_agent.setdefault(agent, BudgetUsage())

    def _others(self) -> list[BudgetUsage]:
        return [u for a, u in self.by_agent.items() if a]

    def record_model_call(
        self, usage: TokenUsages | None = None, price: ModelPrice | None = None, agent: str = ""
    ) -> None:
        """Count one model call and what it used, made by ``agent`` (``""``: the thread's own)."""
        mine = self._agent_usage(agent)
        for use in (self.usage, mine):
            use.model_calls += 1
            if usage is not None:
                use.tokens += usage.total_tokens or (usage.prompt_tokens + usage.completion_tokens)
                if price is not None:
                    use.cost += cost_of(usage, price)
        self._changed()

    def record_tool_calls(self, count: int = 1, agent: str = "") -> None:
        """Count ``count`` tool calls made by ``agent`` (``""``: the thread's own)."""
        self.usage.tool_calls += count
        self._agent_usage(agent).tool_calls += count
        self._changed()
