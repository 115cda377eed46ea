"""Delegation: a parent agent asks a delegate through ``ask_*``; the delegate runs as a child
run under the parent's budget and stop control, pauses the whole run for its approvals and
budget, and resumes where it paused, also after the process was cut off."""

from __future__ import annotations

import asyncio
from typing import Any

from app.core import HumanMessage, Resume, create_agent, tool
from app.core.agent.delegation import delegate_tool, tool_name_for
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import RunConfig, RunControl
from app.core.graph.budget_pause import budget_pause_of
from app.core.models import ScriptedChatModel
from app.core.state import AgentState, Message, ToolResultBlock
from app.core.tools import Runtime, requests_of


def ask(name: str, task: str, call_id: str = "d1") -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": {"task": task}, "id": call_id}]}


def use(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args, "id": call_id}]}


def tool_outputs(state: AgentState) -> dict[str, Any]:
    return {
        r.call_id: r.output for m in state.context if m.role == "tool" for r in m.tool_results()
    }


def by(state: AgentState, agent: str | None) -> list[Message]:
    return [m for m in state.context if m.agent == agent]


class Library:
    """The tools a researcher uses, keeping what they did."""

    def __init__(self) -> None:
        self.looked_up: list[str] = []
        self.written: list[str] = []

        @tool
        def look_up(query: str) -> str:
            """Look something up."""
            self.looked_up.append(query)
            return f"{query}: 42"

        @tool(requires_approval=True)
        def write_note(text: str) -> str:
            """Write a note to disk."""
            self.written.append(text)
            return "written"

        self.tools = [look_up, write_note]


def researcher(script: list[Any], library: Library, **kw: Any) -> tuple[Any, ScriptedChatModel]:
    model = ScriptedChatModel(script)
    graph = create_agent(
        model, library.tools, system_prompt="You research carefully.", name="researcher", **kw
    )
    return delegate_tool(graph, name="Researcher", asked_by="Parley"), model


def parley(script: list[Any], tools: list[Any], saver: InMemoryCheckpointer | None = None) -> Any:
    model = ScriptedChatModel(script)
    return create_agent(model, tools, checkpointer=saver or InMemoryCheckpointer()), model


def test_the_tool_name_is_the_slug_of_the_agent_name() -> None:
    assert tool_name_for("Researcher") == "ask_researcher"
    assert tool_name_for("Web Researcher 2") == "ask_web_researcher_2"
    assert tool_name_for("Ünïcode-Bot") == "ask_unicode_bot"
    assert tool_name_for("42") == "ask_42"
    assert tool_name_for("Исследователь") == "ask_issledovatel"
    assert tool_name_for("Ἀθηνᾶ") == "ask_athina"
    assert len({tool_name_for(n) for n in ("研究者", "調査員", "!!!", "Res 1", "Res 2")}) == 5
    assert tool_name_for("研究者") == tool_name_for(" 研究者 ")  # one name, one tool
    assert len(tool_name_for("x" * 60)) == 64 and len(tool_name_for("研" * 60)) == 16


async def test_a_delegate_does_the_task_with_its_tools_and_its_answer_flows_back() -> None:
    library = Library()
    child, child_model = researcher(
        [use("look_up", "l1", query="the answer"), {"text": "The answer is 42."}], library
    )
    parent, parent_model = parley(
        [ask("ask_researcher", "Find the answer."), {"text": "Researcher says 42."}], [child]
    )
    done = await parent.ainvoke({"messages": [HumanMessage("What is it?")]}, {"thread_id": "t"})

    assert done.context[-1].text() == "Researcher says 42."
    assert library.looked_up == ["the answer"]
    assert tool_outputs(done)["d1"] == "The answer is 42."
    # the delegate saw its own instructions and the task, not the parent's conversation
    first = child_model.calls[0]
    assert [(m.role, m.text()) for m in first] == [
        ("system", "You research carefully."),
        ("user", "Find the answer."),
    ]
    # its work is in the thread, marked with its name, and hidden from the parent's model
    work = by(done, "Researcher")
    assert [m.role for m in work] == ["user", "assistant", "tool", "assistant"]
    assert all(m.agent is None for m in parent_model.calls[1])
    assert "The answer is 42." in [r.output for r in parent_model.calls[1][-1].tool_results()]
    # the delegate's work comes before the parent's tool message
    roles = [(m.role, m.agent) for m in done.context]
    assert roles.index(("tool", None)) > roles.index(("assistant", "Researcher"))


async def test_the_shared_budget_pauses_inside_the_delegate_naming_it() -> None:
    library = Library()
    child, child_model = researcher(
        [use("look_up", "l1", query="q"), {"text": "Found it."}], library
    )
    saver = InMemoryCheckpointer()
    parent, _ = parley([ask("ask_researcher", "Look."), {"text": "All done."}], [child], saver)
    config = {"thread_id": "t", "budget_pause": True, "max_model_calls": 2}
    paused = await parent.ainvoke({"messages": [HumanMessage("Go")]}, config)

    assert paused.execution_meta.status == "interrupted"
    question = budget_pause_of(paused.execution_meta.interrupts[0].value)
    assert question is not None
    assert (question.limit, question.agent, question.asked_by) == (
        "max_model_calls",
        "Researcher",
        "Parley",
    )
    assert question.text == (
        "The next step of Researcher (asked by Parley) would go over the model-call budget (2)."
    )
    assert child_model.remaining == 1 and library.looked_up == ["q"]
    # what the delegate did so far is kept in the paused thread
    assert [m.role for m in by(paused, "Researcher")] == ["user", "assistant", "tool"]

    iid = paused.execution_meta.interrupts[0].id
    done = await parent.ainvoke(Resume(answers={iid: {"decision": "raise", "to": 4}}), config)
    assert done.context[-1].text() == "All done."
    assert library.looked_up == ["q"]  # the delegate went on; it did not start over
    assert tool_outputs(done)["d1"] == "Found it."


async def test_the_budget_is_counted_per_agent_and_all_of_it_is_the_turns() -> None:
    library = Library()
    child, _ = researcher([use("look_up", "l1", query="q"), {"text": "ok"}], library)
    parent, _ = parley([ask("ask_researcher", "Look."), {"text": "done"}], [child])
    control = RunControl()
    seen: list[Any] = []
    async for event in parent.astream(
        {"messages": [HumanMessage("Go")]}, RunConfig(thread_id="t", control=control)
    ):
        seen.append(event)
    budget = [e for e in seen if type(e).__name__ == "BudgetChanged"][-1]
    assert (budget.usage.model_calls, budget.usage.tool_calls) == (4, 2)
    assert {k: (u.model_calls, u.tool_calls) for k, u in budget.by_agent.items()} == {
        "": (2, 1),
        "Researcher": (2, 1),
    }


async def test_an_approval_inside_the_delegate_pauses_all_and_resumes_the_delegate() -> None:
    library = Library()
    saver = InMemoryCheckpointer()
    script = [use("write_note", "w1", text="hello"), {"text": "Noted."}]
    child, child_model = researcher(script, library)
    parent, _ = parley(
        [ask("ask_researcher", "Note hello."), {"text": "It is noted."}], [child], saver
    )
    paused = await parent.ainvoke({"messages": [HumanMessage("Note it")]}, {"thread_id": "t"})

    assert paused.is_interrupted() and library.written == []
    pending = paused.execution_meta.interrupts
    requests = requests_of(pending[0].value)
    assert requests is not None
    assert [(r.tool, r.agent, r.asked_by) for r in requests] == [
        ("write_note", "Researcher", "Parley")
    ]

    # a new process: the same agents built again on the saved thread
    child2, child_model2 = researcher(script[1:], library)
    again, _ = parley([{"text": "It is noted."}], [child2], saver)
    done = await again.ainvoke(
        Resume(answers={pending[0].id: {"w1": "approve"}}), {"thread_id": "t"}
    )
    assert library.written == ["hello"]
    assert child_model2.calls and child_model.remaining == 1
    assert done.context[-1].text() == "It is noted."
    assert tool_outputs(done)["d1"] == "Noted."


async def test_stop_during_the_delegate_stops_all_and_continuing_goes_on_there() -> None:
    library = Library()
    control = RunControl()

    @tool
    async def slow(query: str) -> str:
        """Look slowly."""
        control.request_stop()
        return f"slow {query}"

    model = ScriptedChatModel([use("slow", "s1", query="q"), {"text": "Slow answer."}])
    graph = create_agent(model, [slow, *library.tools], name="researcher")
    child = delegate_tool(graph, name="Researcher", asked_by="Parley")
    saver = InMemoryCheckpointer()
    parent, parent_model = parley(
        [ask("ask_researcher", "Go slow."), {"text": "Fine."}], [child], saver
    )
    config = RunConfig(thread_id="t", control=control)
    stopped = await parent.ainvoke({"messages": [HumanMessage("Go")]}, config)

    assert stopped.execution_meta.status == "stopped"
    assert model.remaining == 1 and parent_model.remaining == 1  # neither model went on
    assert [m.role for m in by(stopped, "Researcher")] == ["user", "assistant", "tool"]

    done = await parent.ainvoke(None, RunConfig(thread_id="t"))
    assert done.context[-1].text() == "Fine."
    assert tool_outputs(done)["d1"] == "Slow answer."
    assert tool_outputs(done)["s1"] == "slow q"


async def test_a_delegate_cut_off_by_a_killed_process_resumes_with_the_parent() -> None:
    library = Library()
    hang = asyncio.Event()
    hangs = [True]
    keys: list[str] = []

    @tool
    async def fetch(query: str, runtime: Runtime) -> str:
        """Fetch, slowly the first time."""
        keys.append(runtime.idempotency_key)
        if hangs.pop() if hangs else False:
            hang.set()
            await asyncio.sleep(3600)
        return f"fetched {query}"

    def build(script: list[Any]) -> Any:
        model = ScriptedChatModel(script)
        graph = create_agent(model, [fetch, *library.tools], name="researcher")
        return delegate_tool(graph, name="Researcher", asked_by="Parley")

    saver = InMemoryCheckpointer()
    child = build([use("look_up", "l1", query="first"), use("fetch", "f1", query="second")])
    parent, _ = parley([ask("ask_researcher", "Two things.")], [child], saver)
    run = asyncio.create_task(
        parent.ainvoke({"messages": [HumanMessage("Go")]}, {"thread_id": "t"})
    )
    await asyncio.wait_for(hang.wait(), 10)
    run.cancel()  # the process dies while the delegate's second tool runs
    await asyncio.gather(run, return_exceptions=True)

    child2 = build(["Both."])  # the new process's delegate has only its last reply to give
    again, _ = parley([{"text": "Done twice."}], [child2], saver)
    seen = [e async for e in again.astream(None, {"thread_id": "t"})]
    done = seen[-1].state
    assert library.looked_up == ["first"]  # the finished step was not run again
    # what the delegate spent before the cut-off still counts: 3 model calls and 2 tool
    # calls then, the cut-off call, the delegate's answer and the parent's reply now
    budget = [e for e in seen if type(e).__name__ == "BudgetChanged"][-1]
    assert (budget.usage.model_calls, budget.usage.tool_calls) == (5, 3)
    assert tool_outputs(done)["f1"] == "fetched second"
    assert len(keys) == 2 and keys[0] == keys[1]  # the cut-off call, with the same key
    assert tool_outputs(done)["d1"] == "Both."
    assert done.context[-1].text() == "Done twice."


def chain_of(names: list[str], library: Library) -> Any:
    """``names[0]`` asks ``names[1]`` asks ... ; each asks the next with the same task."""
    below: list[Any] = []
    for depth in range(len(names) - 1, 0, -1):
        name = names[depth]
        script: list[Any] = []
        if below:
            script.append(ask(tool_name_for(names[depth + 1]), "deeper", f"d{depth + 1}"))
        script.append({"text": f"{name} answers."})
        graph = create_agent(ScriptedChatModel(script), below, name=name.lower())
        below = [delegate_tool(graph, name=name, asked_by=names[depth - 1])]
    return below


async def test_a_fourth_level_of_delegation_is_refused() -> None:
    library = Library()
    names = ["Parley", "B", "C", "D", "E"]
    tools = chain_of(names, library)
    parent, _ = parley([ask("ask_b", "deeper", "d1"), {"text": "over"}], tools)
    done = await parent.ainvoke({"messages": [HumanMessage("Go")]}, {"thread_id": "t"})
    outputs = tool_outputs(done)
    assert outputs["d1"] == "B answers." and outputs["d3"] == "D answers."
    refused = [
        r
        for m in done.context
        for r in m.tool_results()
        if isinstance(r, ToolResultBlock) and r.call_id == "d4"
    ]
    assert refused[0].status == "error"
    assert "delegation is already 3 levels deep (Parley asks B asks C asks D)" in str(
        refused[0].output
    )
    assert {m.agent for m in done.context} == {None, "B", "C", "D"}


async def test_an_agent_asking_one_that_asks_it_is_refused_as_a_loop() -> None:
    library = Library()
    back = create_agent(ScriptedChatModel(["never"]), [], name="parley")
    ask_parley = delegate_tool(back, name="Parley", asked_by="Researcher")
    model = ScriptedChatModel([ask("ask_parley", "Ask me back.", "p1"), {"text": "Alone then."}])
    graph = create_agent(model, [ask_parley, *library.tools], name="researcher")
    child = delegate_tool(graph, name="Researcher", asked_by="Parley")
    parent, _ = parley([ask("ask_researcher", "Help."), {"text": "ok"}], [child])
    done = await parent.ainvoke({"messages": [HumanMessage("Go")]}, {"thread_id": "t"})
    loop = str(tool_outputs(done)["p1"])
    assert "Parley asks Researcher asks Parley would go round in a loop" in loop
    assert tool_outputs(done)["d1"] == "Alone then."


async def test_a_call_beside_the_delegate_is_not_run_again_when_the_delegate_resumes() -> None:
    library = Library()
    saver = InMemoryCheckpointer()
    child, _ = researcher([use("write_note", "w1", text="hi"), {"text": "Noted."}], library)
    both = {
        "tool_calls": [
            {"name": "ask_researcher", "args": {"task": "Note hi."}, "id": "d1"},
            {"name": "look_up", "args": {"query": "beside"}, "id": "l9"},
        ]
    }
    parent, _ = parley([both, {"text": "Both done."}], [child, library.tools[0]], saver)
    paused = await parent.ainvoke({"messages": [HumanMessage("Go")]}, {"thread_id": "t"})
    assert paused.is_interrupted() and library.looked_up == ["beside"]

    iid = paused.execution_meta.interrupts[0].id
    done = await parent.ainvoke(Resume(answers={iid: {"w1": "approve"}}), {"thread_id": "t"})
    assert library.looked_up == ["beside"] and library.written == ["hi"]
    assert tool_outputs(done)["l9"] == "beside: 42"
    assert done.context[-1].text() == "Both done."


async def test_who_spent_the_budget_is_kept_across_a_pause_and_a_restart() -> None:
    library = Library()
    saver = InMemoryCheckpointer()
    child, _ = researcher([use("look_up", "l1", query="q"), {"text": "ok"}], library)
    parent, _ = parley([ask("ask_researcher", "Look."), {"text": "done"}], [child], saver)
    config = {"thread_id": "t", "budget_pause": True, "max_model_calls": 2}
    paused = await parent.ainvoke({"messages": [HumanMessage("Go")]}, config)
    iid = paused.execution_meta.interrupts[0].id

    child2, _ = researcher([{"text": "ok"}], library)  # a new process goes on
    again, _ = parley([{"text": "done"}], [child2], saver)
    seen = [
        e
        async for e in again.astream(Resume(answers={iid: {"decision": "raise", "to": 4}}), config)
    ]
    budget = [e for e in seen if type(e).__name__ == "BudgetChanged"][-1]
    assert {k: (u.model_calls, u.tool_calls) for k, u in budget.by_agent.items()} == {
        "": (2, 1),
        "Researcher": (2, 1),
    }


async def test_a_delegate_has_the_permissions_it_was_granted_and_no_others() -> None:
    @tool(permissions=("crm:write",))
    def close_ticket(ticket: str) -> str:
        """Close a ticket."""
        return f"closed {ticket}"

    def build(grants: frozenset[str]) -> Any:
        script = [use("close_ticket", "c1", ticket="T-1"), "Closed it."]
        graph = create_agent(ScriptedChatModel(script), [close_ticket], name="clerk")
        return delegate_tool(graph, name="Clerk", asked_by="Parley", grants=grants)

    for grants, expected in (
        (frozenset({"crm:write"}), "closed T-1"),
        (frozenset(), "not permitted"),
    ):
        parent, _ = parley([ask("ask_clerk", "Close T-1."), "ok"], [build(grants)])
        done = await parent.ainvoke({"messages": [HumanMessage("Go")]}, {"thread_id": "t"})
        assert expected in str(tool_outputs(done)["c1"])
