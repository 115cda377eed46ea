"""Budget pauses in the real window: the meter shows the run against its limits, the run
pauses at a limit and the panel asks; raising lets it finish with the right answer, stopping
ends it saying why, and a pause survives closing and reopening the window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QListView, QPlainTextEdit, QPushButton, QSpinBox, QWidget

from app.core.budget import BudgetLimits
from app.core.state import Message
from app.core.tools import tool
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.budget.meter import BudgetMeter
from app.ui.budget.pause_panel import BudgetPausePanel
from app.ui.settings.page import PageId
from app.ui.window import MainWindow
from tests.ui.harness import Models, close_test_window, find, press, type_text, wait_until


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


SCRIPT: list[Any] = [
    {
        "tool_calls": [{"name": "add", "args": {"a": 2, "b": 3}}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 20},
    },
    {
        "tool_calls": [{"name": "add", "args": {"a": 5, "b": 5}}],
        "usage": {"prompt_tokens": 950, "completion_tokens": 20},
    },
    {"text": "2 + 3 + 5 = 10", "usage": {"prompt_tokens": 990, "completion_tokens": 9}},
]


async def open_window(data_dir: Path, models: Models) -> MainWindow:
    workspace = await Workspace.open(
        data_dir, resolve_model=models, secret_resolver=lambda _r: "unused", tools=[add]
    )
    workspace.settings.use(
        AppSettings(default_model="scripted:a", default_limits=BudgetLimits(max_model_calls=2))
    )
    window = MainWindow(workspace)
    window.show()
    await window.start()
    return window


def rows(window: QWidget) -> list[Message]:
    return find(window, QListView, "chatView").vm.model.messages()


async def send_and_pause(window: MainWindow) -> BudgetPausePanel:
    composer = find(window, QPlainTextEdit, "composer")
    type_text(composer, "Add 2 and 3, then 5")
    press(composer, Qt.Key.Key_Return)
    panel = find(window, BudgetPausePanel, "budgetPausePanel")
    await wait_until(panel.isVisible, what="the budget pause panel")
    return panel


async def test_the_run_pauses_at_the_limit_and_raising_lets_it_finish(tmp_path: Path) -> None:
    models = Models({"scripted:a": SCRIPT})
    window = await open_window(tmp_path, models)
    try:
        panel = await send_and_pause(window)
        meter = find(window, BudgetMeter, "budgetMeter")
        assert meter.text() == "Paused · 2/2 calls · 2 tools · 1.9k tokens"
        assert meter.accessibleDescription() == (
            "This run is paused at a limit: Model calls: 2 of 2; Tool calls: 2 (no limit); "
            "Tokens: 1,890 (no limit); Cost: $0.00 (no limit)"
        )
        assert find(panel, QWidget, "budgetPauseTitle").text() == "Paused at the model-call limit"
        assert find(panel, QWidget, "budgetPauseText").text() == (
            "This run has used 2 of its 2 model calls. Raise the limit to let it go on, "
            "or stop here; what it did so far is kept."
        )
        assert window.focusWidget() is find(panel, QPushButton, "raiseBudgetButton")
        assert panel.count.value() == 1
        assert find(panel, QWidget, "budgetRaiseResult").text() == "→ new limit 3 model calls"
        QTest.mouseClick(find(panel, QPushButton, "raiseBudgetButton"), Qt.MouseButton.LeftButton)
        await wait_until(
            lambda: rows(window) and rows(window)[-1].text() == "2 + 3 + 5 = 10",
            what="the answer after raising the limit",
        )
        assert not panel.isVisible()
        vm = find(window, QListView, "chatView").vm
        await wait_until(lambda: vm.status() == "idle", what="the run to end")
    finally:
        await close_test_window(window)


async def test_stop_here_ends_the_run_saying_which_limit(tmp_path: Path) -> None:
    window = await open_window(tmp_path, Models({"scripted:a": SCRIPT}))
    try:
        panel = await send_and_pause(window)
        QTest.mouseClick(find(panel, QPushButton, "stopBudgetButton"), Qt.MouseButton.LeftButton)
        await wait_until(
            lambda: (
                rows(window)[-1].text()
                == "I stopped before finishing: the model-call budget (2) is used up."
            ),
            what="the stop message",
        )
        assert not panel.isVisible()
    finally:
        await close_test_window(window)


async def test_a_pause_survives_closing_and_reopening_the_window(tmp_path: Path) -> None:
    models = Models({"scripted:a": SCRIPT})
    window = await open_window(tmp_path, models)
    await send_and_pause(window)
    await close_test_window(window)

    window = await open_window(tmp_path, models)
    try:
        panel = find(window, BudgetPausePanel, "budgetPausePanel")
        await wait_until(panel.isVisible, what="the pause to come back")
        assert find(window, BudgetMeter, "budgetMeter").text() == "Paused · 2/2 model calls"
        panel.count.setValue(5)
        assert find(panel, QWidget, "budgetRaiseResult").text() == "→ new limit 7 model calls"
        assert await panel.raise_limit()
        await wait_until(lambda: rows(window)[-1].text() == "2 + 3 + 5 = 10", what="the answer")
    finally:
        await close_test_window(window)


async def test_limits_set_in_settings_apply_to_the_next_run(tmp_path: Path) -> None:
    window = await open_window(tmp_path, Models({"scripted:a": SCRIPT}))
    try:
        dialog = window.open_settings(PageId.LIMITS)
        page = await dialog.show_page(PageId.LIMITS)
        box = find(page, QSpinBox, "limit_max_model_calls")
        assert box.value() == 2
        box.setValue(1)
        await page.save("max_model_calls")
        assert find(page, QLabel, "limitsMessage").text() == (
            "Saved: new runs start with these limits."
        )
        dialog.close()
        panel = await send_and_pause(window)
        assert (
            find(panel, QLabel, "budgetPauseText")
            .text()
            .startswith("This run has used 1 of its 1 model calls.")
        )
        assert find(window, BudgetMeter, "budgetMeter").text().startswith("Paused · 1/1 calls")
    finally:
        await close_test_window(window)
