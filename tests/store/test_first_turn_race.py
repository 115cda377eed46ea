"""Two processes sending to one thread at once: no finished turn is lost, and the run that
is refused leaves nothing behind and says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.state import AgentState
from app.store import Store
from tests.store.helpers import scalar

ROOT = Path(__file__).resolve().parents[2]
_children: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _no_child_left() -> Iterator[None]:
    """Kill and reap any child a failed test left running."""
    yield
    while _children:
        proc = _children.pop()
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def start(db: Path, thread: str, text: str, *extra: str) -> subprocess.Popen[str]:
    """Start a child process that sends ``text`` to ``thread``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.store._race_child", str(db), thread, text, *extra],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _children.append(proc)
    return proc


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Wait for the child; return its exit status and what it printed."""
    out, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    return proc.returncode, out.strip()


def wait_for(path: Path) -> None:
    """Wait until ``path`` exists (the child reached its pause)."""
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def prepare(tmp_path: Path) -> tuple[Path, Path]:
    """A created database file and an empty folder for the pause files."""
    db, hold = tmp_path / "parley.db", tmp_path / "hold"
    hold.mkdir()
    Store.open(db).close()
    return db, hold


async def texts(db: Path, thread: str) -> list[str]:
    """The thread's messages as it shows them now."""
    async with Store.open(db) as store:
        latest = await store.checkpointer.aget(thread, AgentState)
    assert latest is not None
    return [m.text() for m in latest.state.context]


async def test_a_first_save_held_until_another_first_turn_finished_is_refused(
    tmp_path: Path,
) -> None:
    db, hold = prepare(tmp_path)
    late = start(db, "t", "from B", "--hold-save", str(hold))  # reads: no checkpoint yet
    wait_for(hold / "waiting")
    assert finish(start(db, "t", "from A")) == (0, "ok reply to from A")
    (hold / "go").touch()  # B now saves its first turn on a thread that has one
    code, said = finish(late)
    assert code == 3
    assert said == (
        "thread t got its first turn from another Parley window or process; your message "
        "was not saved. Open the thread again, then send your message again."
    )
    assert await texts(db, "t") == ["from A", "reply to from A"]
    assert scalar(db, "SELECT count(*) FROM messages WHERE text LIKE '%from B%'") == 0


async def test_a_turn_sent_while_another_process_answers_is_refused_before_saving(
    tmp_path: Path,
) -> None:
    db, hold = prepare(tmp_path)
    first = start(db, "t", "from A", "--hold-reply", str(hold))
    wait_for(hold / "waiting")  # A's message is saved, its reply is being written
    code, said = finish(start(db, "t", "from B"))
    assert code == 3
    assert said.startswith(
        "thread t is answering a message sent from another Parley window or process right "
        "now; your message was not saved."
    )
    (hold / "go").touch()
    assert finish(first) == (0, "ok reply to from A")
    # no orphan: every message has its reply, B's message is nowhere in the file
    assert await texts(db, "t") == ["from A", "reply to from A"]
    assert scalar(db, "SELECT count(*) FROM messages WHERE text LIKE '%from B%'") == 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
async def test_a_killed_run_does_not_keep_the_thread_busy(tmp_path: Path) -> None:
    db, hold = prepare(tmp_path)
    first = start(db, "t", "from A", "--hold-reply", str(hold))
    wait_for(hold / "waiting")
    os.kill(first.pid, signal.SIGKILL)
    first.communicate(timeout=30)
    assert finish(start(db, "t", "from B")) == (0, "ok reply to from B")
    assert await texts(db, "t") == ["from A", "from B", "reply to from B"]
