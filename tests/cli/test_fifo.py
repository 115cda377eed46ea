"""``parley chat --tools`` and a named pipe (FIFO) nobody writes to: a read of it is refused at
once, and a call stuck on one until its timeout does not keep the program from exiting."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def chat_calling(tmp_path: Path, call: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """Run ``parley chat --tools`` with a scripted model that makes ``call`` (approved on the
    terminal), then answers; a process still running after 90 s fails the test."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool_calls": [call]}, {"text": "That is all."}]))
    args = ["chat", "--tools", "--model", f"scripted:{script}", "use the pipe"]
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        input="y\n",
        capture_output=True,
        text=True,
        timeout=90,
        env={**os.environ, "PARLEY_DATA_DIR": str(tmp_path / "data")},
        check=False,
    )


def test_reading_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    done = chat_calling(tmp_path, {"name": "read_text_file", "args": {"path": str(pipe)}})
    assert done.returncode == 0, done.stderr
    assert (
        f"[read_text_file: error Tool 'read_text_file' failed: '{pipe}' is a named pipe (FIFO), "
        "not a file that can be read]\n"
    ) in done.stdout
    assert done.stdout.endswith("That is all.\n")
    assert "Traceback" not in done.stderr


def test_a_call_stuck_on_a_fifo_times_out_and_the_program_still_exits(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    # opening a FIFO for writing waits for a reader, which never comes
    call = {
        "name": "write_text_file",
        "args": {"path": str(pipe), "content": "x", "overwrite": True},
    }
    done = chat_calling(tmp_path, call)
    assert done.returncode == 0, done.stderr
    assert (
        "[write_text_file: error Tool 'write_text_file' did not finish within 10 s and was "
        "stopped.]\n"
    ) in done.stdout
    assert done.stdout.endswith("That is all.\n")
    assert "Traceback" not in done.stderr
