"""Memories in ``parley chat``, run as a user would (a real process, a real database): the
model's ``remember`` call asks "Keep this memory? [y/N]" and keeps it after y only;
``/remember`` keeps what the person typed; ``--no-memory`` keeps nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

NOTE = "The user lives in Lyon"


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


def _memories(data_dir: Path) -> list[dict[str, Any]]:
    listed = parley("memory", "list", "--json", data_dir=data_dir)
    assert listed.returncode == 0, listed.stderr
    found: list[dict[str, Any]] = json.loads(listed.stdout)
    return found


def _thread_of(done: subprocess.CompletedProcess[str]) -> str:
    return done.stderr.strip().splitlines()[-1].removeprefix("(thread ").rstrip(")")


def _tool_results(data_dir: Path, thread: str) -> list[Any]:
    """What the thread's tool messages hold, read from its export."""
    target = data_dir / f"{thread}.json"
    done = parley("threads", "export", thread, str(target), data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    context = json.loads(target.read_text(encoding="utf-8"))["state"]["context"]
    return [
        block.get("output", block.get("error"))
        for message in context
        if message["role"] == "tool"
        for block in message["content"]
    ]


def _proposing(tmp_path: Path) -> Path:
    script = tmp_path / "script.json"
    call = {"name": "remember", "args": {"text": NOTE, "why": "to suggest places near you"}}
    script.write_text(json.dumps([{"tool_calls": [call]}, "Done.", "Hello again."]))
    return script


def test_a_proposed_memory_is_kept_after_y(tmp_path: Path) -> None:
    script = _proposing(tmp_path)
    done = parley(
        "chat", "--tools", "--model", f"scripted:{script}", "I moved to Lyon",
        data_dir=tmp_path, stdin="y\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"Parley will remember: {NOTE} — Keep this memory? [y/N]" in done.stdout
    assert "Allow this call?" not in done.stdout  # asked as a memory, not as a tool call
    (kept,) = _memories(tmp_path)
    thread = _thread_of(done)
    assert kept["text"] == NOTE and kept["source"]["thread"] == thread
    (result,) = _tool_results(tmp_path, thread)
    assert result["kept"] is True and result["memory_id"] == kept["id"][:8]


def test_a_proposed_memory_is_not_kept_after_n_or_no_answer(tmp_path: Path) -> None:
    script = _proposing(tmp_path)
    for answer in ("n\n", ""):
        done = parley(
            "chat", "--tools", "--model", f"scripted:{script}", "I moved to Lyon",
            data_dir=tmp_path, stdin=answer,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "Keep this memory? [y/N]" in done.stdout
        assert "Done." in done.stdout
        (result,) = _tool_results(tmp_path, _thread_of(done))
        assert "not kept" in str(result)
    assert _memories(tmp_path) == []


def test_an_incognito_chat_keeps_nothing(tmp_path: Path) -> None:
    script = _proposing(tmp_path)
    done = parley(
        "chat", "--no-memory", "--tools", "--model", f"scripted:{script}", "I moved to Lyon",
        data_dir=tmp_path, stdin="y\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Keep this memory?" not in done.stdout  # remember is not even offered
    typed = parley(
        "chat", "--no-memory", "--model", f"scripted:{script}", f"/remember {NOTE}",
        data_dir=tmp_path,
    )  # fmt: skip
    assert typed.returncode == 2
    assert "incognito" in typed.stderr
    assert _memories(tmp_path) == []


def test_slash_remember_keeps_what_the_person_typed(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Hello."]))
    done = parley(
        "chat", "--model", f"scripted:{script}", data_dir=tmp_path,
        stdin=f"/remember {NOTE}\nHi\n/quit\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Remembered (" in done.stdout and f"): {NOTE}" in done.stdout
    assert "Hello." in done.stdout  # the next line is a message again
    (kept,) = _memories(tmp_path)
    assert kept["text"] == NOTE
    once = parley(
        "chat", "--model", f"scripted:{script}", "/remember I drink tea", data_dir=tmp_path
    )
    assert once.returncode == 0, once.stderr
    assert sorted(m["text"] for m in _memories(tmp_path)) == ["I drink tea", NOTE]
