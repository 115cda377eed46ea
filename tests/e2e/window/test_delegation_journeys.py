"""Delegation in the real window between agents a person saved: a thread of the Planner, who
asks the Researcher; the Researcher's tool call needs approval (the dialog names both; the file
is written once; the Planner's reply uses the Researcher's answer; the Researcher's work is one
card), the shared budget pausing inside the Researcher, and Stop during the Researcher's tool
call stopping everything."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QListView, QListWidget, QPushButton, QWidget

from app.core.budget import BudgetLimits
from app.core.state import Message
from app.services.agents import Agent
from app.services.mcp.config import McpConfig
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.budget.pause_panel import BudgetPausePanel
from app.ui.window import MainWindow
from tests.e2e.window.stamp_server import SLOW_STAMP, stamp_config
from tests.e2e.window.test_agent_journeys import click_agent
from tests.ui.approval_harness import approval_dialog, send
from tests.ui.harness import Models, find, press, wait_until

RESEARCHER = Agent(name="Researcher", instructions="You take notes.", model="scripted:researcher")
PLANNER = Agent(name="Planner", delegates=("Researcher",))
"""Runs on the thread's model (``scripted:a``) and asks the Researcher."""


def parent_script(task: str) -> Any:
    def reply(messages: Sequence[Message]) -> dict[str, Any]:
        if messages[-1].role == "user":
            call = {"name": "ask_researcher", "args": {"task": task}, "id": "d1"}
            return {"text": "Asking the researcher.", "tool_calls": [call]}
        answer = [str(r.output) for r in messages[-1].tool_results()]
        return {"text": f"The researcher says: {' '.join(answer)}"}

    return reply


async def open_planner(
    data_dir: Path,
    models: Models,
    tools: tuple[str, ...],
    limits: BudgetLimits | None = None,
    granted: Path | None = None,
) -> MainWindow:
    """A window on ``data_dir`` where the Researcher (with ``tools``) and the Planner (with
    ``limits``) are saved, on a new thread of the Planner started from the agents list."""
    workspace = await Workspace.open(
        data_dir, resolve_model=models, secret_resolver=lambda _r: "unused"
    )
    folders = [str(granted)] if granted else []
    workspace.settings.use(AppSettings(default_model="scripted:a", granted_folders=folders))
    window = MainWindow(workspace)
    window.show()
    await window.start(preload=False)
    await workspace.mcp.wait_started()  # a delegate may use the MCP servers' tools
    await workspace.agents.add(RESEARCHER.model_copy(update={"tools": tools}))
    await workspace.agents.add(PLANNER.model_copy(update={"limits": limits or BudgetLimits()}))
    await wait_until(lambda: _listed(window, "Planner"), what="the saved agents listed")
    click_agent(window, "Planner")  # a new thread on the Planner
    await wait_until(lambda: window.chat_vm.thread_id is not None, what="its thread")
    return window


def _listed(window: MainWindow, name: str) -> bool:
    agents = find(window, QListWidget, "agentList")
    return bool(agents.findItems(name, Qt.MatchFlag.MatchExactly))


def rows(window: QWidget) -> list[Message]:
    return find(window, QListView, "chatView").vm.model.messages()


async def idle(window: MainWindow) -> None:
    vm = window.chat_vm
    await wait_until(
        lambda: vm.thread_id and not vm.runs.is_running(vm.thread_id),
        what="the run to end",
    )


async def test_a_delegates_approval_names_both_and_its_answer_reaches_the_reply(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    note = notes / "oslo.txt"
    call = {"name": "write_file", "args": {"path": str(note), "content": "Pack a jacket"}}
    models = Models(
        {
            "scripted:a": [],
            "scripted:researcher": [{"tool_calls": [{**call, "id": "w1"}]}, "Noted."],
        }
    )
    models.built["scripted:a"] = _scripted(parent_script("Note: pack a jacket."))
    window = await open_planner(tmp_path / "data", models, ("write_file",), granted=notes)
    try:
        await send(window, "Take a note for Oslo")
        dialog = await approval_dialog(window)
        assert dialog.windowTitle() == "Researcher, asked by Planner, wants to write_file"
        assert str(note) in dialog.args_view.toPlainText()
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(
            lambda: rows(window) and rows(window)[-1].text() == "The researcher says: Noted.",
            what="the parent's reply with the delegate's answer",
        )
        await idle(window)
        assert note.read_text() == "Pack a jacket"
        assert [p.name for p in notes.iterdir()] == ["oslo.txt"]
        researcher = models.built["scripted:researcher"]
        assert [m.text() for m in researcher.calls[0]] == [
            "You take notes.",
            "Note: pack a jacket.",
        ]
        view = find(window, QListView, "chatView")
        cards = [view.model().index(r, 0).data() for r in range(view.model().rowCount())]
        card = cards.index("Researcher — 2 steps, 1 tool call. Task: Note: pack a jacket.")
        # the keyboard steps over the folded card's rows, and Space unfolds it
        view.setFocus()
        view.setCurrentIndex(view.model().index(card, 0))
        press(view, Qt.Key.Key_Down)
        after = rows(window)[view.currentIndex().row()]
        # past the card, the ask's result (drawn on its call's card) to the reply
        assert after.agent is None and after.text() == "The researcher says: Noted."
        press(view, Qt.Key.Key_Up)
        assert view.currentIndex().row() == card
        press(view, Qt.Key.Key_Space)
        press(view, Qt.Key.Key_Down)
        assert rows(window)[view.currentIndex().row()].agent == "Researcher"
        assert view.visualRect(view.currentIndex()).height() > 0
    finally:
        await close_window(window)


async def test_the_shared_budget_pauses_inside_the_delegate_and_raising_finishes(
    tmp_path: Path,
) -> None:
    look = {"name": "calculator", "args": {"expression": "2 + 2"}, "id": "l1"}
    models = Models(
        {"scripted:a": [], "scripted:researcher": [{"tool_calls": [look]}, "It is 4 °C."]}
    )
    models.built["scripted:a"] = _scripted(parent_script("Find the weather."))
    limits = BudgetLimits(max_model_calls=2)  # the Planner's own: the whole turn's budget
    window = await open_planner(tmp_path / "data", models, ("calculator",), limits)
    try:
        await send(window, "Weather?")
        panel = find(window, BudgetPausePanel, "budgetPausePanel")
        await wait_until(panel.isVisible, what="the budget pause panel")
        said = find(panel, QWidget, "budgetPauseText").text()
        assert said.startswith(
            "The next step is Researcher's (asked by Planner); the whole turn shares one budget."
        )
        panel.count.setValue(2)
        QTest.mouseClick(find(panel, QPushButton, "raiseBudgetButton"), Qt.MouseButton.LeftButton)
        await wait_until(
            lambda: rows(window) and rows(window)[-1].text() == "The researcher says: It is 4 °C.",
            what="the reply after raising the limit",
        )
        await idle(window)
    finally:
        await close_window(window)


async def test_stop_during_the_delegate_stops_the_whole_turn(tmp_path: Path) -> None:
    log, hold = tmp_path / "stamps.log", tmp_path / "hold"
    hold.touch()  # the server's slow_stamp waits while this file is there
    McpConfig.for_data_dir(tmp_path / "data").add(stamp_config(log, hold))
    slow = {"name": SLOW_STAMP, "args": {"label": "x"}, "id": "s1"}
    models = Models({"scripted:a": [], "scripted:researcher": [{"tool_calls": [slow]}, "never"]})
    parent = _scripted(parent_script("Take your time."))
    models.built["scripted:a"] = parent
    window = await open_planner(tmp_path / "data", models, (SLOW_STAMP,))
    try:
        await send(window, "Slowly, please")
        await wait_until(
            lambda: log.exists() and log.read_text() == "start x\n", what="the slow call"
        )
        QTest.mouseClick(find(window, QPushButton, "stopButton"), Qt.MouseButton.LeftButton)
        hold.unlink()
        await idle(window)
        assert len(parent.calls) == 1  # the parent was not asked again
        assert models.built["scripted:researcher"].remaining == 1
        vm = find(window, QListView, "chatView").vm
        assert vm.status() == "stopped"
    finally:
        await close_window(window)


def _scripted(fn: Any) -> Any:
    from app.core.models import ScriptedChatModel

    return ScriptedChatModel(fn)
