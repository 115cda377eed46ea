"""Rules of an agent on a real database, as a turn uses them: a rule of the thread's agent
lets its call inside the folder run unasked (the audit log names the rule), the same call on
another agent's thread is asked about, and a delegate's call is matched against the
delegate's own rules, never the asking agent's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core import HumanMessage
from app.core.models import ScriptedChatModel
from app.core.tools import ArgumentRule, Tool, requests_of, tool
from app.services.approval_policy import StoreApprovalPolicy
from app.services.delegation import AgentSpec, build_agent
from app.store import AgentRecord, Store


def write_call(path: Path, call_id: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "save", "args": {"path": str(path)}, "id": call_id}]}


async def turn(
    store: Store,
    thread_id: str,
    own: str,
    specs: dict[str, AgentSpec],
    scripts: dict[str, list[Any]],
) -> tuple[list[str], list[str]]:
    """Run one turn of ``own`` on ``thread_id``: what was saved and which calls were asked."""
    saved: list[str] = []

    @tool(requires_approval=True)
    def save(path: str) -> str:
        """Save a file."""
        saved.append(path)
        return "saved"

    models = {spec: ScriptedChatModel(script) for spec, script in scripts.items()}
    tools: dict[str, Tool[..., Any]] = {"save": save}
    graph = await build_agent(
        own,
        specs,
        models=models.__getitem__,
        tools=lambda names: {n: tools[n] for n in names if n in tools},
        thread_model="scripted:thread",
        checkpointer=store.checkpointer,
        approval_policy=StoreApprovalPolicy(store),
    )
    state = await graph.ainvoke({"messages": [HumanMessage("go")]}, {"thread_id": thread_id})
    asked = [
        str(r.args["path"])
        for i in state.execution_meta.interrupts
        for r in requests_of(i.value) or []
    ]
    return saved, asked


async def test_a_rule_of_the_threads_agent_allows_its_calls_only(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    inside = notes / "a.txt"
    specs = {n: AgentSpec(name=n, tools=("save",)) for n in ("Writer", "Reader")}
    script = {"scripted:thread": [write_call(inside, "c1"), "done"]}
    async with Store.open(tmp_path / "parley.db") as store:
        for name in specs:
            agent = await store.save_agent(AgentRecord(id="", name=name, tools=("save",)))
            await store.create_thread(name, thread_id=name)
            await store.set_thread_agent(name, agent.id)
        rule = ArgumentRule.folder("save", "path", str(notes)).for_agent("Writer")
        await store.add_argument_rule(rule)

        assert await turn(store, "Writer", "Writer", specs, script) == ([str(inside)], [])
        assert await turn(store, "Reader", "Reader", specs, script) == ([], [str(inside)])
        audit = await store.list_approvals(thread_id="Writer")
    assert [(e.decision, e.rule) for e in audit] == [
        ("allowed_by_rule", f"save inside {notes} for Writer")
    ]


async def test_a_delegates_call_is_matched_against_its_own_rules(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    inside = notes / "a.txt"
    specs = {
        "Writer": AgentSpec(name="Writer", delegates=("Researcher",), tools=("save",)),
        "Researcher": AgentSpec(name="Researcher", model="scripted:researcher", tools=("save",)),
    }
    ask = {"tool_calls": [{"name": "ask_researcher", "args": {"task": "Save."}, "id": "d1"}]}
    scripts = {
        "scripted:thread": [ask, "done"],
        "scripted:researcher": [write_call(inside, "c1"), "saved it"],
    }
    async with Store.open(tmp_path / "parley.db") as store:
        writer = await store.save_agent(AgentRecord(id="", name="Researcher", tools=("save",)))
        writer = await store.save_agent(
            AgentRecord(id="", name="Writer", tools=("save",), delegates=("Researcher",))
        )
        for thread in ("one", "two"):
            await store.create_thread(thread, thread_id=thread)
            await store.set_thread_agent(thread, writer.id)
        folder = ArgumentRule.folder("save", "path", str(notes))
        await store.add_argument_rule(folder.for_agent("Writer"))
        assert await turn(store, "one", "Writer", specs, scripts) == ([], [str(inside)])

        await store.add_argument_rule(folder.for_agent("Researcher"))
        assert await turn(store, "two", "Writer", specs, scripts) == ([str(inside)], [])
        audit = await store.list_approvals(thread_id="two")
    assert [e.rule for e in audit if e.decision == "allowed_by_rule"] == [
        f"save inside {notes} for Researcher"
    ]
