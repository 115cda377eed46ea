"""Each check before a call, in order; every refusal is an error result and the run goes on."""

from __future__ import annotations

import asyncio
import threading

from app.core.budget import BudgetLimits
from app.core.state import ToolCallBlock
from app.core.tools import Runtime, ToolNode, tool
from tests.core.tools.helpers import Run, asking, call, error_code, result


@tool(permissions=("crm:write",))
def close_ticket(ticket_id: str) -> str:
    """Close a ticket."""
    return f"closed {ticket_id}"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_unknown_tool() -> None:
    update = await Run().once(ToolNode([add]), asking(call("nope")))
    assert error_code(update) == "unknown_tool"
    assert result(update).status == "error"
    assert result(update).output == "There is no tool named 'nope'; the tools are: add."


async def test_malformed_json_arguments() -> None:
    broken = ToolCallBlock(id="c1", name="add", partial_args='{"a": 1, "b"')
    update = await Run().once(ToolNode([add]), asking(broken))
    assert error_code(update) == "malformed_arguments"
    assert "not a valid JSON object" in str(result(update).output)


async def test_arguments_still_held_as_json_text_are_used() -> None:
    late = ToolCallBlock(id="c1", name="add", partial_args='{"a": 1, "b": 2}')
    update = await Run().once(ToolNode([add]), asking(late))
    assert result(update).output == 3


async def test_wrong_types_missing_and_extra_arguments() -> None:
    node = ToolNode([add])
    state = asking(
        call("add", "c1", a="one", b=2),
        call("add", "c2", a=1),
        call("add", "c3", a=1, b=2, c=3),
        call("add", "c4", a="5", b=2),
    )
    update = await Run().once(node, state)
    assert [error_code(update, i) for i in range(4)] == [
        "invalid_arguments",
        "invalid_arguments",
        "invalid_arguments",
        None,
    ]
    assert result(update, 0).output == (
        "Invalid arguments for tool 'add': a: Input should be a valid integer, unable to parse "
        "string as an integer. Fix them and call again."
    )
    assert "b: Field required" in str(result(update, 1).output)
    assert "c: Extra inputs are not permitted" in str(result(update, 2).output)
    assert result(update, 3).output == 7


async def test_missing_permission_is_refused_and_granted_one_runs() -> None:
    state = asking(call("close_ticket", ticket_id="T-1"))
    refused = await Run().once(ToolNode([close_ticket]), state)
    assert error_code(refused) == "permission"
    assert result(refused).output == (
        "Tool 'close_ticket' is not permitted in this run: it needs the permission(s) "
        "crm:write, which the user has not granted."
    )
    allowed = await Run(permissions=("crm:write",)).once(ToolNode([close_ticket]), state)
    assert result(allowed).output == "closed T-1"


async def test_permissions_are_checked_before_authorize() -> None:
    seen: list[str] = []

    def authorize(c: ToolCallBlock, runtime: Runtime) -> bool:
        seen.append(c.id)
        return False

    node = ToolNode([close_ticket], tool_authorize=authorize)
    update = await Run().once(node, asking(call("close_ticket", ticket_id="T-1")))
    assert error_code(update) == "permission"
    assert seen == []


async def test_authorize_false_reason_async_and_raising() -> None:
    async def authorize(c: ToolCallBlock, runtime: Runtime) -> bool | str:
        assert runtime.call_id == c.id and runtime.tool == "add"
        if c.args.get("a") == 1:
            return False
        if c.args.get("a") == 2:
            return "adding 2 is not allowed today"
        if c.args.get("a") == 3:
            raise RuntimeError("policy server down")
        return True

    node = ToolNode([add], tool_authorize=authorize)
    state = asking(*(call("add", f"c{a}", a=a, b=1) for a in (1, 2, 3, 4)))
    update = await Run().once(node, state)
    assert [error_code(update, i) for i in range(4)] == ["not_authorized"] * 3 + [None]
    assert result(update, 0).output == "Tool 'add' was not authorized: the run's policy refused it."
    assert (
        result(update, 1).output == "Tool 'add' was not authorized: adding 2 is not allowed today."
    )
    assert result(update, 2).output == "Tool 'add' could not be authorized (policy server down)."
    assert result(update, 3).output == 5


async def test_authorize_runs_before_schema_validation() -> None:
    node = ToolNode([add], tool_authorize=lambda c, r: "no")
    update = await Run().once(node, asking(call("add", a="bad")))
    assert error_code(update) == "not_authorized"


async def test_timeout_of_an_async_tool() -> None:
    never = asyncio.Event()

    @tool(timeout=0.01)
    async def hang() -> str:
        """Wait forever."""
        await never.wait()
        return "done"

    update = await Run().once(ToolNode([hang]), asking(call("hang")))
    assert error_code(update) == "timeout"
    assert result(update).output == "Tool 'hang' did not finish within 0.01 s and was stopped."


async def test_timeout_of_a_sync_tool_and_its_thread_is_released() -> None:
    release = threading.Event()

    @tool(timeout=0.01)
    def block() -> str:
        """Block a worker thread."""
        release.wait()
        return "done"

    try:
        update = await Run().once(ToolNode([block]), asking(call("block")))
    finally:
        release.set()
    assert error_code(update) == "timeout"


async def test_an_async_tool_that_waits_goes_on_where_it_waited() -> None:
    # the first step of an async tool runs before any timer is set: what it waits for after
    # that, the values it is sent and the errors it raises reach it as under a plain await
    answers: asyncio.Queue[int] = asyncio.Queue()

    @tool(timeout=30)
    async def slow_sum(n: int) -> int:
        """Add up n answers, waiting for each."""
        total = 0
        for _ in range(n):
            total += await answers.get()
        await asyncio.sleep(0)
        return total

    async def answer() -> None:
        for i in range(1, 4):
            await asyncio.sleep(0)
            answers.put_nowait(i * 10)

    answering = asyncio.create_task(answer())
    update = await Run().once(ToolNode([slow_sum]), asking(call("slow_sum", n=3)))
    await answering
    assert result(update).output == 60

    @tool(timeout=30)
    async def fails_later() -> str:
        """Wait, then fail."""
        await asyncio.sleep(0)
        raise TimeoutError("the service gave up")

    update = await Run().once(ToolNode([fails_later]), asking(call("fails_later")))
    assert result(update).output == "Tool 'fails_later' failed: TimeoutError: the service gave up"


async def test_a_waiting_tool_is_cancelled_with_its_run() -> None:
    started, cleaned = asyncio.Event(), asyncio.Event()

    @tool(timeout=30)
    async def waits() -> str:
        """Wait until cancelled, then clean up."""
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.set()
        return "never"

    running = asyncio.create_task(Run().once(ToolNode([waits]), asking(call("waits"))))
    await started.wait()
    running.cancel()
    try:
        await running
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the run should have been cancelled")
    assert cleaned.is_set()


async def test_a_tool_raising_timeout_itself_is_an_ordinary_failure() -> None:
    @tool(timeout=100)
    async def remote() -> str:
        """Call a slow service."""
        raise TimeoutError("the CRM did not answer")

    update = await Run().once(ToolNode([remote]), asking(call("remote")))
    assert error_code(update) == "error"
    assert result(update).output == "Tool 'remote' failed: TimeoutError: the CRM did not answer"


async def test_exception_in_tool_is_an_error_result() -> None:
    @tool
    def explode(x: int) -> int:
        """Fail."""
        raise ValueError(f"cannot handle {x}")

    @tool
    async def bare() -> None:
        """Fail without a message."""
        raise KeyError

    update = await Run().once(
        ToolNode([explode, bare]), asking(call("explode", "c1", x=3), call("bare", "c2"))
    )
    assert result(update, 0).output == "Tool 'explode' failed: ValueError: cannot handle 3"
    assert result(update, 1).output == "Tool 'bare' failed: KeyError"
    assert [error_code(update, i) for i in range(2)] == ["error", "error"]


async def test_sync_and_async_tools_both_run() -> None:
    @tool
    async def upper(text: str) -> str:
        """Upper-case text."""
        await asyncio.sleep(0)
        return text.upper()

    @tool
    def thread_name() -> bool:
        """Whether it ran off the event loop's thread."""
        return threading.current_thread() is not threading.main_thread()

    update = await Run().once(
        ToolNode([upper, thread_name]),
        asking(call("upper", "c1", text="hi"), call("thread_name", "c2")),
    )
    assert result(update, 0).output == "HI"
    assert result(update, 1).output is True


async def test_budget_refuses_calls_beyond_the_limit_in_call_order() -> None:
    run = Run(limits=BudgetLimits(max_tool_calls=2))
    state = asking(*(call("add", f"c{i}", a=i, b=0) for i in range(3)))
    update = await run.once(ToolNode([add]), state)
    assert [error_code(update, i) for i in range(3)] == [None, None, "budget"]
    assert result(update, 2).output == "Tool 'add' was not called: the tool-call budget is used up."
    assert run.budget.usage.tool_calls == 2


async def test_refused_calls_do_not_spend_budget() -> None:
    run = Run(limits=BudgetLimits(max_tool_calls=1))
    state = asking(call("add", "c1", a="x", b=0), call("add", "c2", a=1, b=1))
    update = await run.once(ToolNode([add]), state)
    assert [error_code(update, i) for i in range(2)] == ["invalid_arguments", None]
    assert run.budget.usage.tool_calls == 1


async def test_budget_spent_elsewhere_meanwhile_is_checked_again_before_the_call() -> None:
    run = Run(limits=BudgetLimits(max_tool_calls=1))

    def spend_elsewhere(c: ToolCallBlock, runtime: Runtime) -> bool:
        return True

    @tool
    async def first() -> str:
        """Spends the last call of the budget from a child run."""
        return "ok"

    node = ToolNode([first], tool_authorize=spend_elsewhere)
    run.budget.record_tool_calls(1)
    update = await run.once(node, asking(call("first")))
    assert error_code(update) == "budget"


async def test_without_a_run_context_tools_without_permissions_still_run() -> None:
    node = ToolNode([add, close_ticket])
    update = await node(
        asking(call("add", "c1", a=1, b=2), call("close_ticket", "c2", ticket_id="T"))
    )
    assert result(update, 0).output == 3
    assert error_code(update, 1) == "permission"
