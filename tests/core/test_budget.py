"""Budget reservations: a call holds its share while in flight, and what it does not use (or a
call that never happened) is given back, letting a call that waited for room go on."""

from __future__ import annotations

import asyncio

import pytest

from app.core.budget import Budget, BudgetLimits, BudgetUsage, Reservation, cost_of
from app.core.models.protocol import ModelPrice
from app.core.state.message import TokenUsages


async def test_a_call_kept_out_by_an_estimate_waits_and_goes_on_when_it_settles() -> None:
    budget = Budget(BudgetLimits(max_tokens=500))
    first = await budget.reserve_model_call(50, reply=1000, agent="Ada")
    assert isinstance(first, Reservation)
    second = asyncio.ensure_future(budget.reserve_model_call(50, reply=1000, agent="Bea"))
    await asyncio.sleep(0.01)
    assert not second.done()  # the first call's longest reply would leave it no room

    budget.settle_model_call(first, TokenUsages(prompt_tokens=60, completion_tokens=40))
    held = await asyncio.wait_for(second, 1)
    assert isinstance(held, Reservation)
    assert (budget.usage.model_calls, budget.usage.tokens) == (1, 100)
    assert budget.by_agent["Ada"].tokens == 100
    assert "Bea" not in budget.by_agent  # counted when it settles


async def test_a_cancelled_call_gives_its_share_back() -> None:
    budget = Budget(BudgetLimits(max_model_calls=1, max_tokens=500))
    first = await budget.reserve_model_call(50, reply=1000)
    assert isinstance(first, Reservation)
    assert await budget.reserve_model_call(50) == "max_model_calls"  # refused, not waiting

    budget.release(first)
    assert budget.reserved.model_calls == budget.reserved.tokens == 0
    assert isinstance(await budget.reserve_model_call(50), Reservation)
    assert budget.usage.model_calls == 0


async def test_spent_tokens_refuse_a_call_whose_prompt_would_not_fit() -> None:
    budget = Budget(BudgetLimits(max_tokens=100))
    budget.record_model_call(TokenUsages(prompt_tokens=90))
    assert await budget.reserve_model_call(20) == "max_tokens"
    assert isinstance(await budget.reserve_model_call(5), Reservation)


def test_reserved_tool_calls_are_not_left_for_others() -> None:
    budget = Budget(BudgetLimits(max_tool_calls=3))
    held = budget.reserve_tool_calls(2, agent="Ada")
    assert budget.remaining_tool_calls() == 1
    assert budget.spend_tool_call(held)
    budget.release(held)  # the second was not run (refused at approval)
    assert budget.remaining_tool_calls() == 2
    assert budget.usage.tool_calls == budget.by_agent["Ada"].tool_calls == 1
    assert not budget.spend_tool_call(held)


def test_a_reply_read_from_the_cache_costs_the_cache_price() -> None:
    """Of 1,000 prompt tokens, 600 read from the cache and 100 written to it: the other 300
    are fresh input, and each part is billed at its own price."""
    price = ModelPrice(
        input_per_mtok=3.0, output_per_mtok=15.0, cache_read_per_mtok=0.3, cache_write_per_mtok=3.75
    )
    usage = TokenUsages(
        prompt_tokens=1000,
        completion_tokens=200,
        cache_read_input_tokens=600,
        cache_creation_input_tokens=100,
    )
    assert cost_of(usage, price) == pytest.approx(
        (300 * 3.0 + 200 * 15.0 + 600 * 0.3 + 100 * 3.75) / 1e6
    )
    cached = TokenUsages(prompt_tokens=10, cache_read_input_tokens=40)  # more cached than asked
    assert cost_of(cached, price) == pytest.approx(40 * 0.3 / 1e6)


def test_what_each_agent_spent_comes_back_from_a_checkpoint() -> None:
    budget = Budget(BudgetLimits(max_tokens=1000))
    budget.record_model_call(TokenUsages(prompt_tokens=100, completion_tokens=20))
    budget.record_model_call(TokenUsages(prompt_tokens=50, completion_tokens=5), agent="Re:search")
    budget.record_tool_calls(2, agent="Re:search")
    budget.record_tool_calls(1)

    fresh = Budget(BudgetLimits(max_tokens=1000))
    fresh.restore(budget.saved())
    assert fresh.usage == BudgetUsage(model_calls=2, tool_calls=3, tokens=175)
    assert fresh.by_agent == {
        "Re:search": BudgetUsage(model_calls=1, tool_calls=2, tokens=55),
        "": BudgetUsage(model_calls=1, tool_calls=1, tokens=120),
    }


def test_a_listener_hears_each_change_until_it_unsubscribes() -> None:
    budget = Budget()
    heard: list[int] = []
    stop = budget.on_change(lambda b: heard.append(b.usage.tool_calls))
    budget.record_tool_calls()
    stop()
    stop()  # twice is harmless
    budget.record_tool_calls()
    assert heard == [1]


def test_raising_a_limit_to_what_it_is_changes_nothing() -> None:
    budget = Budget(BudgetLimits(max_model_calls=4, max_cost=0.5))
    budget.raise_limit("max_model_calls", 4)
    assert budget.raised == {}
    budget.raise_limit("max_cost", 0.75)
    assert budget.raised == {"max_cost": 0.75}
    assert budget.describe("max_cost") == "the cost budget ($0.7500)"
    assert budget.describe("max_model_calls") == "the model-call budget (4)"
    assert Budget(BudgetLimits(max_tool_calls=3)).describe("max_tool_calls") == (
        "the tool-call budget (3)"
    )
    assert Budget(BudgetLimits(max_tokens=9)).describe("max_tokens") == "the token budget (9)"
    with pytest.raises(ValueError, match="no budget limit named 'max_naps'"):
        budget.raise_limit("max_naps", 1)
