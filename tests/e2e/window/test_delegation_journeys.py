"""Delegation in the real window: a parent agent asks a delegate whose tool call needs
approval (the dialog names both; the file is written once; the parent's reply uses the
delegate's answer; the delegate's work is one card), the shared budget pausing inside the
delegate, and Stop during the delegate stopping everything."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QListView, QPushButton, QWidget

from app.core.budget import BudgetLimits
from app.core.graph import RunConfig
from app.core.state import Message
from app.core.tools import tool
from app.services.delegation import AgentChoice, AgentSpec
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.budget.pause_panel import BudgetPausePanel
from app.ui.window import MainWindow
from tests.ui.approval_harness import approval_dialog, send
from tests.ui.harness import Models, find, press, wait_until

AGENTS = {
    "Parley": AgentSpec(name="Parley", delegates=("Researcher",)),
    "Researcher": AgentSpec(
        name="Researcher",
        instructions="You take notes.",
        model="scripted:researcher",
        tools=("write_note", "look_up", "wait_a_while"),
    ),
}


class Desk:
    """The delegate's tools, keeping what they did."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self.started = asyncio.Event()
        self.release = asyncio.Event()

        @tool(permissions=("files:write",), requires_approval=True)
        def write_note(path: str, content: str) -> str:
            """Write a note to a file."""
            Path(path).write_text(content)
            self.written.append(path)
            return f"wrote {path}"

        @tool
        def look_up(query: str) -> str:
            """Look something up."""
            return f"{query}: 4 °C"

        @tool
        async def wait_a_while(query: str) -> str:
            """Take a while."""
            self.started.set()
            await self.release.wait()
            return "waited"

        self.tools = [write_note, look_up, wait_a_while]


def parent_script(task: str) -> Any:
    def reply(messages: Sequence[Message]) -> dict[str, Any]:
        if messages[-1].role == "user":
            call = {"name": "ask_researcher", "args": {"task": task}, "id": "d1"}
            return {"text": "Asking the researcher.", "tool_calls": [call]}
        answer = [str(r.output) for r in messages[-1].tool_results()]
        return {"text": f"The researcher says: {' '.join(answer)}"}

    return reply


async def open_window(
    data_dir: Path, models: Models, desk: Desk, limits: BudgetLimits | None = None
) -> MainWindow:
    workspace = await Workspace.open(
        data_dir,
        resolve_model=models,
        secret_resolver=lambda _r: "unused",
        tools=desk.tools,
        run_config=RunConfig(budget_pause=True, tool_permissions=frozenset({"files:write"})),
    )
    workspace.settings.use(
        AppSettings(default_model="scripted:a", default_limits=limits or BudgetLimits())
    )

    async def agents_of(_thread: Any) -> AgentChoice:
        return AgentChoice("Parley", AGENTS)

    workspace.models.use_agents(agents_of)
    window = MainWindow(workspace)
    window.show()
    await window.start(preload=False)
    return window


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
    note = tmp_path / "oslo.txt"
    call = {"name": "write_note", "args": {"path": str(note), "content": "Pack a jacket"}}
    models = Models(
        {
            "scripted:a": [],
            "scripted:researcher": [{"tool_calls": [{**call, "id": "w1"}]}, "Noted."],
        }
    )
    models.built["scripted:a"] = _scripted(parent_script("Note: pack a jacket."))
    desk = Desk()
    window = await open_window(tmp_path / "data", models, desk)
    try:
        await send(window, "Take a note for Oslo")
        dialog = await approval_dialog(window)
        assert dialog.windowTitle() == "Researcher, asked by Parley, wants to write_note"
        assert str(note) in dialog.args_view.toPlainText()
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(
            lambda: rows(window) and rows(window)[-1].text() == "The researcher says: Noted.",
            what="the parent's reply with the delegate's answer",
        )
        await idle(window)
        assert desk.written == [str(note)] and note.read_text() == "Pack a jacket"
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
        assert after.agent is None and after.role == "tool"
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
    look = {"name": "look_up", "args": {"query": "Oslo"}, "id": "l1"}
    models = Models(
        {"scripted:a": [], "scripted:researcher": [{"tool_calls": [look]}, "It is 4 °C."]}
    )
    models.built["scripted:a"] = _scripted(parent_script("Find the weather."))
    window = await open_window(tmp_path / "data", models, Desk(), BudgetLimits(max_model_calls=2))
    try:
        await send(window, "Weather?")
        panel = find(window, BudgetPausePanel, "budgetPausePanel")
        await wait_until(panel.isVisible, what="the budget pause panel")
        assert (
            find(panel, QWidget, "budgetPauseText")
            .text()
            .startswith(
                "The next step is Researcher's (asked by Parley); the whole turn shares one budget."
            )
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
    slow = {"name": "wait_a_while", "args": {"query": "x"}, "id": "s1"}
    models = Models({"scripted:a": [], "scripted:researcher": [{"tool_calls": [slow]}, "never"]})
    parent = _scripted(parent_script("Take your time."))
    models.built["scripted:a"] = parent
    desk = Desk()
    window = await open_window(tmp_path / "data", models, desk)
    try:
        await send(window, "Slowly, please")
        await asyncio.wait_for(desk.started.wait(), 10)
        QTest.mouseClick(find(window, QPushButton, "stopButton"), Qt.MouseButton.LeftButton)
        desk.release.set()
        await idle(window)
        assert len(parent.calls) == 1  # the parent was not asked again
        assert models.built["scripted:researcher"].remaining == 1
        vm = find(window, QListView, "chatView").vm
        assert vm.status() in ("stopped", "idle")
    finally:
        await close_window(window)


def _scripted(fn: Any) -> Any:
    from app.core.models import ScriptedChatModel

    return ScriptedChatModel(fn)
