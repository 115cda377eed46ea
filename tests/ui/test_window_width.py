"""The window keeps the width it was given when a thread of an agent opens and runs: the header
elides a long title instead of widening the window, and the sidebar gets no horizontal scroll
bar."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel, QListWidget

from app.core.budget import BudgetLimits
from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.window import MainWindow
from tests.ui.approval_harness import send
from tests.ui.harness import Models, find, wait_until

LONG_NAME = "WWW Warden of the Wide World Web Archive, Main Wing, MMXXVI"  # 60, the most
LONG_TITLE = (
    "How do I pretty print a nested dictionary of the library's loans, with every borrower's "
    "name, the books and their due dates, sorted by the day each one is due back"
)


async def test_a_long_titled_agent_thread_with_a_budget_keeps_the_window_width(
    tmp_path: Path,
) -> None:
    sum_up = {"name": "calculator", "args": {"expression": "2 + 2"}, "id": "c1"}
    reply = "Use pprint.pprint(d, width=60). " * 8
    models = Models({"scripted:a": [], "scripted:lib": [{"tool_calls": [sum_up]}, reply]})
    models.delay = 0.02
    workspace = await Workspace.open(
        tmp_path / "data", resolve_model=models, secret_resolver=lambda _r: "unused"
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    limits = BudgetLimits(max_model_calls=20, max_tool_calls=20, max_tokens=50_000, max_cost=2.5)
    librarian = await workspace.agents.add(
        Agent(
            name=LONG_NAME,
            description="Answers from the notes",
            model="scripted:lib",
            tools=("calculator",),
            limits=limits,
        )
    )
    thread = await workspace.threads.create(agent_id=librarian.id, title=LONG_TITLE)
    window = MainWindow(workspace)
    window.resize(1200, 800)
    window.show()
    await window.start(thread.id, preload=False)
    try:
        assert window.width() == 1200
        title = find(window, QLabel, "threadTitle")
        assert find(window, QLabel, "threadAgent").isVisible()
        sidebar_width = window.sidebar.width()
        await send(window, "How do I pretty print a nested dictionary?")
        meter = window.header.budget
        await wait_until(lambda: "/20" in meter.text(), what="the budget meter")
        assert window.width() == 1200
        hint = find(window, QLabel, "composerHint")
        assert hint.text() == f"{LONG_NAME} is answering… (Esc stops)"
        said = hint.shown_text()  # type: ignore[attr-defined]
        assert said == hint.text() or (said.endswith("…") and hint.text().startswith(said[:-1]))
        assert window.sidebar.width() == sidebar_width
        shown = title.shown_text()
        assert shown.endswith("…") and LONG_TITLE.startswith(shown[:-1])
        assert title.text() == LONG_TITLE  # renaming and exporting still get it whole
        assert title.toolTip().startswith(LONG_TITLE)
        assert not window.sidebar.list.horizontalScrollBar().isVisible()
        agents = find(window, QListWidget, "agentList")
        assert not agents.horizontalScrollBar().isVisible()
        await wait_until(lambda: window.chat_vm.status() == "idle", what="the reply's end")
        assert window.width() == 1200
        # the meter's words settle once the reply has ended; the picker gave up room too, so
        # the title still reads as more than a word
        assert len(title.shown_text()) >= 12  # type: ignore[attr-defined]
        assert not window.sidebar.list.horizontalScrollBar().isVisible()
    finally:
        await close_window(window)
