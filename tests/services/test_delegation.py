"""From agent definitions to the graph a turn runs: ``ask_*`` tools for delegates, each with
its own instructions, model and tools, checked when saved (unknown delegates, loops, depth)
and run on a real database, where a delegate's approval survives a restart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from app.core import HumanMessage, Resume
from app.core.budget import BudgetLimits
from app.core.models import ScriptedChatModel
from app.core.tools import Tool, requests_of, tool
from app.services.agents import Agent
from app.services.approval_policy import StoreApprovalPolicy
from app.services.delegation import AgentSpec, DelegationError, build_agent, delegation_problems
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.store import Store, Thread

PARLEY = AgentSpec(name="Parley", delegates=("Researcher",))
RESEARCHER = AgentSpec(
    name="Researcher",
    instructions="You research carefully.",
    model="scripted:researcher",
    tools=("write_note",),
    limits=BudgetLimits(max_model_calls=5),
)


def agents(*specs: AgentSpec) -> dict[str, AgentSpec]:
    return {s.name: s for s in specs}


def test_saving_an_agent_names_each_delegation_problem_in_one_sentence() -> None:
    assert delegation_problems(agents(PARLEY, RESEARCHER), "Parley") == []
    ghost = AgentSpec(name="Parley", delegates=("Ghost",))
    assert delegation_problems(agents(ghost), "Parley") == [
        "Parley asks 'Ghost', which is not an agent here."
    ]
    a = AgentSpec(name="A", delegates=("B",))
    b = AgentSpec(name="B", delegates=("A",))
    assert delegation_problems(agents(a, b), "A") == [
        "A asks B asks A: an agent cannot ask one that is asking it."
    ]
    me = AgentSpec(name="Me", delegates=("Me",))
    assert delegation_problems(agents(me), "Me") == [
        "Me asks Me: an agent cannot ask one that is asking it."
    ]
    chain = [AgentSpec(name=n, delegates=(d,)) for n, d in zip("ABCD", "BCDE", strict=True)]
    deep = agents(*chain, AgentSpec(name="E"))
    assert delegation_problems(deep, "A") == [
        "A asks B asks C asks D asks E is deeper than 3 delegations."
    ]
    assert delegation_problems(deep, "B") == []
    clash = AgentSpec(name="P", delegates=("Web Bot", "web-bot"))
    assert delegation_problems(
        agents(clash, AgentSpec(name="Web Bot"), AgentSpec(name="web-bot")), "P"
    ) == ["Web Bot and web-bot would both be asked through ask_web_bot."]


class Kit:
    """Models by spec and tools by name, as the model and tool services give them."""

    def __init__(self, scripts: Mapping[str, list[Any]]) -> None:
        self.models = {spec: ScriptedChatModel(script) for spec, script in scripts.items()}
        self.notes: list[str] = []

        @tool(permissions=("files:write",), requires_approval=True)
        def write_note(text: str) -> str:
            """Write a note."""
            self.notes.append(text)
            return "written"

        self.tools: dict[str, Tool[..., Any]] = {"write_note": write_note}

    def model(self, spec: str) -> ScriptedChatModel:
        return self.models[spec]

    def tools_named(self, names: Sequence[str]) -> dict[str, Tool[..., Any]]:
        return {n: self.tools[n] for n in names if n in self.tools}


async def test_an_unknown_tool_or_agent_is_refused_in_one_sentence() -> None:
    kit = Kit({})
    broken = AgentSpec(name="Researcher", tools=("shell",))
    with pytest.raises(DelegationError, match="^Researcher uses the tool 'shell', which is"):
        await build_agent(
            "Parley",
            agents(PARLEY, broken),
            models=kit.model,
            tools=kit.tools_named,
            thread_model="scripted:x",
        )
    with pytest.raises(DelegationError, match="no agent named 'Nobody'"):
        await build_agent("Nobody", {}, models=kit.model, tools=kit.tools_named, thread_model="x")


async def test_a_delegates_approval_is_saved_and_answered_after_a_restart(tmp_path: Path) -> None:
    """The run grants no permission: the delegate's own tools' permissions come with it."""
    ask = {"tool_calls": [{"name": "ask_researcher", "args": {"task": "Note hi."}, "id": "d1"}]}
    note = {"tool_calls": [{"name": "write_note", "args": {"text": "hi"}, "id": "w1"}]}
    kit = Kit({"scripted:thread": [ask], "scripted:researcher": [note]})
    config = {"thread_id": "t1"}
    async with Store.open(tmp_path / "parley.db") as store:
        await store.create_thread("notes", thread_id="t1")
        policy = StoreApprovalPolicy(store)
        graph = await build_agent(
            "Parley",
            agents(PARLEY, RESEARCHER),
            models=kit.model,
            tools=kit.tools_named,
            thread_model="scripted:thread",
            checkpointer=store.checkpointer,
            approval_policy=policy,
        )
        await graph.ainvoke({"messages": [HumanMessage("Take a note")]}, config)
        [pending] = await store.checkpointer.apending_interrupts("t1")
    # the researcher saw its own instructions, through its own model
    first = kit.models["scripted:researcher"].calls[0]
    assert [m.text() for m in first] == ["You research carefully.", "Note hi."]
    [request] = requests_of(pending.value) or []
    assert (request.tool, request.agent, request.asked_by) == ("write_note", "Researcher", "Parley")

    kit2 = Kit({"scripted:thread": ["Noted, thanks."], "scripted:researcher": ["Done: hi."]})
    async with Store.open(tmp_path / "parley.db") as store:
        graph = await build_agent(
            "Parley",
            agents(PARLEY, RESEARCHER),
            models=kit2.model,
            tools=kit2.tools_named,
            thread_model="scripted:thread",
            checkpointer=store.checkpointer,
            approval_policy=StoreApprovalPolicy(store),
        )
        done = await graph.ainvoke(Resume(answers={pending.id: {"w1": "approve"}}), config)
        audit = await store.list_approvals(thread_id="t1")
    assert kit2.notes == ["hi"] and kit.notes == []
    assert done.context[-1].text() == "Noted, thanks."
    assert [m.text() for m in done.context if m.agent == "Researcher" and m.role == "assistant"][
        -1
    ] == "Done: hi."
    assert {(e.tool, e.decision) for e in audit} == {
        ("write_note", "requested"),
        ("write_note", "approve"),
    }


async def saved_agents(ws: Workspace, *agents: Agent) -> Thread:
    """Save ``agents`` as a person does, and start a thread of the first one."""
    saved = [await ws.agents.add(a) for a in reversed(agents)]  # delegates are saved first
    return await ws.threads.create(title=agents[0].name, agent_id=saved[-1].id)


LEAD = Agent(name="Lead", delegates=("Researcher",))
"""A saved agent that asks the saved Researcher, on the thread's model."""


async def test_a_thread_whose_agent_asks_no_one_runs_as_before(tmp_path: Path) -> None:
    model = ScriptedChatModel(["Plain answer."])
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=lambda _spec: model, secret_resolver=lambda _r: ""
    )
    try:
        ws.settings.use(AppSettings(default_model="scripted:a"))
        plain = await ws.threads.create(title="plain")
        thread = await saved_agents(ws, Agent(name="Solo"))
        # the plain agent loop, as for a thread of "Parley" (its own, as it names its agent)
        solo, parley = await ws.models.agent_for(thread), await ws.models.agent_for(plain)
        assert solo.name == parley.name == "agent"
        assert list(solo.nodes) == list(parley.nodes) == ["agent", "tools"]
        await (await ws.runs.send(thread.id, "hello"))
        state = await ws.threads.saved_state(thread.id)
        assert state is not None
        assert [m.text() for m in state.context] == ["hello", "Plain answer."]
        assert all(m.agent is None for m in state.context)
    finally:
        await ws.aclose()


async def test_a_delegates_messages_reach_the_bus_while_it_works(tmp_path: Path) -> None:
    from app.services.events import MessageAdded, MessageStreamed

    ask = {"tool_calls": [{"name": "ask_researcher", "args": {"task": "Look."}, "id": "d1"}]}
    models = {
        "scripted:a": ScriptedChatModel([ask, "Parent done."]),
        "scripted:researcher": ScriptedChatModel(["Researcher's answer."]),
    }
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=models.__getitem__, secret_resolver=lambda _r: ""
    )
    seen: list[tuple[str, str | None, str]] = []

    def listen(event: object) -> None:
        if isinstance(event, MessageAdded):
            seen.append(("added", event.message.agent, event.message.role))
        elif isinstance(event, MessageStreamed):
            seen.append(("streamed", event.merge.message().agent, "assistant"))

    try:
        ws.settings.use(AppSettings(default_model="scripted:a"))
        researcher = Agent(name="Researcher", model="scripted:researcher")
        thread = await saved_agents(ws, LEAD, researcher)
        ws.events.subscribe(listen)
        await (await ws.runs.send(thread.id, "Go"))
        delegated = [i for i, s in enumerate(seen) if s[1] == "Researcher"]
        answered = seen.index(("added", None, "tool"))
        assert ("streamed", "Researcher", "assistant") in seen  # as it was written
        assert delegated and max(delegated) < answered  # before the parent read its answer
        assert seen[-1] == ("added", None, "assistant")
    finally:
        await ws.aclose()


async def test_answering_again_drops_the_delegates_work_with_the_reply(tmp_path: Path) -> None:
    ask = {"tool_calls": [{"name": "ask_researcher", "args": {"task": "Look."}, "id": "d1"}]}
    models = {
        "scripted:a": ScriptedChatModel([ask, "Parent done.", "Second try."]),
        "scripted:researcher": ScriptedChatModel(["Researcher's answer."]),
    }
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=models.__getitem__, secret_resolver=lambda _r: ""
    )
    try:
        ws.settings.use(AppSettings(default_model="scripted:a"))
        researcher = Agent(name="Researcher", model="scripted:researcher")
        thread = await saved_agents(ws, LEAD, researcher)
        await (await ws.runs.send(thread.id, "Go"))
        first = await ws.threads.saved_state(thread.id)
        assert first is not None
        assert "Researcher" in [m.agent for m in first.context]  # the delegate's work is there
        await (await ws.runs.regenerate(thread.id))
        state = await ws.threads.saved_state(thread.id)
        assert state is not None
        assert [(m.role, m.text()) for m in state.context] == [
            ("user", "Go"),
            ("assistant", "Second try."),
        ]
    finally:
        await ws.aclose()
