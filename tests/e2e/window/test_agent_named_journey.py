"""A thread of a saved agent names that agent, not Parley, wherever the window says who is
answering: the line beside the buttons while it answers (also when the running thread is
opened again from another), and what a screen reader reads of its reply."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListView, QPlainTextEdit

from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.window import MainWindow
from tests.ui.approval_harness import send
from tests.ui.harness import Models, find, press, wait_until

ANSWER = "Use pprint.pprint(data, width=60); it breaks a nested dictionary over lines. " * 3


async def test_the_status_line_and_the_reply_name_the_threads_agent(tmp_path: Path) -> None:
    models = Models({"scripted:a": [], "scripted:lib": [ANSWER]}, delay=0.1)
    workspace = await Workspace.open(
        tmp_path / "data", resolve_model=models, secret_resolver=lambda _r: "unused"
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    librarian = await workspace.agents.add(
        Agent(name="Librarian", instructions="Answer briefly. Use the notes.", model="scripted:lib")
    )
    other = await workspace.threads.create(title="With Parley")
    thread = await workspace.threads.create(agent_id=librarian.id, title="Printing")
    window = MainWindow(workspace)
    window.show()
    await window.start(thread.id, preload=False)
    hint = find(window, QLabel, "composerHint")
    answering = "Librarian is answering… (Esc stops)"
    try:
        await send(window, "How do I pretty print a nested dictionary?")
        await wait_until(lambda: hint.text() == answering, what="the answering line")
        await window.open_thread(other.id)
        assert hint.text() == ""
        await window.open_thread(thread.id)  # still answering
        assert window.chat_vm.status() == "running"
        assert hint.text() == answering
        reply = window.chat_vm.model
        await wait_until(
            lambda: reply.rowCount() == 2 and "pprint(" in reply.messages()[1].text(),
            what="the reply's first words",
        )
        press(find(window, QPlainTextEdit, "composer"), Qt.Key.Key_Escape)
        await wait_until(lambda: window.chat_vm.status() != "running", what="the stop")
        assert hint.text() == ""
        chat = find(window, QListView, "chatView")
        spoken = chat.model().index(1, 0).data(Qt.ItemDataRole.AccessibleTextRole)
        assert spoken.startswith("Librarian: Use pprint.pprint(")
    finally:
        await close_window(window)
