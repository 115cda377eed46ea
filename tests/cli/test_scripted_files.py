"""Malformed scripted-model files, run as ``parley chat --model scripted:FILE``: each is one
clear sentence, no traceback, and no thread left behind half-run."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from pathlib import Path
from unittest.mock import ANY

import pytest

from app.cli import run
from app.cli.chat import _Printer
from app.core.state import AgentState, ChunkMerge, Message, TextBlock
from app.services.events import MessageStreamed
from app.store import Store

ROOT = Path(__file__).resolve().parents[2]

DEEP = "[" * 5000 + "]" * 5000
DEEP_METADATA = json.dumps([{"text": "hi", "metadata": json.loads("[" * 300 + "]" * 300)}])

CASES = {
    "a number for a turn": ("[1]", "turn 1 of the model script", "not a number"),
    "a misspelt field": (
        '[{"txt": "hi"}]',
        "turn 1 of the model script",
        "'txt' is not a field of a turn",
    ),
    "a string for the tool calls": (
        '[{"tool_calls": "get_weather"}]',
        "turn 1 of the model script",
        "tool_calls: input should be a valid list",
    ),
    "a string for the whole script": ('"hello"', "must hold a JSON list of turns", "a string"),
    "a number where text belongs": ('["ok", {"text": 5}]', "turn 2 of", "text: input should be"),
    "deep nesting": (DEEP, "nested too deeply", ""),
    "deep nesting inside a turn": (DEEP_METADATA, "turn 1 of", "nests more than 100 levels"),
    "a lone surrogate": ('["fine", {"text": "bad \\ud800 text"}]', "turn 2 of", "lone surrogate"),
    "a pace below nothing": ('[{"text": "hi", "pace": -1}]', "turn 1 of", "pace: input should"),
    "not JSON": ("[{", "is not valid JSON", ""),
    "not UTF-8": (b'["\xff"]', "is not UTF-8 text", ""),
}


def chat(data_dir: Path, script: Path, *extra: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = ["chat", "--data-dir", str(data_dir), "--model", f"scripted:{script}", *extra]
    code = run([*args, "Hi"], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_script_is_one_clear_sentence(tmp_path: Path, case: str) -> None:
    content, *expected = CASES[case]
    script = tmp_path / "script.json"
    if isinstance(content, bytes):
        script.write_bytes(content)
    else:
        script.write_text(content, encoding="utf-8")
    code, out, err = chat(tmp_path / "data", script)
    assert code == 2
    assert "Traceback" not in err + out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("parley: ")
    assert str(script) in lines[0]
    for part in expected:
        assert part in lines[0]


def test_a_missing_script_names_the_file(tmp_path: Path) -> None:
    code, _, err = chat(tmp_path / "data", tmp_path / "nowhere.json")
    assert code == 2
    assert err.strip() == (
        f"parley: cannot read the model script {tmp_path / 'nowhere.json'}: "
        "No such file or directory"
    )


async def _threads_and_statuses(data: Path) -> list[tuple[str, str | None]]:
    async with Store.open_data_dir(str(data)) as store:
        found = []
        for thread in await store.list_threads():
            saved = await store.checkpointer.aget(thread.id, AgentState)
            found.append((thread.id, saved.state.execution_meta.status if saved else None))
    return found


def test_no_thread_is_left_running_by_a_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text('[{"text": "bad \\udfff"}]', encoding="utf-8")
    data = tmp_path / "data"
    args = ["chat", "--data-dir", str(data), "--model", f"scripted:{script}", "Hi"]
    done = subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    # the script was refused before the turn began: no thread, so none marked running
    assert asyncio.run(_threads_and_statuses(data)) == []


def test_text_that_cannot_be_printed_is_shown_with_replacement_marks() -> None:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")  # a terminal that cannot show the euro sign
    chunk = Message(role="assistant", content=[TextBlock(text="a€b")], delta=True)
    _Printer(out, io.StringIO())(MessageStreamed("t", ChunkMerge(chunk)))
    out.flush()
    assert raw.getvalue() == b"a?b"


def test_output_closed_midway_still_finishes_and_saves_the_turn(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    reply = "word " * 40000  # more than a pipe holds, so writing blocks until we close it
    script.write_text(json.dumps([reply]), encoding="utf-8")
    data = tmp_path / "data"
    args = ["chat", "--data-dir", str(data), "--model", f"scripted:{script}", "Hi"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10) == b"word word "
    proc.stdout.close()  # as `parley chat ... | head -c 10` does
    with proc.stderr:
        errors = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, errors
    assert "Traceback" not in errors and "BrokenPipe" not in errors
    assert asyncio.run(_threads_and_statuses(data)) == [(ANY, "completed")]
