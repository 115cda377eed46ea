""" "Always allow in this thread", given for a delegate's call, covers that delegate only: the
thread's own agent and another delegate calling the same tool in the same thread are asked,
on a real database (the rule is kept with the agent it was given for)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core import HumanMessage, Resume
from app.core.graph.context import Interrupt
from app.core.models import ScriptedChatModel
from app.core.tools import Tool, requests_of, tool
from app.services.approval_policy import StoreApprovalPolicy
from app.services.delegation import AgentSpec, build_agent
from app.store import Store

PARLEY = AgentSpec(name="Parley", tools=("write_note",), delegates=("Researcher", "Checker"))
RESEARCHER = AgentSpec(name="Researcher", model="scripted:researcher", tools=("write_note",))
CHECKER = AgentSpec(name="Checker", model="scripted:checker", tools=("write_note",))


def call(name: str, call_id: str, **args: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args, "id": call_id}]}


async def test_always_in_this_thread_for_a_delegate_covers_that_delegate_only(
    tmp_path: Path,
) -> None:
    notes: list[str] = []

    @tool(permissions=("files:write",), requires_approval=True)
    def write_note(text: str) -> str:
        """Write a note."""
        notes.append(text)
        return "written"

    models = {
        "scripted:thread": ScriptedChatModel(
            [
                call("ask_researcher", "d1", task="Note a."),
                "Noted.",
                call("write_note", "own", text="mine"),
                "Fine.",
                call("ask_checker", "d2", task="Note b."),
                "Fine.",
                call("ask_researcher", "d3", task="Note c."),
                "Noted again.",
            ]
        ),
        "scripted:researcher": ScriptedChatModel(
            [
                call("write_note", "r1", text="a"),
                "Done.",
                call("write_note", "r2", text="c"),
                "Done.",
            ]
        ),
        "scripted:checker": ScriptedChatModel([call("write_note", "k1", text="b"), "Denied."]),
    }
    tools: dict[str, Tool[..., Any]] = {"write_note": write_note}

    def tools_named(names: Sequence[str]) -> dict[str, Tool[..., Any]]:
        return {n: tools[n] for n in names if n in tools}

    config = {"thread_id": "t1", "tool_permissions": ["files:write"]}
    async with Store.open(tmp_path / "parley.db") as store:
        await store.create_thread("notes", thread_id="t1")
        graph = await build_agent(
            "Parley",
            {a.name: a for a in (PARLEY, RESEARCHER, CHECKER)},
            models=models.__getitem__,
            tools=tools_named,
            thread_model="scripted:thread",
            checkpointer=store.checkpointer,
            approval_policy=StoreApprovalPolicy(store),
        )

        def asked(state: Any) -> tuple[Interrupt, list[tuple[str, str | None]]]:
            [pending] = state.execution_meta.interrupts
            return pending, [(r.call_id, r.agent) for r in requests_of(pending.value) or []]

        state = await graph.ainvoke({"messages": [HumanMessage("Note a")]}, config)
        pending, calls = asked(state)
        assert calls == [("r1", "Researcher")]
        always = {"r1": {"decision": "always", "scope": "thread"}}
        await graph.ainvoke(Resume(answers={pending.id: always}), config)
        assert notes == ["a"]
        rules = await store.list_allow_rules(thread_id="t1")
        assert [(r.tool, r.thread_id, r.agent) for r in rules] == [
            ("write_note", "t1", "Researcher")
        ]

        # the thread's own agent calling the same tool in the same thread is asked
        state = await graph.ainvoke({"messages": [HumanMessage("Note yours")]}, config)
        pending, calls = asked(state)
        assert calls == [("own", None)]
        await graph.ainvoke(Resume(answers={pending.id: {"own": "deny"}}), config)

        # and so is another delegate
        state = await graph.ainvoke({"messages": [HumanMessage("Note b")]}, config)
        pending, calls = asked(state)
        assert calls == [("k1", "Checker")]
        await graph.ainvoke(Resume(answers={pending.id: {"k1": "deny"}}), config)

        # the delegate it was given for runs unasked
        state = await graph.ainvoke({"messages": [HumanMessage("Note c")]}, config)
        assert not state.execution_meta.interrupts
        assert notes == ["a", "c"]
        audit = await store.list_approvals(thread_id="t1")
        assert [e.decision for e in audit if e.decision == "allowed_by_rule"] == ["allowed_by_rule"]
