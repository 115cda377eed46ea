"""An agent's approval rules and knowledge folders in its file: Export writes them (a folder
in the home folder as ``~/…``), Import shows them and adds them only after the yes, a folder
that is not here is named and left out, and a hostile rule refuses the file in one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.models import ScriptedChatModel
from app.core.tools import ArgumentRule
from app.services.agents import Agent, AgentFileError
from app.services.agents.files import agent_file_bytes, file_rules, read_agent_file
from tests.services.agents.test_agent_service import _open


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return home


def body(*rules: dict[str, str]) -> bytes:
    head = {"format": "parley.agent", "version": 1, "name": "Writer"}
    return json.dumps({**head, "rules": list(rules)}).encode()


def test_rules_are_written_portably_and_read_back(home: Path) -> None:
    rules = [
        ArgumentRule.folder("write_file", "path", str(home / "notes")),
        ArgumentRule.host("fetch_url", "url", "docs.example.com"),
        ArgumentRule.equal("mcp_query", "database", "sales"),
    ]
    data = agent_file_bytes(Agent(name="Writer"), rules, [str(home / "notes")])
    written = json.loads(data)
    assert written["rules"][0] == {
        "tool": "write_file",
        "kind": "folder",
        "argument": "path",
        "value": "~/notes",
    }
    assert written["knowledge"] == ["~/notes"]
    assert file_rules(read_agent_file(data)) == tuple(rules)


@pytest.mark.parametrize(
    ("rule", "sentence"),
    [
        ({"kind": "folder", "value": "/"}, "which is outside your home folder"),
        ({"kind": "folder", "value": "/etc"}, "which is outside your home folder"),
        ({"kind": "folder", "value": "~"}, "which is your whole home folder"),
        ({"kind": "folder", "value": "~/notes/../.."}, "a folder written with '..'"),
        ({"kind": "folder", "value": "notes"}, "cannot read"),
        ({"kind": "host", "value": "a.example/\x1b[2J"}, "control characters"),
        ({"kind": "host", "value": "user@a.example"}, "cannot read"),
        ({"kind": "value", "value": "{not json"}, "cannot read"),
        ({"kind": "anything", "value": "x"}, "of the kind folder, host or value"),
        ({"kind": "value", "value": '"sk-' + "a" * 30 + '"'}, "secret in clear"),
    ],
)
def test_a_hostile_rule_refuses_the_file_in_one_sentence(
    home: Path, rule: dict[str, str], sentence: str
) -> None:
    with pytest.raises(AgentFileError, match=sentence.replace(".", r"\.")) as caught:
        read_agent_file(body({"tool": "write_file", "argument": "path", **rule}))
    assert "\x1b" not in str(caught.value) and str(caught.value).endswith(".")


def test_a_rule_with_a_field_parley_does_not_know_is_refused(home: Path) -> None:
    odd = {"tool": "t", "kind": "host", "argument": "url", "value": "a.example", "x": "1"}
    with pytest.raises(AgentFileError):
        read_agent_file(body(odd))
    with pytest.raises(AgentFileError):
        read_agent_file(body(*[{**odd, "value": f"h{i}.example"} for i in range(51)]))


async def test_export_then_import_brings_back_the_rules_and_folders_after_the_yes(
    tmp_path: Path, home: Path
) -> None:
    ws = await _open(tmp_path / "data", **{"scripted:a": ScriptedChatModel([])})
    try:
        notes = str((home / "notes").resolve())
        await ws.knowledge.add_folder(notes)
        writer = await ws.agents.add(Agent(name="Writer", tools=("write_file",)))
        await ws.agents.set_knowledge(writer, [notes])
        rule = ArgumentRule.folder("write_file", "path", notes).for_agent("Writer")
        await ws.agents._store.add_argument_rule(rule)
        assert ws.agents.knowledge_of(writer) == [notes]
        data, _ = await ws.agents.export(writer)
        await ws.agents.remove(writer.id)
        assert await ws.agents._store.list_argument_rules() == []
        assert [f.agent for f in await ws.knowledge.folders()] == [writer.id]  # left as it was

        body = json.loads(data)
        body["knowledge"].append("~/not-here")
        plan = await ws.agents.read_file(json.dumps(body).encode())
        assert "Always allow: write_file inside ~/notes" in plan.asks
        assert "Knowledge folders: ~/notes, ~/not-here" in plan.asks
        assert plan.warnings == (
            "These knowledge folders do not exist here and are left out: ~/not-here.",
        )
        assert await ws.agents._store.list_argument_rules() == []  # nothing before the yes

        again = await ws.agents.import_agent(plan)
        [kept] = await ws.agents.rules_of(again)
        assert kept.rule == rule
        assert ws.agents.knowledge_of(again) == [notes]
    finally:
        await ws.aclose()
