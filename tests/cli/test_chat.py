"""The command line, run as a user would: a real process, a real database in a temp dir."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def parley(*args: str, data_dir: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PARLEY_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def test_chat_with_a_scripted_model_streams_and_saves_the_thread(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "Hello from the script."}]))
    done = parley("chat", "--model", f"scripted:{script}", "Hi there", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Hello from the script." in done.stdout
    listed = parley("threads", data_dir=tmp_path)
    assert "Hi there" in listed.stdout
    found = parley("threads", "--search", "script", data_dir=tmp_path)
    assert found.returncode == 0, found.stderr


def test_a_model_error_is_reported_with_a_nonzero_exit(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"error": "the server went away"}]))
    done = parley("chat", "--model", f"scripted:{script}", "Hi", data_dir=tmp_path)
    assert done.returncode == 1
    assert "the server went away" in done.stderr


def test_a_bad_model_spec_is_a_clear_error(tmp_path: Path) -> None:
    done = parley("chat", "--model", "nonsense:thing", "Hi", data_dir=tmp_path)
    assert done.returncode == 2
    assert "nonsense" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_corrupt_database_is_a_clear_error_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "parley.db"
    db.write_bytes(b"this is not a database" * 100)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "x"}]))
    done = parley("chat", "--model", f"scripted:{script}", "Hi", data_dir=tmp_path)
    assert done.returncode == 2
    assert str(db) in done.stderr
    assert "Traceback" not in done.stderr
    assert db.read_bytes() == b"this is not a database" * 100


@pytest.mark.slow
def test_chat_offline_with_the_bundled_model(tmp_path: Path) -> None:
    done = parley("chat", "What is the capital of France?", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_interactive_session_reads_until_quit(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["first answer", "second answer"]))
    done = parley("--model", f"scripted:{script}", data_dir=tmp_path, stdin="one\ntwo\n/quit\n")
    assert done.returncode == 0, done.stderr
    assert "first answer" in done.stdout and "second answer" in done.stdout
    assert parley("threads", data_dir=tmp_path).stdout.count("\n") == 1


def test_tool_call_asks_on_the_terminal_then_runs(tmp_path: Path) -> None:
    target = tmp_path / "note.txt"
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {
                            "name": "write_text_file",
                            "args": {"path": str(target), "content": "hello"},
                        }
                    ]
                },
                {"text": "I wrote the note."},
            ]
        )
    )
    done = parley(
        "chat",
        "--tools",
        "--model",
        f"scripted:{script}",
        "write a note",
        data_dir=tmp_path,
        stdin="y\n",
    )
    assert done.returncode == 0, done.stderr
    assert "needs your approval: write_text_file" in done.stdout
    assert str(target) in done.stdout  # the exact arguments were shown
    assert target.read_text() == "hello"
    assert "I wrote the note." in done.stdout


def test_a_denied_tool_call_does_not_run(tmp_path: Path) -> None:
    target = tmp_path / "note.txt"
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {"name": "write_text_file", "args": {"path": str(target), "content": "x"}}
                    ]
                },
                {"text": "Understood."},
            ]
        )
    )
    done = parley(
        "chat",
        "--tools",
        "--model",
        f"scripted:{script}",
        "write",
        data_dir=tmp_path,
        stdin="n\nnot now\n",
    )
    assert done.returncode == 0, done.stderr
    assert not target.exists()
    assert "Understood." in done.stdout


def test_continuing_an_unknown_thread_is_a_clear_error_and_creates_nothing(
    tmp_path: Path,
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "An answer."}]))
    done = parley(
        "chat", "--model", f"scripted:{script}", "--thread", "no-such-id", "Hi", data_dir=tmp_path
    )
    assert done.returncode == 2
    assert "no-such-id" in done.stderr
    assert "Traceback" not in done.stderr
    assert "An answer." not in done.stdout
    assert parley("threads", data_dir=tmp_path).stdout == ""


@pytest.mark.parametrize("known", [True, False])
def test_resume_with_nothing_to_resume_is_a_clear_error(tmp_path: Path, known: bool) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "An answer."}]))
    thread_id = "no-such-id"
    if known:
        first = parley("chat", "--model", f"scripted:{script}", "Hi", data_dir=tmp_path)
        assert first.returncode == 0, first.stderr
        thread_id = parley("threads", data_dir=tmp_path).stdout.split()[0]
    done = parley(
        "chat",
        "--model",
        f"scripted:{script}",
        "--thread",
        thread_id,
        "--resume",
        data_dir=tmp_path,
    )
    assert done.returncode == 2
    assert thread_id in done.stderr
    assert "Traceback" not in done.stderr


def parley_raw(
    *args: str | bytes, data_dir: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run parley with raw bytes for arguments and stdin, as a terminal may send them."""
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        timeout=300,
        env={**os.environ, "PARLEY_DATA_DIR": str(data_dir), **(env or {})},
        check=False,
    )


@pytest.mark.parametrize("errors", ["surrogateescape", "strict"])
def test_bytes_that_are_not_utf8_are_read_as_replacement_characters(
    tmp_path: Path, errors: str
) -> None:
    target = tmp_path / "note.txt"
    script = tmp_path / "script.json"
    call = {"name": "write_text_file", "args": {"path": str(target), "content": "x"}}
    script.write_text(json.dumps([{"tool_calls": [call]}, "Understood.", "Noted."]))
    env = {"PYTHONIOENCODING": f"utf-8:{errors}"}
    model = f"scripted:{script}"
    done = parley_raw(
        "chat", "--tools", "--model", model, b"caf\xe9 note", data_dir=tmp_path,
        stdin=b"\xff\nn\nnot \xe9 now\n", env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert b"Understood." in done.stdout
    assert not target.exists()
    listed = parley("threads", data_dir=tmp_path).stdout
    assert "caf\ufffd note" in listed
    thread_id = listed.split()[0]
    again = parley_raw(
        "chat", "--model", model, "--thread", thread_id, data_dir=tmp_path,
        stdin=b"more \xff\n/quit\n", env=env,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr.decode()
    assert b"Traceback" not in again.stderr


# A shell ignores Ctrl+C for the jobs it starts in the background (a script's `cmd &`) and
# the ignoring is inherited: Parley, like any program, then leaves it ignored. These tests
# play a terminal where Ctrl+C reaches the program, so the program starts with it restored,
# however the tests themselves were started.
_WITH_CTRL_C = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, '-m', 'app', *sys.argv[1:]])"
)


def _start(*args: str, data_dir: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", _WITH_CTRL_C, *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PARLEY_DATA_DIR": str(data_dir)},
    )


def _read_until(proc: subprocess.Popen[bytes], marker: bytes) -> bytes:
    assert proc.stdout is not None
    seen = b""
    while marker not in seen:
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        seen += chunk
    return seen


@pytest.mark.parametrize("where", ["approval", "prompt"])
def test_ctrl_c_while_waiting_for_the_user_ends_the_program(tmp_path: Path, where: str) -> None:
    script = tmp_path / "script.json"
    call = {"name": "write_text_file", "args": {"path": str(tmp_path / "n.txt"), "content": "x"}}
    script.write_text(json.dumps([{"tool_calls": [call]}, "Understood."]))
    if where == "approval":
        proc = _start("chat", "--tools", "--model", f"scripted:{script}", "go", data_dir=tmp_path)
        marker = b"Allow this call?"
    else:
        proc = _start("chat", "--model", f"scripted:{script}", data_dir=tmp_path)
        marker = b"> "
    try:
        assert marker in _read_until(proc, marker)
        proc.send_signal(signal.SIGINT)
        # stdin stays open, as on a terminal: the program must not wait for one more line
        code = proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.communicate()
    assert code == 130


def test_an_empty_prompt_and_a_prompt_with_resume_are_refused(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["x"]))
    empty = parley("chat", "--model", f"scripted:{script}", "  ", data_dir=tmp_path)
    assert empty.returncode == 2
    assert "empty" in empty.stderr
    both = parley(
        "chat", "--model", f"scripted:{script}", "--thread", "t", "--resume", "hi",
        data_dir=tmp_path,
    )  # fmt: skip
    assert both.returncode == 2
    assert "--resume" in both.stderr


def test_a_thread_continues_on_its_own_model_until_another_is_chosen(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(["Answer from A."]))
    second.write_text(json.dumps(["Answer from B."]))
    started = parley("chat", "--model", f"scripted:{first}", "Hi", data_dir=tmp_path)
    assert started.returncode == 0, started.stderr
    thread_id = parley("threads", data_dir=tmp_path).stdout.split()[0]

    again = parley("chat", "--thread", thread_id, "Again", data_dir=tmp_path)
    assert "Answer from A." in again.stdout, again.stderr  # not the default model
    switched = parley(
        "chat", "--thread", thread_id, "--model", f"scripted:{second}", "Now B", data_dir=tmp_path
    )
    assert "Answer from B." in switched.stdout, switched.stderr
    kept = parley("chat", "--thread", thread_id, "And?", data_dir=tmp_path)
    assert "Answer from B." in kept.stdout, kept.stderr
