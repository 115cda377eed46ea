"""Budgets: limits on model calls, tool calls, tokens and cost, shared by a run's graphs.

One :class:`Budget` is created per run and handed to every child graph and tool, so an agent
used as a tool spends from its parent's budget. Checks happen *before* a call: a call that
would exceed a limit is not made.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from app.core.errors import BudgetExceeded
from app.core.models.protocol import ModelPrice
from app.core.state.message import TokenUsages

__all__ = ["AGENT_PREFIX", "LIMIT_NAMES", "RAISED_PREFIX", "Budget", "BudgetLimits", "BudgetUsage"]

LIMIT_NAMES = ("max_model_calls", "max_tool_calls", "max_tokens", "max_cost")
"""The limits a run can have, as named in a run config and in :class:`BudgetLimits`."""
RAISED_PREFIX = "raised:"
"""Key prefix under which a run's raised limits are saved beside what it spent."""
AGENT_PREFIX = "agent:"
"""Key prefix under which what each delegate agent spent is saved (``agent:NAME:tokens``)."""


class BudgetLimits(BaseModel):
    """The most a run may spend; ``None`` means no limit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_model_calls: int | None = None
    max_tool_calls: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None


class BudgetUsage(BaseModel):
    """What a run has spent so far."""

    model_config = ConfigDict(extra="forbid")

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
        self._listeners: list[Callable[[Budget], None]] = []

    def on_change(self, listener: Callable[[Budget], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener(self)

    def model_call_blocker(self) -> str | None:
        """The name of the limit that forbids one more model call, or ``None``."""
        lim, use = self.limits, self.usage
        if lim.max_model_calls is not None and use.model_calls + 1 > lim.max_model_calls:
            return "max_model_calls"
        if lim.max_tokens is not None and use.tokens >= lim.max_tokens:
            return "max_tokens"
        if lim.max_cost is not None and use.cost >= lim.max_cost:
            return "max_cost"
        return None

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
        out = {k: float(v) for k, v in self.usage.model_dump().items()}
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
        if lim is not None and self.usage.tool_calls + count > lim:
            left = max(0, lim - self.usage.tool_calls)
            raise BudgetExceeded(
                f"the tool-call budget ({lim}) allows {left} more call(s), {count} were asked"
            )

    def remaining_tool_calls(self) -> int | None:
        """How many tool calls are left, or ``None`` without a limit."""
        lim = self.limits.max_tool_calls
        return None if lim is None else max(0, lim - self.usage.tool_calls)

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
