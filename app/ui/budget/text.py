"""Budget numbers as people read them: "3/20 calls", "1.2k tokens", "$0.04"."""

from __future__ import annotations

from app.core.budget import BudgetLimits, BudgetUsage

__all__ = ["LIMIT_WORDS", "compact", "details", "fraction_used", "summary", "used_of"]

LIMIT_WORDS = {
    "max_model_calls": ("model-call", "model calls"),
    "max_tool_calls": ("tool-call", "tool calls"),
    "max_tokens": ("token", "tokens"),
    "max_cost": ("cost", "cost"),
}
"""Each limit's adjective ("the model-call limit") and noun ("20 model calls")."""


def compact(n: float) -> str:
    """1234 -> "1.2k", 2_500_000 -> "2.5M"."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M".replace(".0M", "M")
    if n >= 1000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return f"{n:g}"


def money(value: float) -> str:
    """Dollars, with cents (or tenths of a cent below one cent)."""
    return f"${value:.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def used_of(name: str, usage: BudgetUsage) -> float:
    """What ``usage`` spent against limit ``name``."""
    return float(
        {
            "max_model_calls": usage.model_calls,
            "max_tool_calls": usage.tool_calls,
            "max_tokens": usage.tokens,
            "max_cost": usage.cost,
        }[name]
    )


def value_text(name: str, value: float) -> str:
    """A value of limit ``name`` as shown: money for cost, a count otherwise."""
    return money(value) if name == "max_cost" else f"{int(value):,}"


def fraction_used(usage: BudgetUsage, limits: BudgetLimits) -> float:
    """The largest share of any set limit already spent (0 without limits)."""
    shares = []
    for name in LIMIT_WORDS:
        limit = getattr(limits, name)
        if limit:
            shares.append(used_of(name, usage) / float(limit))
    return min(1.0, max(shares, default=0.0))


def summary(usage: BudgetUsage, limits: BudgetLimits) -> str:
    """One line for the header: calls against their limit, tokens, cost."""
    calls = f"{usage.model_calls}"
    if limits.max_model_calls:
        calls += f"/{limits.max_model_calls}"
    parts = [f"{calls} calls", f"{compact(usage.tokens)} tokens"]
    if usage.tool_calls or limits.max_tool_calls:
        tools = f"{usage.tool_calls}" + (
            f"/{limits.max_tool_calls}" if limits.max_tool_calls else ""
        )
        parts.insert(1, f"{tools} tools")
    if usage.cost or limits.max_cost:
        parts.append(money(usage.cost))
    return " · ".join(parts)


def details(usage: BudgetUsage, limits: BudgetLimits) -> list[tuple[str, str]]:
    """Rows for the tooltip: what, and "used of limit" (or "no limit")."""
    rows = []
    for name, (_adjective, noun) in LIMIT_WORDS.items():
        used = used_of(name, usage)
        limit = getattr(limits, name)
        shown = value_text(name, used)
        rows.append(
            (
                noun.capitalize(),
                f"{shown} of {value_text(name, limit)}" if limit else f"{shown} (no limit)",
            )
        )
    return rows
