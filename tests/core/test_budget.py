"""Budget reservations: a call holds its share while in flight, and what it does not use (or a
call that never happened) is given back, letting a call that waited for room go on."""

from __future__ import annotations

import asyncio

from app.core.budget import Budget, BudgetLimits, Reservation
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
