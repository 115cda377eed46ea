"""The composer on its own: the buttons the window hands it sit after Attach… in the order
given, which is also their tab order, and files attached let an empty message go."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from app.ui.composer import ComposerPanel
from tests.ui.harness import press


def test_placed_buttons_follow_attach_in_the_order_given(qtbot: QtBot) -> None:
    composer = ComposerPanel()
    qtbot.addWidget(composer)
    first, second = QPushButton("From MCP…"), QPushButton("Tools")
    composer.place_actions([first, second])
    composer.show()
    row = [
        composer.layout().itemAt(3).layout().itemAt(i).widget()  # the row under the text box
        for i in range(composer.layout().itemAt(3).layout().count())
    ]
    assert [w.text() for w in row if isinstance(w, QPushButton) and not w.isHidden()] == [
        "Attach…",
        "From MCP…",
        "Tools",
        "Send",
    ]
    composer.activateWindow()
    composer.attach_button.setFocus()
    press(composer.attach_button, Qt.Key.Key_Tab)
    assert composer.focusWidget() is first
    press(first, Qt.Key.Key_Tab)
    assert composer.focusWidget() is second
    press(second, Qt.Key.Key_Tab)
    assert composer.focusWidget() is composer.send_button


def test_an_empty_message_goes_only_with_files_attached(qtbot: QtBot) -> None:
    composer = ComposerPanel()
    qtbot.addWidget(composer)
    sent: list[str] = []
    composer.sendRequested.connect(sent.append)
    composer.send_button.click()
    composer.set_attached(True)
    composer.send_button.click()
    composer.set_attached(False)
    composer.send_button.click()
    assert sent == [""]
