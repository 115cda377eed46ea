"""Agents through the workspace: each refusal in one sentence, a thread that runs its agent's
instructions, model, tools and limits, and "Parley" threads as they were."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.budget import BudgetLimits
from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.services.agents import BUILTIN_AGENT_ID, Agent
from app.services.agents.service import agent_names
from app.services.events import AgentsChanged, WorkspaceEvent
from app.services.settings import AppSettings
from app.services.workspace import Workspace


async def _open(tmp_path: Path, **models: ScriptedChatModel) -> Workspace:
    def resolve(spec: str) -> Any:
        if spec not in models:
            raise UserError(f"unknown model {spec!r}")
        return models[spec]

    ws = await Workspace.open(tmp_path, resolve_model=resolve, secret_resolver=lambda r: "")
    ws.settings.use(AppSettings(default_model=next(iter(models))))
    return ws


@pytest.mark.parametrize(
    ("draft", "sentence"),
    [
        (Agent(name="A", tools=("no_such_tool",)), "There is no tool called no_such_tool here."),
        (Agent(name="A", delegates=("Ghost",)), "There is no agent called 'Ghost'"),
        (Agent(name="A", delegates=("a",)), "An agent cannot delegate to itself."),
        (Agent(name="A", starters=("1", "2", "3", "4")), "at most 3 starter prompts"),
        (Agent(name="A", limits=BudgetLimits(max_tool_calls=0)), "max_tool_calls is 0"),
        (Agent(name="A", limits=BudgetLimits(max_cost=-1.0)), "max_cost is -1"),
        (Agent(name="  "), "An agent needs a name."),
        (Agent(name="A", instructions="x" * 40_000), "at most 32,000 fit"),
        (Agent(name="A\x1b[2J"), "control or invisible characters"),
        (Agent(name="parley"), "Another agent is already called Parley."),
        (Agent(name="A", model="nonsense"), "Unknown model spec"),
    ],
)
async def test_what_cannot_be_saved_is_refused_in_one_sentence(
    tmp_path: Path, draft: Agent, sentence: str
) -> None:
    ws = await _open(tmp_path, **{"scripted:a": ScriptedChatModel([])})
    try:
        with pytest.raises(UserError, match=sentence.replace("(", r"\(").replace(".", r"\.")) as e:
            await ws.agents.add(draft)
        assert str(e.value).count(". ") == 0  # one sentence
        assert [a.name for a in await ws.agents.list()] == ["Parley"]
    finally:
        await ws.aclose()


async def test_a_loop_and_a_chain_too_deep_are_refused_when_saved(tmp_path: Path) -> None:
    ws = await _open(tmp_path, **{"scripted:a": ScriptedChatModel([])})
    try:
        b = await ws.agents.add(Agent(name="B"))
        a = await ws.agents.add(Agent(name="A", delegates=("B",)))
        with pytest.raises(UserError, match="loop of delegation: B → A → B"):
            await ws.agents.edit(b.id, b.model_copy(update={"delegates": ("A",)}))
        c = await ws.agents.add(Agent(name="C", delegates=("A",)))
        d = await ws.agents.add(Agent(name="D", delegates=("C",)))  # D → C → A → B: 3 hops
        with pytest.raises(UserError, match="deeper than 3"):
            await ws.agents.add(Agent(name="E", delegates=("D",)))
        assert {x.name for x in await ws.agents.list()} == {"Parley", "A", "B", "C", "D"}
        assert (await ws.agents.get("a")).delegates == ("B",)
        assert [x.name for x in await ws.agents.delegates_of(d)] == ["C"]
        assert a.id and c.id and d.id
    finally:
        await ws.aclose()


async def test_a_thread_runs_its_agent_and_the_next_turn_sees_an_edit(tmp_path: Path) -> None:
    plain = ScriptedChatModel([{"text": "plain"}])
    special = ScriptedChatModel([{"text": "one"}, {"text": "two"}])
    ws = await _open(tmp_path, **{"scripted:plain": plain, "scripted:special": special})
    events: list[WorkspaceEvent] = []
    ws.events.subscribe(events.append)
    try:
        agent = await ws.agents.add(
            Agent(
                name="Pirate",
                instructions="Talk like a pirate.",
                model="scripted:special",
                tools=("current_time", "calculator"),
            )
        )
        assert AgentsChanged(agent.id) in events
        thread = await ws.threads.create(title="ahoy", agent_id=agent.id)
        assert (await ws.runs.send(thread.id, "Hello")) is not None
        await ws.runs.wait_idle()
        assert special.calls[0][0].role == "system"
        assert special.calls[0][0].text() == "Talk like a pirate."
        assert [t.name for t in special.tools_seen[0]] == ["current_time", "calculator"]
        await ws.agents.edit(agent.id, agent.model_copy(update={"instructions": "Be brief."}))
        await (await ws.runs.send(thread.id, "Again"))
        assert special.calls[1][0].text() == "Be brief."
        # a thread of Parley keeps its own prompt and model
        own = await ws.threads.create(title="plain", model="scripted:plain")
        await ws.threads.set_system_prompt(own.id, "Plain words.")
        await (await ws.runs.send(own.id, "Hi"))
        assert plain.calls[0][0].text() == "Plain words." and plain.tools_seen[0] == []
    finally:
        await ws.aclose()


async def test_an_agent_s_limits_are_the_turn_s_budget(tmp_path: Path) -> None:
    model = ScriptedChatModel(
        [{"tool_calls": [{"name": "calculator", "args": {"expression": "1+1"}}]}, {"text": "2"}]
    )
    ws = await _open(tmp_path, **{"scripted:a": model})
    try:
        agent = await ws.agents.add(
            Agent(name="Counter", tools=("calculator",), limits=BudgetLimits(max_model_calls=1))
        )
        thread = await ws.threads.create(agent_id=agent.id)
        await (await ws.runs.send(thread.id, "What is 1+1?"))
        await ws.runs.wait_idle()
        assert len(model.calls) == 1  # the second call would go over the agent's limit
        assert await ws.runs.pending_budget(thread.id)
    finally:
        await ws.aclose()


async def test_removing_an_agent_leaves_its_threads_with_parley(tmp_path: Path) -> None:
    ws = await _open(tmp_path, **{"scripted:a": ScriptedChatModel([])})
    try:
        agent = await ws.agents.add(Agent(name="Temp"))
        thread = await ws.threads.create(agent_id=agent.id)
        assert await ws.agents.remove(agent.id) == 1
        after = await ws.threads.get(thread.id)
        assert ws.agents.named(after.agent_id) == "Parley"
        parley = (await ws.agents.list())[0]
        with pytest.raises(UserError, match="built in"):
            await ws.agents.remove(parley.id)
        with pytest.raises(UserError, match="built in"):
            await ws.agents.edit(parley.id, parley.model_copy(update={"name": "Other"}))
    finally:
        await ws.aclose()


async def test_delegates_with_digits_or_other_alphabets_each_get_their_own_tool(
    tmp_path: Path,
) -> None:
    from app.core.agent.delegation import tool_name_for

    names = ["Res 1", "Res 2", "研究者", "調査員", "Исследователь"]
    calls = [
        {"name": tool_name_for(n), "args": {"task": "Look."}, "id": f"d{i}"}
        for i, n in enumerate(names)
    ]
    lead = ScriptedChatModel([{"tool_calls": calls}, {"text": "All answered."}])
    models = {"scripted:lead": lead}
    models |= {f"scripted:{i}": ScriptedChatModel([f"{n} says hi."]) for i, n in enumerate(names)}
    ws = await _open(tmp_path, **models)
    try:
        for i, name in enumerate(names):
            await ws.agents.add(Agent(name=name, model=f"scripted:{i}"))
        boss = await ws.agents.add(Agent(name="Lead", model="scripted:lead", delegates=names))
        thread = await ws.threads.create(agent_id=boss.id)
        await (await ws.runs.send(thread.id, "Ask everyone."))
        answers = {r.call_id: r.output for m in lead.calls[1] for r in m.tool_results()}
        assert answers == {f"d{i}": f"{n} says hi." for i, n in enumerate(names)}
    finally:
        await ws.aclose()


async def test_two_delegates_asked_through_one_tool_are_refused_when_saved(
    tmp_path: Path,
) -> None:
    ws = await _open(tmp_path, **{"scripted:a": ScriptedChatModel([])})
    try:
        for name in ("C++", "C#", "Res 1", "Res 2"):
            await ws.agents.add(Agent(name=name))
        with pytest.raises(UserError) as caught:
            await ws.agents.add(Agent(name="Lead", delegates=("C++", "C#")))
        assert str(caught.value) == (
            "C++ and C# would both be asked through ask_c; rename one of them."
        )
        assert ws.agents.problems(Agent(name="Lead", delegates=("C++", "C#"))) == {
            "delegates": "C++ and C# would both be asked through ask_c; rename one of them."
        }  # what the editor shows under the delegates as they are ticked
        lead = await ws.agents.add(Agent(name="Lead", delegates=("Res 1", "Res 2")))
        second = await ws.agents.get("Res 2")
        with pytest.raises(UserError) as caught:  # a rename that would make Lead's turns fail
            await ws.agents.edit(second.id, second.model_copy(update={"name": "Res+1"}))
        assert str(caught.value) == (
            "For Lead, which asks it: Res 1 and Res+1 would both be asked through ask_res_1; "
            "rename one of them."
        )
        assert (await ws.agents.get("Lead")).delegates == lead.delegates
    finally:
        await ws.aclose()


async def test_agent_names_are_read_from_the_data_folder_without_a_workspace(
    tmp_path: Path,
) -> None:
    ws = await _open(tmp_path, **{"scripted:a": ScriptedChatModel([])})
    try:
        added = await ws.agents.add(Agent(name="Researcher"))
    finally:
        await ws.aclose()
    assert await agent_names(tmp_path) == {BUILTIN_AGENT_ID: "Parley", added.id: "Researcher"}
