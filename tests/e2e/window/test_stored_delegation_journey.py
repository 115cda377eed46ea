"""Delegation between agents a person saved: choosing a stored agent that delegates starts a
thread whose turn asks the delegate, the delegate's sensitive call is approved in the same
dialog naming both agents, the file is written and the reply uses the delegate's answer."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QPushButton

from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.window import MainWindow
from tests.e2e.window.test_agent_journeys import click_agent
from tests.e2e.window.test_delegation_journeys import _scripted, parent_script, rows
from tests.ui.approval_harness import approval_dialog, send
from tests.ui.harness import Models, find, wait_until


async def test_a_saved_agent_delegates_to_another_saved_agent(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    note = notes / "oslo.txt"
    call = {"name": "write_file", "args": {"path": str(note), "content": "Pack a jacket"}}
    models = Models(
        {
            "scripted:a": [],
            "scripted:planner": [],
            "scripted:researcher": [{"tool_calls": [{**call, "id": "w1"}]}, "Noted."],
        }
    )
    models.built["scripted:planner"] = _scripted(parent_script("Note: pack a jacket."))
    workspace = await Workspace.open(
        tmp_path / "data", resolve_model=models, secret_resolver=lambda _r: "unused"
    )
    workspace.settings.use(AppSettings(default_model="scripted:a", granted_folders=[str(notes)]))
    await workspace.agents.add(
        Agent(
            name="Researcher",
            instructions="You take notes.",
            model="scripted:researcher",
            tools=("write_file",),
        )
    )
    await workspace.agents.add(
        Agent(name="Planner", model="scripted:planner", delegates=("Researcher",))
    )
    window = MainWindow(workspace)
    window.show()
    await window.start(preload=False)
    try:
        await wait_until(lambda: _listed(window, "Planner"), what="the saved agents listed")
        click_agent(window, "Planner")  # a new thread on the Planner
        await wait_until(lambda: window.chat_vm.thread_id is not None, what="its thread")
        await send(window, "Take a note for Oslo")
        dialog = await approval_dialog(window)
        assert dialog.windowTitle() == "Researcher, asked by Planner, wants to write_file"
        meter = window.header.budget
        await wait_until(lambda: "Researcher" in meter.toolTip(), what="the meter's agents")
        assert "Planner" in meter.toolTip() and "Parley" not in meter.toolTip()
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(
            lambda: rows(window) and rows(window)[-1].text() == "The researcher says: Noted.",
            what="the Planner's reply with the Researcher's answer",
        )
        assert note.read_text() == "Pack a jacket"
        assert [p.name for p in notes.iterdir()] == ["oslo.txt"]
        researcher = models.built["scripted:researcher"]
        assert [m.text() for m in researcher.calls[0]] == [
            "You take notes.",
            "Note: pack a jacket.",
        ]
        thread = await workspace.threads.get(window.chat_vm.thread_id or "")
        assert workspace.agents.named(thread.agent_id) == "Planner"
    finally:
        await close_window(window)


def _listed(window: MainWindow, name: str) -> bool:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QListWidget

    agents = find(window, QListWidget, "agentList")
    return bool(agents.findItems(name, Qt.MatchFlag.MatchExactly))
