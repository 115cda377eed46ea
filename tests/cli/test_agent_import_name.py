"""``parley agents import`` of an agent whose name is taken here (the same name in other
capitals, or one that only looks the same): it is refused in one sentence, even with --yes,
and the agent already here stays exactly as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_agents import cli


def _file(tmp_path: Path, name: str) -> Path:
    file = tmp_path / "incoming.agent.json"
    body = {"format": "parley.agent", "version": 1, "name": name, "instructions": "Shout."}
    file.write_text(json.dumps(body), encoding="utf-8")
    return file


@pytest.mark.parametrize(
    ("name", "sentence"),
    [
        ("Writer", "Another agent is already called Writer. Nothing was imported."),
        ("WRITER", "Another agent is already called Writer. Nothing was imported."),
        (
            "Wr\u0456ter",  # a Cyrillic і
            "The name mixes Latin and Cyrillic letters in one word, so it can pass for "
            "another; type each word in one alphabet. Nothing was imported.",
        ),
    ],
    ids=["same", "capitals", "look-alike"],
)
def test_an_agent_whose_name_is_taken_is_refused_and_mine_is_kept(
    tmp_path: Path, name: str, sentence: str
) -> None:
    data = tmp_path / "data"
    code, _, err = cli(
        data, "agents", "add", "Writer", "--description", "Mine", "--instructions", "Be brief."
    )
    assert (code, err) == (0, "added agent Writer\n")
    mine = cli(data, "agents", "show", "Writer")[1]
    listed = cli(data, "agents", "list")[1]

    code, _, err = cli(data, "agents", "import", str(_file(tmp_path, name)), "--yes")
    assert (code, err) == (2, f"parley: {sentence}\n")
    assert cli(data, "agents", "list")[1] == listed
    assert cli(data, "agents", "show", "Writer")[1] == mine
    assert mine.endswith("instructions:\n  Be brief.\n")
