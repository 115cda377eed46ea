"""Agent files: what an export holds (and never holds), and reading one back whole."""

from __future__ import annotations

import json

import pytest

from app.core.budget import BudgetLimits
from app.services.agents import Agent, AgentFileError
from app.services.agents.files import agent_file_bytes, agent_file_name, read_agent_file


def test_an_agent_file_reads_back_as_the_same_agent() -> None:
    agent = Agent(
        id="kept-out",
        name="Écrivain",
        description="Écrit simplement",
        instructions="Phrases courtes.\n\tUne idée par phrase.",
        model="anthropic:claude-sonnet-4-6",
        tools=("calculator",),
        delegates=("Helper",),
        limits=BudgetLimits(max_tokens=9000, max_cost=1.5),
        starters=("Écris une note",),
    )
    data = agent_file_bytes(agent)
    body = json.loads(data)
    assert "id" not in body and body["secrets"] == ["keyring:anthropic/api-key"]
    assert list(body)[:3] == ["format", "version", "name"]
    assert read_agent_file(data).agent() == agent.model_copy(update={"id": ""})


def test_the_file_name_keeps_the_name_and_drops_what_a_path_cannot_hold() -> None:
    assert agent_file_name(Agent(name="Research/Team: A*")) == "Research_Team_ A_.agent.json"
    assert agent_file_name(Agent(name="..")) == "agent.agent.json"


@pytest.mark.parametrize(
    "body",
    [
        {"format": "parley.agent", "version": 1, "name": "X", "tools": [1]},
        {"format": "parley.agent", "version": 1, "name": "X", "limits": {"max_tokens": "9"}},
        {"format": "parley.agent", "version": True, "name": "X"},
        {"format": "parley.agent", "version": 1},
        {"format": "something.else", "version": 1, "name": "X"},
        {"format": "parley.agent", "version": 1, "name": "X", "model": "https://u:p@h/v1"},
    ],
)
def test_values_of_the_wrong_kind_are_refused(body: dict[str, object]) -> None:
    with pytest.raises(AgentFileError) as caught:
        read_agent_file(json.dumps(body).encode())
    assert str(caught.value).count(". ") == 0 and str(caught.value).endswith(".")
