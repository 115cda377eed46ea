"""A tool call and its result read as one card in the real window: the result's own row is not
drawn, the call's card says how it ended and what came back, unfolds to its arguments and its
output, and the answer after it goes on under the same header; the keyboard walks past the
hidden row, and a screen reader hears the call with its result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QListView, QListWidget, QPlainTextEdit

from app.core.budget import BudgetLimits
from app.services.agents import Agent
from app.ui.chat.delegate import GAP, HEADER
from app.ui.chat.links import Toggle, href_of
from tests.e2e.window.test_agent_journeys import click_agent
from tests.ui.chat.links_harness import href_spot
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

ADD: dict[str, Any] = {"tool_calls": [{"name": "calculator", "args": {"expression": "6*7"}}]}


async def test_a_call_and_its_result_are_one_card_and_the_answer_goes_on_under_it(
    tmp_path: Path,
) -> None:
    models = Models({"scripted:a": [ADD, {"text": "It is 42."}]})
    window = await open_test_window(tmp_path, models)
    try:
        await window.workspace.agents.add(
            Agent(
                name="Counter",
                instructions="Answer briefly.",
                tools=("calculator",),
                limits=BudgetLimits(max_model_calls=5),
            )
        )
        agents = find(window, QListWidget, "agentList")
        await wait_until(lambda: agents.findItems("Counter", Qt.MatchFlag.MatchExactly))
        click_agent(window, "Counter")
        view = find(window, QListView, "chatView")
        composer = find(window, QPlainTextEdit, "composer")
        composer.setPlainText("What is 6 times 7?")
        QTest.keyClick(composer, Qt.Key.Key_Return)
        model = view.vm.model
        await wait_until(lambda: model.rowCount() == 4, what="question, call, result, answer")
        await wait_until(lambda: view.vm.status() != "running", what="the turn to end")
        roles = [m.role for m in model.messages()]
        assert roles == ["user", "assistant", "tool", "assistant"]
        view.scrollToBottom()
        view.grab()

        call, result, answer = (model.index(r, 0) for r in (1, 2, 3))
        assert view.visualRect(result).height() == 0  # the result's own row is not drawn
        card = view.delegate.document(call).toPlainText()
        assert "calculator" in card and "done · 6*7 = 42" in card
        assert "Output" not in card  # folded: one line
        said = model.data(call, Qt.ItemDataRole.AccessibleTextRole)
        assert "(called calculator: done, 6*7 = 42)" in said

        # the answer goes on under the call's header, not a second "Counter 12:00"
        below = view.visualRect(answer).top() - view.visualRect(call).bottom()
        assert below <= 1
        assert view.delegate.lead(answer) < GAP + HEADER <= view.delegate.lead(call)

        key = f"{model.message_at(1).message_id}:0"
        spot = href_spot(view, 1, href_of(Toggle(key)))
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spot)
        await wait_until(lambda: "Output" in view.delegate.document(call).toPlainText())
        unfolded = view.delegate.document(call).toPlainText()
        assert "Arguments" in unfolded and '"expression": "6*7"' in unfolded
        assert unfolded.rstrip().endswith("42")

        # the keyboard steps from the call to the answer, past the row not drawn
        view.setFocus()
        view.setCurrentIndex(call)
        QTest.keyClick(view, Qt.Key.Key_Down)
        current: QModelIndex = view.currentIndex()
        assert current.row() == 3
    finally:
        await close_test_window(window)
