"""A model that keeps asking for the same failing call, through the real window: the call runs
once, the turn ends with a sentence naming the agent and a Retry, the meter stops counting,
and Retry asks again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QListView, QListWidget, QPlainTextEdit, QWidget

from app.core.budget import BudgetLimits
from app.core.state import ErrorBlock, Message
from app.services.agents import Agent
from app.ui.budget.meter import BudgetMeter
from tests.ui.chat.links_harness import href_spot
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

STOP = "Librarian kept asking for the same failing call; stopped."
DIVIDE: dict[str, Any] = {"tool_calls": [{"name": "calculator", "args": {"expression": "1/0"}}]}


def rows(window: QWidget) -> list[Message]:
    return find(window, QListView, "chatView").vm.model.messages()


def errors(message: Message) -> list[str]:
    return [b.error for b in message.content if isinstance(b, ErrorBlock)]


async def test_a_repeated_failing_call_ends_the_turn_with_a_sentence_and_retry(
    tmp_path: Path,
) -> None:
    answer = "Nothing can be divided by zero."
    models = Models({"scripted:a": [DIVIDE, DIVIDE, DIVIDE, {"text": answer}]})
    window = await open_test_window(tmp_path, models)
    try:
        await window.workspace.agents.add(
            Agent(
                name="Librarian",
                instructions="Answer briefly.",
                tools=("calculator",),
                limits=BudgetLimits(max_model_calls=20),
            )
        )
        agents = find(window, QListWidget, "agentList")
        await wait_until(lambda: agents.findItems("Librarian", Qt.MatchFlag.MatchExactly))
        item = agents.findItems("Librarian", Qt.MatchFlag.MatchExactly)[0]
        QTest.mouseClick(
            agents.viewport(),
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
            agents.visualItemRect(item).center(),
        )
        await wait_until(lambda: find(window, QLabel, "threadAgent").text() == "Librarian")
        meter = find(window, BudgetMeter, "budgetMeter")
        view = find(window, QListView, "chatView")
        readings: list[str] = []  # what the meter read each time the run spent
        view.vm.budgetChanged.connect(lambda _e: readings.append(meter.text()))
        composer = find(window, QPlainTextEdit, "composer")
        composer.setPlainText("What is 1/0?")
        QTest.keyClick(composer, Qt.Key.Key_Return)

        await wait_until(lambda: rows(window) and errors(rows(window)[-1]), what="the end")
        await wait_until(lambda: view.vm.status() != "running", what="the turn to end")
        model = models.built["scripted:a"]
        assert len(model.calls) == 3  # no model call after the turn ended
        tool_rows = [r for m in rows(window) if m.role == "tool" for r in m.tool_results()]
        # the call ran once; its repeat was answered without running it
        assert len(tool_rows) == 2
        assert "division by zero" in str(tool_rows[0].output)
        assert "already called calculator" in str(tool_rows[1].output)
        last = len(rows(window)) - 1
        assert errors(rows(window)[last]) == [STOP]
        html = view.delegate._laid(view.model().index(last, 0), 600).doc.toHtml()
        assert STOP in html and "remedy:retry" in html
        # the meter's last reading during the run: three calls, and it went no further
        assert readings and readings[-1].startswith("3/20 calls")
        assert not [r for r in readings if r.startswith("4/")]

        # Retry answers the question again, from the start of the turn
        spot = href_spot(view, last, "remedy:retry:")
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        await wait_until(lambda: rows(window)[-1].text() == answer, what="the new reply")
        await wait_until(lambda: view.vm.status() != "running", what="the turn to end")
        assert [m.text() for m in rows(window)] == ["What is 1/0?", answer]
        assert len(model.calls) == 4
    finally:
        await close_test_window(window)
