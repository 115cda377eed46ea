"""The prebuilt agent loop, driven by the scripted model."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from app.core import HumanMessage, Resume, Runtime, ToolResult, create_agent, tool
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import START, StateGraph
from app.core.models import ModelInfo, ScriptedChatModel
from app.core.state import AgentState, ErrorBlock, Message, ToolResultBlock
from tests.core.recording import RecordingCheckpointer

CFG: dict[str, Any] = {"thread_id": "t", "tool_permissions": ["crm:write"]}


def results(state: AgentState) -> list[ToolResultBlock]:
    return [r for m in state.context if m.role == "tool" for r in m.tool_results()]


@tool(permissions=("crm:write",), requires_approval=True)
def update_ticket(ticket_id: str, status: str, runtime: Runtime) -> dict[str, Any]:
    """Change a support ticket's status.

    Args:
        ticket_id: The ticket, e.g. T-42.
        status: The new status.
    """
    return {"ticket": ticket_id, "status": status, "key": runtime.idempotency_key}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def pick(city: str) -> ToolResult:
    """Pick a city and remember it."""
    return ToolResult(message=f"picked {city}", state={"context_summary": city})


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


async def test_seed_example_pauses_for_approval_then_runs() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [call("update_ticket", ticket_id="T-42", status="closed")]},
            {"text": "Ticket T-42 is closed."},
        ]
    )
    agent = create_agent(
        model,
        [update_ticket],
        system_prompt="Resolve support requests safely.",
        checkpointer=InMemoryCheckpointer(),
    )
    cfg = {**CFG, "max_model_calls": 8, "max_tool_calls": 4}
    paused = await agent.ainvoke({"messages": [HumanMessage("Close ticket T-42")]}, cfg)
    [pending] = paused.execution_meta.interrupts
    [request] = pending.value["requests"]  # type: ignore[index, call-overload]
    assert request["tool"] == "update_ticket"
    assert request["args"] == {"ticket_id": "T-42", "status": "closed"}
    assert "runtime" not in str(request["args"])
    done = await agent.ainvoke(Resume({request["call_id"]: "approve"}), cfg)
    assert done.context[-1].text() == "Ticket T-42 is closed."
    assert results(done)[0].output["status"] == "closed"  # type: ignore[index, call-overload]
    # the system prompt is sent, not stored
    assert model.calls[0][0].role == "system"
    assert all(m.role != "system" for m in done.context)


async def test_parallel_calls_come_back_in_call_order() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [call("add", a=1, b=2), call("add", a=10, b=20)]},
            {"text": "3 and 30"},
        ]
    )
    done = await create_agent(model, [add]).ainvoke({"messages": [HumanMessage("sums")]})
    assert [r.output for r in results(done)] == [3, 30]
    tools_seen = model.tools_seen[0]
    assert [t.name for t in tools_seen] == ["add"]


async def test_denial_reason_reaches_the_model() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [call("update_ticket", ticket_id="T-1", status="open")]},
            {"text": "Understood, I left it."},
        ]
    )
    agent = create_agent(model, [update_ticket], checkpointer=InMemoryCheckpointer())
    paused = await agent.ainvoke({"messages": [HumanMessage("reopen T-1")]}, CFG)
    cid = paused.execution_meta.interrupts[0].value["requests"][0]["call_id"]  # type: ignore[index, call-overload]
    done = await agent.ainvoke(
        Resume({cid: {"decision": "deny", "reason": "T-1 belongs to another team"}}), CFG
    )
    [result] = results(done)
    assert result.status == "error"
    assert "another team" in str(result.output)
    assert "another team" in str(model.calls[1][-1].content)


async def test_malformed_calls_become_errors_the_model_can_fix() -> None:
    model = ScriptedChatModel(
        [
            {
                "tool_calls": [
                    {"name": "nope", "args": {}},
                    {"name": "add", "args": "{not json"},
                    {"name": "add", "args": {"a": "one", "b": 2}},
                ]
            },
            {"tool_calls": [call("add", a=1, b=2)]},
            {"text": "3"},
        ]
    )
    done = await create_agent(model, [add]).ainvoke({"messages": [HumanMessage("add")]})
    first = results(done)[:3]
    assert [r.status for r in first] == ["error", "error", "error"]
    assert "nope" in str(first[0].output)
    assert results(done)[3].output == 3
    assert done.context[-1].text() == "3"


async def test_model_call_budget_ends_the_turn_with_a_final_message() -> None:
    model = ScriptedChatModel([{"tool_calls": [call("add", a=1, b=1)]}, {"text": "2"}])
    done = await create_agent(model, [add]).ainvoke(
        {"messages": [HumanMessage("add")]}, {"max_model_calls": 1}
    )
    assert model.remaining == 1  # the second call was never made
    assert "model-call budget (1)" in done.context[-1].text()
    assert done.context[-1].end_reason == "budget"
    assert results(done)[0].output == 2  # state intact


async def test_tool_call_budget_is_checked_before_calls() -> None:
    model = ScriptedChatModel(
        [{"tool_calls": [call("add", a=1, b=1), call("add", a=2, b=2)]}, {"text": "done"}]
    )
    done = await create_agent(model, [add]).ainvoke(
        {"messages": [HumanMessage("add")]}, {"max_tool_calls": 1}
    )
    first, second = results(done)
    assert first.output == 2
    assert second.status == "error"
    assert "budget" in str(second.output)
    assert "tool-call budget (1)" in done.context[-1].text()


async def test_a_budget_stop_in_an_earlier_turn_does_not_end_the_next_one() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [call("add", a=1, b=1), call("add", a=2, b=2)]},
            {"tool_calls": [call("add", a=3, b=3)]},
            {"text": "six"},
        ]
    )
    agent = create_agent(model, [add], checkpointer=InMemoryCheckpointer())
    first = await agent.ainvoke({"messages": [HumanMessage("add")]}, {**CFG, "max_tool_calls": 1})
    assert first.context[-1].end_reason == "budget"
    # the next turn has no tool-call limit: the old budget error must not end it
    done = await agent.ainvoke({"messages": [HumanMessage("and 3+3?")]}, CFG)
    assert results(done)[-1].output == 6
    assert done.context[-1].text() == "six"
    assert model.remaining == 0


async def test_budgets_are_shared_with_child_agents() -> None:
    m1 = ScriptedChatModel([{"text": "first"}])
    m2 = ScriptedChatModel([{"text": "second"}])
    parent = (
        StateGraph(AgentState)
        .add_node("one", create_agent(m1, name="one"))
        .add_node("two", create_agent(m2, name="two"))
        .add_edge(START, "one")
        .add_edge("one", "two")
        .compile()
    )
    done = await parent.ainvoke({"messages": [HumanMessage("hi")]}, {"max_model_calls": 1})
    # one call for the whole run: the first agent spends it, the second is never asked
    assert [m.text() for m in done.context] == [
        "hi",
        "first",
        "I stopped before finishing: the model-call budget (1) is used up.",
    ]
    assert done.context[-1].end_reason == "budget"
    assert m1.remaining == 0 and len(m1.calls) == 1
    assert m2.calls == [] and m2.remaining == 1


async def test_near_the_step_limit_the_model_answers_without_tools() -> None:
    model = ScriptedChatModel(
        [{"tool_calls": [call("add", a=1, b=1)]}, {"text": "out of steps: 2"}]
    )
    done = await create_agent(model, [add]).ainvoke(
        {"messages": [HumanMessage("add")]}, {"step_limit": 4}
    )
    assert model.tools_seen[0] and model.tools_seen[1] == []
    assert "run out of steps" in model.calls[1][0].text()
    assert done.context[-1].text() == "out of steps: 2"
    assert done.execution_meta.status == "completed"


class City(BaseModel):
    name: str
    population: int


async def test_structured_output_is_repaired_then_parsed() -> None:
    model = ScriptedChatModel(
        [
            {"text": "Oslo, about 700k"},
            {"text": '```json\n{"name": "Oslo", "population": 709000}\n```'},
        ]
    )
    done = await create_agent(model, response_format=City).ainvoke(
        {"messages": [HumanMessage("biggest city in Norway?")]}
    )
    repair = model.calls[1][-1]
    assert repair.note == "repair" and "not valid JSON" in repair.text()
    assert done.context[-1].metadata["structured_response"] == {
        "name": "Oslo",
        "population": 709000,
    }


async def test_structured_output_gives_up_clearly() -> None:
    model = ScriptedChatModel(["nope", "still no", "never"])
    done = await create_agent(model, response_format=City, max_repairs=2).ainvoke(
        {"messages": [HumanMessage("city?")]}
    )
    errors = [b for b in done.context[-1].content if isinstance(b, ErrorBlock)]
    assert errors and "after 2 repairs" in errors[0].error
    assert model.remaining == 0


async def test_a_stopped_structured_reply_is_not_sent_back_for_repair() -> None:
    model = ScriptedChatModel(['{"name": "Oslo", "population": 709000}'], chunk_size=2, delay=0.001)
    agent = create_agent(model, response_format=City, checkpointer=InMemoryCheckpointer())
    seen = 0
    async for ev in agent.astream({"messages": [HumanMessage("city?")]}, {"thread_id": "t"}):
        if ev.kind == "message_delta":
            seen += 1
            if seen == 3:
                agent.request_stop("t")
    snap = await agent.aget_state({"thread_id": "t"})
    assert snap is not None
    assert [m.role for m in snap.state.context] == ["user", "assistant"]
    assert snap.state.context[-1].end_reason == "stopped"
    assert snap.next == ()


async def test_structured_output_near_the_step_limit_answers_instead_of_failing() -> None:
    model = ScriptedChatModel(
        [{"tool_calls": [call("add", a=1, b=2)]}, "Oslo, I think", "never reached"]
    )
    done = await create_agent(model, [add], response_format=City).ainvoke(
        {"messages": [HumanMessage("city?")]}, {"step_limit": 4}
    )
    last = done.context[-1]
    assert last.end_reason == "invalid_output" and "structured_error" in last.metadata
    assert any(isinstance(b, ErrorBlock) for b in last.content)
    assert done.execution_meta.status == "completed" and model.remaining == 1


async def test_trimming_keeps_the_window_and_summarises_the_rest() -> None:
    model = ScriptedChatModel(
        ["ok"], info=ModelInfo(spec="s", name="s", provider="s", context_window=1300)
    )
    history = [
        Message.text_message(
            f"message {i}: " + "word " * 100, role="user" if i % 2 else "assistant"
        )
        for i in range(20)
    ]
    done = await create_agent(model, trim_context=True).ainvoke({"messages": history})
    sent = model.calls[0]
    assert len(sent) < len(history)
    assert sent[0].role == "system" and "message 0" in sent[0].text()
    assert done.context_summary is not None and "message 0" in done.context_summary
    assert len(done.context) == 21  # the stored state keeps everything


async def test_a_model_error_is_kept_in_the_reply() -> None:
    model = ScriptedChatModel([{"error": "the server went away"}])
    done = await create_agent(model).ainvoke({"messages": [HumanMessage("hi")]})
    last = done.context[-1]
    assert any(isinstance(b, ErrorBlock) and "went away" in b.error for b in last.content)
    assert done.execution_meta.status == "completed"


async def test_stop_ends_the_streamed_reply_early() -> None:
    model = ScriptedChatModel(["a long answer " * 50], chunk_size=2, delay=0.001)
    agent = create_agent(model, checkpointer=InMemoryCheckpointer())
    seen = 0
    async for ev in agent.astream({"messages": [HumanMessage("talk")]}, {"thread_id": "t"}):
        if ev.kind == "message_delta":
            seen += 1
            if seen == 3:
                agent.request_stop("t")
    snap = await agent.aget_state({"thread_id": "t"})
    assert snap is not None
    reply = snap.state.context[-1]
    assert reply.end_reason == "stopped"
    assert 0 < len(reply.text()) < len("a long answer " * 50)


async def test_idempotency_key_is_the_same_when_a_call_runs_again() -> None:
    def script() -> ScriptedChatModel:
        return ScriptedChatModel(
            [
                {
                    "id": "m1",
                    "tool_calls": [
                        {"id": "c1", **call("update_ticket", ticket_id="T", status="x")}
                    ],
                },
                {"text": "done"},
            ]
        )

    saver = InMemoryCheckpointer()
    agent = create_agent(script(), [update_ticket], checkpointer=saver)
    await agent.ainvoke({"messages": [HumanMessage("go")]}, CFG)
    paused_at = (await agent.aget_state(CFG)).checkpoint_id  # type: ignore[union-attr]
    first = await agent.ainvoke(Resume({"c1": "approve"}), CFG)
    # run the same approved call again from the paused checkpoint, as after a crash
    again = create_agent(script(), [update_ticket], checkpointer=saver)
    await asyncio.sleep(0)
    second = await again.ainvoke(Resume({"c1": "approve"}), {**CFG, "checkpoint_id": paused_at})
    k1 = results(first)[0].output["key"]  # type: ignore[index, call-overload]
    k2 = results(second)[0].output["key"]  # type: ignore[index, call-overload]
    assert k1 == k2


async def test_a_model_that_fails_before_streaming_is_kept_as_an_error() -> None:
    from app.core.errors import ModelAuthError

    class Keyless(ScriptedChatModel):
        def astream(self, *args: Any, **kwargs: Any) -> Any:
            raise ModelAuthError("No API key is set.")

    done = await create_agent(Keyless([])).ainvoke({"messages": [HumanMessage("hi")]})
    errors = [b for b in done.context[-1].content if isinstance(b, ErrorBlock)]
    assert errors[0].error == "No API key is set."


async def test_cost_budget_uses_the_model_prices_and_is_streamed_as_events() -> None:
    from app.core.graph import BudgetChanged
    from app.core.models import ModelPrice

    info = ModelInfo(
        spec="s", name="s", provider="s",
        price=ModelPrice(input_per_mtok=1_000_000.0, output_per_mtok=1_000_000.0),
    )  # fmt: skip
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    model = ScriptedChatModel(
        [{"tool_calls": [call("add", a=1, b=2)], "usage": usage}, {"text": "3", "usage": usage}],
        info=info,
    )
    events = [
        ev
        async for ev in create_agent(model, [add]).astream(
            {"messages": [HumanMessage("add")]}, {"max_cost": 4.0}
        )
    ]
    spent = [ev.usage.cost for ev in events if isinstance(ev, BudgetChanged)]
    assert spent[0] == 5.0  # 3 + 2 tokens at $1 each
    assert model.remaining == 1  # $5 spent of $4: the second call was not made
    final = events[-1].state  # type: ignore[union-attr]
    assert "cost budget ($4.0000)" in final.context[-1].text()


async def test_budgets_keep_counting_across_an_approval_pause() -> None:
    model = ScriptedChatModel(
        [
            {"tool_calls": [call("update_ticket", ticket_id="T-9", status="closed")]},
            {"text": "Closed."},
        ]
    )
    agent = create_agent(model, [update_ticket], checkpointer=InMemoryCheckpointer())
    cfg = {**CFG, "max_model_calls": 1}
    paused = await agent.ainvoke({"messages": [HumanMessage("close T-9")]}, cfg)
    assert paused.execution_meta.spent["model_calls"] == 1
    cid = paused.execution_meta.interrupts[0].value["requests"][0]["call_id"]  # type: ignore[index, call-overload]
    done = await agent.ainvoke(Resume({cid: "approve"}), cfg)
    # the approved call ran, but the one model call this turn allows was already spent
    assert results(done)[0].status == "completed"
    assert "model-call budget (1)" in done.context[-1].text()
    assert model.remaining == 1
    # a new turn starts with a fresh budget
    again = await agent.ainvoke({"messages": [HumanMessage("thanks")]}, cfg)
    assert again.context[-1].text() == "Closed."


async def test_a_tool_result_message_is_written_as_a_small_change() -> None:
    model = ScriptedChatModel([{"tool_calls": [call("pick", city="Oslo")]}, {"text": "ok"}])
    saver = RecordingCheckpointer()
    done = await create_agent(model, [pick], checkpointer=saver).ainvoke(
        {"messages": [HumanMessage("pick")]}, {"thread_id": "t"}
    )
    assert done.context_summary == "Oslo"
    assert results(done)[0].output == "picked Oslo"
    # only the very first save writes everything; each step after names what it changed
    assert saver.changes[0] is None
    assert all(c is not None for c in saver.changes[1:])
    tool_step = next(c for c in saver.changes[1:] if "context_summary" in c.fields)
    assert tool_step.upserted == (done.context[-2].message_id,)  # the tool's answer


async def test_structured_repair_never_runs_past_the_step_limit() -> None:
    model = ScriptedChatModel(["not json", "still not json", "nope"])
    done = await create_agent(model, response_format=City).ainvoke(
        {"messages": [HumanMessage("city?")]}, {"step_limit": 2}
    )
    errors = [b for b in done.context[-1].content if isinstance(b, ErrorBlock)]
    assert errors and "structured" in (errors[0].code or "")
    assert done.execution_meta.status == "completed"


async def test_the_reply_limit_and_trimming_agree() -> None:
    info = ModelInfo(
        spec="s", name="s", provider="s", context_window=40_000, max_output_tokens=64_000
    )
    model = ScriptedChatModel(["ok"], info=info)
    history = [
        Message.text_message("word " * 4000, role="user" if i % 2 else "assistant")
        for i in range(30)
    ]  # about 150,000 characters: far more than fits
    await create_agent(model, trim_context=True).ainvoke({"messages": history})
    [config] = model.configs_seen
    assert config is not None
    assert config.max_tokens == 16_384  # asked for, capped below the model's own limit
    sent = sum(len(m.text()) for m in model.calls[0]) // 4
    assert sent + config.max_tokens <= info.context_window
