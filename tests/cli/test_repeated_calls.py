"""``parley chat --agent NAME`` with a model that keeps asking for the same failing call, in a
real process: the call runs once and the terminal says, naming the agent, why the turn ended."""

from __future__ import annotations

import io
import json
from pathlib import Path

from app.cli import run
from tests.cli.process import parley

DIVIDE = {"tool_calls": [{"name": "calculator", "args": {"expression": "1/0"}}]}


def test_the_terminal_says_the_agent_kept_asking_for_the_same_failing_call(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    out, err = io.StringIO(), io.StringIO()
    added = ["agents", "add", "Librarian", "--tool", "calculator", "--data-dir", str(data)]
    assert run(added, out, err) == 0, err.getvalue()
    script = tmp_path / "script.json"
    script.write_text(json.dumps([DIVIDE, DIVIDE, DIVIDE, {"text": "Never asked for."}]))

    done = parley(
        "chat", "--model", f"scripted:{script}", "--agent", "Librarian", "What is 1/0?",
        data_dir=data,
    )  # fmt: skip

    assert "error: Librarian kept asking for the same failing call; stopped.\n" in done.stderr
    assert done.returncode == 1
    assert done.stdout.count("[calculator: started]") == 1  # run once, not three times
    assert "Never asked for." not in done.stdout
