"""A model that keeps asking for the same call: not run again, then the turn ends."""

from __future__ import annotations

from typing import Any

from app.core import HumanMessage, create_agent, tool
from app.core.checkpoint import InMemoryCheckpointer
from app.core.models import ScriptedChatModel
from app.core.state import AgentState, ErrorBlock, Message, ToolResultBlock
from app.core.tools import ToolError

STOP = "Librarian kept asking for the same failing call; stopped."


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


def results(state: AgentState) -> list[ToolResultBlock]:
    return [r for m in state.context if m.role == "tool" for r in m.tool_results()]


def errors(message: Message) -> list[ErrorBlock]:
    return [b for b in message.content if isinstance(b, ErrorBlock)]


def read_file_tool(runs: list[str]) -> Any:
    @tool
    def read_file(path: str) -> str:
        """Read a text file."""
        runs.append(path)
        raise ToolError("no folder is shared with Parley, so no file can be used")

    return read_file


def clock_tool(runs: list[str]) -> Any:
    @tool
    def clock(zone: str) -> str:
        """The time in a zone."""
        runs.append(zone)
        return f"12:00 in {zone}"

    return clock


async def test_a_failed_call_is_not_run_again_and_a_second_repeat_ends_the_turn() -> None:
    runs: list[str] = []
    again = {"tool_calls": [call("read_file", path="test.txt")]}
    model = ScriptedChatModel([again, again, again, {"text": "never asked"}])
    agent = create_agent(
        model,
        [read_file_tool(runs)],
        checkpointer=InMemoryCheckpointer(),
        agent_name="Librarian",
    )
    done = await agent.ainvoke({"messages": [HumanMessage("pretty print?")]}, {"thread_id": "t"})

    assert runs == ["test.txt"]  # the tool ran once
    first, second = results(done)
    assert "no folder is shared" in str(first.output)
    # the model read, for the first repeat, that the call already failed, why, and what to do
    told = str(second.output)
    assert "already called read_file" in told
    assert "no folder is shared" in told
    assert "answer the user from what you already know" in told
    assert "different tool" in told
    assert told in str(model.calls[2][-1].content)
    # the second repeat ends the turn, with the sentence, and the model is not asked again
    last = done.context[-1]
    assert [e.error for e in errors(last)] == [STOP]
    assert [e.code for e in errors(last)] == ["repeated_call"]
    assert last.end_reason == "repeated_call"
    assert last.tool_calls() == []
    assert len(model.calls) == 3
    assert model.remaining == 1


async def test_the_third_unchanged_successful_call_is_not_run_and_a_fourth_ends_it() -> None:
    runs: list[str] = []
    again = {"tool_calls": [call("clock", zone="Oslo")]}
    model = ScriptedChatModel([again, again, again, again, {"text": "never asked"}])
    agent = create_agent(model, [clock_tool(runs)], agent_name="Parley")
    done = await agent.ainvoke({"messages": [HumanMessage("time?")]})

    assert runs == ["Oslo", "Oslo"]  # twice, not a third time
    outputs = [str(r.output) for r in results(done)]
    assert outputs[:2] == ["12:00 in Oslo", "12:00 in Oslo"]
    assert "you already have its result" in outputs[2]
    assert len(outputs) == 3
    last = done.context[-1]
    assert [e.error for e in errors(last)] == [
        "Parley kept asking for the same call, whose result it already had; stopped."
    ]
    assert len(model.calls) == 4
    assert model.remaining == 1


async def test_other_arguments_and_a_new_turn_start_afresh() -> None:
    runs: list[str] = []
    model = ScriptedChatModel(
        [
            {"tool_calls": [call("read_file", path="a.txt")]},
            # another path is another call, and runs
            {"tool_calls": [call("read_file", path="b.txt")]},
            {"text": "I could not read them."},
            {"tool_calls": [call("read_file", path="a.txt")]},
            {"text": "Still nothing."},
        ]
    )
    agent = create_agent(
        model, [read_file_tool(runs)], checkpointer=InMemoryCheckpointer(), agent_name="L"
    )
    cfg = {"thread_id": "t"}
    await agent.ainvoke({"messages": [HumanMessage("read a")]}, cfg)
    done = await agent.ainvoke({"messages": [HumanMessage("try a again")]}, cfg)
    assert runs == ["a.txt", "b.txt", "a.txt"]  # a failure in an earlier turn does not count
    assert done.context[-1].text() == "Still nothing."


async def test_arguments_in_another_order_are_the_same_call() -> None:
    runs: list[str] = []

    @tool
    def look(a: str, b: str) -> str:
        """Look something up."""
        runs.append(a + b)
        raise ToolError("nothing there")

    model = ScriptedChatModel(
        [
            {"tool_calls": [{"name": "look", "args": {"a": "1", "b": "2"}}]},
            {"tool_calls": [{"name": "look", "args": {"b": "2", "a": "1"}}]},
            {"text": "Nothing found."},
        ]
    )
    done = await create_agent(model, [look]).ainvoke({"messages": [HumanMessage("look")]})
    assert runs == ["12"]
    assert "already called look" in str(results(done)[1].output)
    assert done.context[-1].text() == "Nothing found."
