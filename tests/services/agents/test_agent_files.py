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


HEADER = {"format": "parley.agent", "version": 1}

REFUSED: list[tuple[dict[str, object] | bytes, str]] = [
    (
        {**HEADER, "name": "X", "tools": [1]},
        "The file's 'tools.0' is not right: input should be a valid string.",
    ),
    (
        {**HEADER, "name": "X", "limits": {"max_tokens": "9"}},
        "The file's 'limits.max_tokens' is not right: input should be a valid number.",
    ),
    (
        b'{"format": "parley.agent", "version": 1, "name": "X", "limits": {"max_cost": 1e400}}',
        "The file's 'limits.max_cost' is not right: input should be a finite number.",
    ),
    (
        b'{"format": "parley.agent", "version": 1, "name": "X", "limits": {"max_tokens": NaN}}',
        "The file's 'limits.max_tokens' is not right: input should be a finite number.",
    ),
    (
        b'{"format": "parley.agent", "version": 1, "name": "X", "limits": {"max_tokens": 9.5}}',
        "The file's 'limits.max_tokens' is 9.5, not a whole number: calls and tokens are "
        "counted whole.",
    ),
    (
        {"format": "parley.agent", "version": True, "name": "X"},
        'The file\'s "version" is not a whole number, so it was not read.',
    ),
    ({**HEADER}, "The file's 'name' is missing."),
    (
        {"format": "something.else", "version": 1, "name": "X"},
        "The file is not a Parley agent file (its \"format\" is not 'parley.agent').",
    ),
    (
        {**HEADER, "name": "X", "model": "https://u:p@h/v1"},
        "The file's 'model' holds what looks like a secret in clear; keys go in the keyring, "
        "never in an agent file, so it was not imported.",
    ),
]


@pytest.mark.parametrize(("body", "sentence"), REFUSED)
def test_values_of_the_wrong_kind_are_refused_saying_which_and_why(
    body: dict[str, object] | bytes, sentence: str
) -> None:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    with pytest.raises(AgentFileError) as caught:
        read_agent_file(data)
    assert str(caught.value) == sentence
