"""A run cut off by SIGKILL: the thread says so and offers Resume (finished calls are not
run again; the cut-off call runs again with the same idempotency key) and Discard."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QPushButton

from app.services.cut_off import DISCARDED_NOTE
from app.store.paths import DATABASE_NAME
from app.ui.app import close_window
from tests.e2e.window.cut_off_child import TOOLS, hold_file
from tests.ui.approval_harness import Recorder, approval_dialog, open_tool_window
from tests.ui.harness import find, wait_until

ROOT = Path(__file__).resolve().parents[3]


async def killed_mid_call(tmp_path: Path, mode: str = "") -> tuple[Path, Path]:
    """Run the child until its second call hangs (in ``parallel`` mode also after the first
    finished; in ``approval`` mode until it waits for an approval), then SIGKILL it; return
    (data dir, log)."""
    data, log = tmp_path / "data", tmp_path / "calls.log"
    env = {**os.environ, "PARLEY_TEST_LOG": str(log), "PARLEY_TEST_HANG": "1"}
    env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "tests.e2e.window.cut_off_child", str(data), mode]
    child = await asyncio.to_thread(subprocess.Popen, command, cwd=ROOT, env=env)
    try:
        wanted = {"approval": ["paused"], "parallel": ["start second", "first"]}
        await wait_until(
            lambda: (
                log.exists()
                and all(w in log.read_text() for w in wanted.get(mode, ["start second"]))
            ),
            timeout=30,
            what="the second call to start",
        )
        if mode == "parallel":  # the finished call's result is saved right after it returns
            await wait_until(lambda: _saved_results(data), what="the first result to be saved")
    finally:
        os.kill(child.pid, signal.SIGKILL)
        assert await asyncio.to_thread(child.wait, 10) == -signal.SIGKILL
    return data, log


def _saved_results(data: Path) -> int:
    with contextlib.closing(sqlite3.connect(data / DATABASE_NAME, timeout=5)) as conn:
        return int(conn.execute("SELECT count(*) FROM step_writes").fetchone()[0])


async def click_when_shown(window: Any, name: str, what: str) -> None:
    """Wait for the banner's button ``name`` and click it."""
    button = await wait_until(lambda: window.findChild(QPushButton, name), what=what)
    button.click()


async def discard(window: Any) -> None:
    """Press Discard and wait until the unanswered calls got their answers."""
    await click_when_shown(window, "discardRunButton", "Discard")
    await wait_until(lambda: not window.approvals.banner.isVisible(), what="the banner to go")
    await wait_until(lambda: window.chat_vm.model.messages()[-1].role == "tool", what="answers")


def lines(log: Path) -> list[list[str]]:
    return [line.split() for line in log.read_text().splitlines()]


async def test_a_killed_run_resumes_without_running_finished_calls_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, log = await killed_mid_call(tmp_path)
    before = lines(log)
    assert [line[:-1] for line in before] == [["first"], ["start", "second"]]
    monkeypatch.setenv("PARLEY_TEST_LOG", str(log))
    model = Recorder([{"text": "All done."}])
    window = await open_tool_window(data, model, list(TOOLS))
    try:
        assert [t.status for t in await window.workspace.threads.list_all()] == ["cut_off"]
        resume = await wait_until(
            lambda: window.findChild(QPushButton, "resumeRunButton"), what="Resume"
        )
        assert resume.isVisible()
        assert "cut off" in window.approvals.banner.label.text()
        resume.click()
        await wait_until(lambda: model.inputs, what="the model to be asked after the calls")
        await wait_until(
            lambda: not window.workspace.runs.is_running(window.chat_vm.thread_id), what="the end"
        )
        after = lines(log)
        assert after[:2] == before
        assert [line[:-1] for line in after[2:]] == [["start", "second"], ["done", "second"]]
        assert after[2][-1] == after[3][-1] == before[1][-1]  # the same idempotency key
        assert window.chat_vm.model.messages()[-1].text() == "All done."
        assert [t.status for t in await window.workspace.threads.list_all()] == ["idle"]
        assert not window.approvals.banner.isVisible()
    finally:
        await close_window(window)


async def test_a_call_that_finished_beside_the_cut_off_one_is_not_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, log = await killed_mid_call(tmp_path, "parallel")
    before = sorted(lines(log))
    assert [line[:-1] for line in before] == [["first"], ["start", "second"]]
    monkeypatch.setenv("PARLEY_TEST_LOG", str(log))
    model = Recorder([{"text": "Both stamped."}])
    window = await open_tool_window(data, model, list(TOOLS))
    try:
        await click_when_shown(window, "resumeRunButton", "Resume")
        await wait_until(lambda: model.inputs, what="the model to be asked after the calls")
        await wait_until(
            lambda: not window.workspace.runs.is_running(window.chat_vm.thread_id), what="the end"
        )
        after = lines(log)
        assert sum(line[0] == "first" for line in after) == 1  # ran once, before the kill
        again = after[2:]
        assert [line[:-1] for line in again] == [["start", "second"], ["done", "second"]]
        key = next(line[-1] for line in before if line[0] == "start")
        assert again[0][-1] == again[1][-1] == key  # the same idempotency key
        results = [r.output for m in model.inputs[0] for r in m.tool_results()]
        assert results == ["stamped first", "stamped second slowly"]
        assert window.chat_vm.model.messages()[-1].text() == "Both stamped."
    finally:
        await close_window(window)


async def test_discarding_a_cut_off_run_runs_nothing_more(tmp_path: Path) -> None:
    data, log = await killed_mid_call(tmp_path)
    before = log.read_text()
    model = Recorder([{"text": "Ready for the next message."}])
    window = await open_tool_window(data, model, list(TOOLS))
    try:
        await discard(window)
        last = window.chat_vm.model.messages()[-1]
        assert [r.output for r in last.tool_results()] == [DISCARDED_NOTE]
        assert [t.status for t in await window.workspace.threads.list_all()] == ["idle"]
        assert log.read_text() == before and model.inputs == []
        # the thread goes on normally, and the model sees an answer for every call
        await window.chat_vm.send("Anything else?")
        await wait_until(lambda: model.inputs, what="the next turn")
        results = [r.output for m in model.inputs[0] for r in m.tool_results()]
        assert results == ["stamped first", DISCARDED_NOTE]
    finally:
        await close_window(window)


async def test_a_process_killed_while_waiting_for_approval_still_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, log = await killed_mid_call(tmp_path, "approval")
    assert log.read_text() == "paused\n"  # nothing ran before the decision
    monkeypatch.setenv("PARLEY_TEST_LOG", str(log))
    model = Recorder([{"text": "Stamped."}])
    window = await open_tool_window(data, model, list(TOOLS))
    try:
        assert [t.status for t in await window.workspace.threads.list_all()] == ["waiting"]
        dialog = await approval_dialog(window)
        assert window.approvals.banner.kind != "cut_off"  # a paused run is not a cut-off one
        assert "guarded_stamp" in dialog.name_label.text()
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: model.inputs, what="the run to continue")
        await wait_until(
            lambda: not window.workspace.runs.is_running(window.chat_vm.thread_id), what="the end"
        )
        assert [line[:-1] for line in lines(log)] == [[], ["guarded", "third"]]
    finally:
        await close_window(window)


async def test_discarding_keeps_the_result_of_a_call_that_finished(tmp_path: Path) -> None:
    data, log = await killed_mid_call(tmp_path, "parallel")
    before = log.read_text()
    model = Recorder([])
    window = await open_tool_window(data, model, list(TOOLS))
    try:
        await discard(window)
        tools = [m for m in window.chat_vm.model.messages() if m.role == "tool"]
        assert [r.output for m in tools for r in m.tool_results()] == [
            "stamped first",
            DISCARDED_NOTE,
        ]
        assert log.read_text() == before and model.inputs == []
    finally:
        await close_window(window)


async def test_a_delegate_killed_mid_call_resumes_with_the_thread(tmp_path: Path) -> None:
    data, log = await killed_mid_call(tmp_path, "delegate")
    before = log.read_text().splitlines()
    assert before == ["first", "start second"]
    hold_file(log).unlink()  # the server's slow call now finishes
    # the delegate's last reply, then the thread agent's, from the one scripted model here
    model = Recorder([{"text": "Stamped both."}, {"text": "Stamper stamped both."}])
    window = await open_tool_window(data, model, list(TOOLS))
    try:
        assert [t.status for t in await window.workspace.threads.list_all()] == ["cut_off"]
        await window.workspace.mcp.wait_started()  # the server whose tools Stamper uses
        await click_when_shown(window, "resumeRunButton", "Resume")
        await wait_until(lambda: len(model.inputs) == 2, what="both agents to answer")
        await wait_until(
            lambda: not window.workspace.runs.is_running(window.chat_vm.thread_id), what="the end"
        )
        # the delegate's finished call was not run again; the cut-off one ran to its end
        assert log.read_text().splitlines() == [*before, "start second", "done second"]
        results = [
            (r.call_id, r.output)
            for m in window.chat_vm.model.messages()
            if m.agent == "Stamper"
            for r in m.tool_results()
        ]
        assert results == [("c1", "stamped first"), ("c2", "stamped second slowly")]
        messages = window.chat_vm.model.messages
        assert messages()[-1].text() == "Stamper stamped both."

        def delegate_said() -> list[str]:
            return [m.text() for m in messages() if m.agent == "Stamper" and m.role == "assistant"]

        # the delegate's reply streams into its card as the window draws frames
        await wait_until(lambda: delegate_said()[-1:] == ["Stamped both."], what="its reply")
    finally:
        await close_window(window)
