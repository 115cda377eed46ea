"""``parley chat`` at a budget limit: on a terminal it asks whether to raise the limit; with
no terminal (or no answer) the turn ends at the limit, saying so."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_chat import ROOT, _read_until, parley

QUESTION = b"The run reached its limit of 1 model call. Raise by 1 model call and continue? [y/N]"
STOPPED = "I stopped before finishing"


def _one_call_budget(tmp_path: Path) -> Path:
    """A data dir whose runs may ask the model once, and a script that needs two answers."""
    (tmp_path / "settings.json").write_text(json.dumps({"default_limits": {"max_model_calls": 1}}))
    script = tmp_path / "script.json"
    call = {"name": "no_such_tool", "args": {}, "id": "c1"}
    script.write_text(json.dumps([{"tool_calls": [call]}, {"text": "Finished after the raise."}]))
    return script


def _on_a_terminal(tmp_path: Path, script: Path, answer: bytes | None) -> str:
    """Run one ``parley chat`` turn with a terminal as stdin; answer the budget question with
    ``answer`` (``None``: close the terminal instead); return everything printed."""
    main, side = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "chat", "--tools", "--model", f"scripted:{script}", "go"],
        cwd=ROOT,
        stdin=side,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PARLEY_DATA_DIR": str(tmp_path)},
    )
    os.close(side)
    try:
        seen = _read_until(proc, QUESTION)
        assert QUESTION in seen, seen.decode(errors="replace")
        if answer is None:
            os.close(main)
        else:
            os.write(main, answer)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        if answer is not None:
            os.close(main)
    assert proc.returncode == 0, err.decode()
    assert b"Traceback" not in err
    return (seen + out).decode()


def test_a_turn_at_its_limit_asks_on_the_terminal_and_goes_on(tmp_path: Path) -> None:
    out = _on_a_terminal(tmp_path, _one_call_budget(tmp_path), b"y\n")
    assert "Finished after the raise." in out
    assert STOPPED not in out


@pytest.mark.parametrize("answer", [b"\n", b"no\n", None], ids=["empty", "no", "closed"])
def test_anything_but_yes_stops_at_the_limit(tmp_path: Path, answer: bytes | None) -> None:
    out = _on_a_terminal(tmp_path, _one_call_budget(tmp_path), answer)
    assert "Finished after the raise." not in out
    assert STOPPED in out


def test_without_a_terminal_the_turn_ends_at_the_limit_without_asking(tmp_path: Path) -> None:
    script = _one_call_budget(tmp_path)
    done = parley("chat", "--tools", "--model", f"scripted:{script}", "go", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert QUESTION.decode() not in done.stdout
    assert STOPPED in done.stdout and "Finished after the raise." not in done.stdout
