"""Which memories go before a model call: every pinned one, then the few most related to the
question, within a token budget that is never more than :data:`MAX_MEMORY_TOKENS`.

A memory marked local only is never chosen for a model on another computer: it is held
back (and said so), and takes none of the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.store import MemoryRecord

__all__ = [
    "MAX_MEMORY_TOKENS",
    "RELATED",
    "MemoryChoice",
    "memory_tokens",
    "pick",
]

MAX_MEMORY_TOKENS = 300
"""The most tokens of memories put before one model call, whatever budget is asked for."""

RELATED = 3
"""How many related memories (beside the pinned ones) a call gets by default."""

_CHARS_PER_TOKEN = 4
_LINE_TOKENS = 3
"""What one memory's line costs beside its text (its mark and line break)."""


def memory_tokens(memory: MemoryRecord) -> int:
    """A cheap estimate of the tokens one memory costs before a model (about 4 characters a
    token, and its line)."""
    return -(-len(memory.text) // _CHARS_PER_TOKEN) + _LINE_TOKENS


@dataclass(frozen=True, slots=True)
class MemoryChoice:
    """The memories chosen for a call (pinned first, then the related ones, best first), the
    tokens they cost, and those held back because they are local only and the model is
    not."""

    used: tuple[MemoryRecord, ...] = ()
    held_back: tuple[MemoryRecord, ...] = ()
    tokens: int = 0


def pick(
    pinned: Sequence[MemoryRecord],
    related: Sequence[MemoryRecord],
    *,
    limit: int = RELATED,
    budget_tokens: int = MAX_MEMORY_TOKENS,
    remote: bool = False,
) -> MemoryChoice:
    """Every pinned memory that fits, then up to ``limit`` of ``related`` that fit (a memory
    too long for what is left is passed over for a shorter one), in at most ``budget_tokens``
    (capped at :data:`MAX_MEMORY_TOKENS`); with ``remote`` a local-only memory is held back."""
    left = max(0, min(budget_tokens, MAX_MEMORY_TOKENS))
    used: list[MemoryRecord] = []
    held: list[MemoryRecord] = []
    seen: set[str] = set()
    related_used = 0
    for memory, is_pinned in [*((m, True) for m in pinned), *((m, False) for m in related)]:
        if memory.id in seen or (not is_pinned and related_used >= max(0, limit)):
            continue
        seen.add(memory.id)
        if remote and memory.local_only:
            held.append(memory)
            continue
        cost = memory_tokens(memory)
        if cost > left:
            continue
        used.append(memory)
        left -= cost
        related_used += not is_pinned
    spent = sum(memory_tokens(m) for m in used)
    return MemoryChoice(tuple(used), tuple(held), spent)
