"""Choosing the memories for a model call: pinned ones first, then the few most related,
within a budget never above a few hundred tokens, local-only ones held back from a model on
another computer."""

from __future__ import annotations

from app.services.memory import MAX_MEMORY_TOKENS, Memory, memory_tokens
from app.services.memory.choice import pick


def _m(n: int, text: str, *, pinned: bool = False, local_only: bool = False) -> Memory:
    return Memory(id=f"{n:032x}", text=text, pinned=pinned, local_only=local_only)


def test_pinned_come_first_then_related_up_to_the_limit() -> None:
    pinned = [_m(1, "I am vegetarian", pinned=True)]
    related = [_m(2, "Lyon"), _m(3, "Miso the cat"), _m(4, "A kettle"), _m(5, "A bike")]
    choice = pick(pinned, related, limit=2)
    assert [m.text for m in choice.used] == ["I am vegetarian", "Lyon", "Miso the cat"]
    assert choice.tokens == sum(memory_tokens(m) for m in choice.used)
    assert choice.held_back == ()


def test_the_budget_is_kept_and_never_above_the_cap() -> None:
    long = [_m(n, "x" * 400) for n in range(10)]  # about 103 tokens each
    choice = pick([], long, limit=10, budget_tokens=250)
    assert len(choice.used) == 2 and choice.tokens <= 250
    huge = pick([], long, limit=10, budget_tokens=100_000)
    assert huge.tokens <= MAX_MEMORY_TOKENS and len(huge.used) == 2
    assert pick([], long, budget_tokens=0).used == ()


def test_a_memory_too_long_for_what_is_left_gives_way_to_a_shorter_one() -> None:
    choice = pick([], [_m(1, "x" * 1000), _m(2, "short")], limit=3, budget_tokens=100)
    assert [m.text for m in choice.used] == ["short"]


def test_local_only_memories_are_held_back_from_a_remote_model_and_cost_nothing() -> None:
    private = _m(1, "My doctor is Dr Roux", local_only=True, pinned=True)
    public = _m(2, "I like short answers")
    remote = pick([private], [public], remote=True)
    assert remote.used == (public,) and remote.held_back == (private,)
    assert remote.tokens == memory_tokens(public)
    local = pick([private], [public], remote=False)
    assert local.used == (private, public) and local.held_back == ()


def test_a_memory_both_pinned_and_related_is_used_once() -> None:
    both = _m(1, "kettle", pinned=True)
    assert pick([both], [both, _m(2, "tea")]).used == (both, _m(2, "tea"))
