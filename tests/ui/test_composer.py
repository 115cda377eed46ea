"""The composer on its own: one box, the text above a row of buttons; the buttons the window
hands it sit after Attach in the order given, which is also their tab order; Send turns into
Stop while a reply runs; the attachment bar it is handed sits above the text
box; and files attached let an empty message go."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from app.ui.composer import ComposerPanel
from tests.ui.harness import press


def test_placed_buttons_follow_attach_in_the_order_given(qtbot: QtBot) -> None:
    composer = ComposerPanel()
    qtbot.addWidget(composer)
    first, second = QPushButton("From MCP…"), QPushButton("Tools")
    composer.place_actions([first, second])
    composer.show()
    box = composer.findChild(QFrame, "composerBox")
    assert box.layout().itemAt(0).widget() is composer.edit
    under = box.layout().itemAt(1).layout()  # the row under the text, inside the same box
    row = [under.itemAt(i).widget() for i in range(under.count())]
    shown = [w for w in row if isinstance(w, QPushButton) and not w.isHidden()]
    assert [w.accessibleName() or w.text() for w in shown] == [
        "Attach files",
        "From MCP…",
        "Tools",
        "Compare models",
        "Send message",
    ]
    composer.activateWindow()
    composer.attach_button.setFocus()
    press(composer.attach_button, Qt.Key.Key_Tab)
    assert composer.focusWidget() is first
    press(first, Qt.Key.Key_Tab)
    assert composer.focusWidget() is second
    press(second, Qt.Key.Key_Tab)
    assert composer.focusWidget() is composer.compare_button
    press(composer.compare_button, Qt.Key.Key_Tab)
    assert composer.focusWidget() is composer.send_button


def test_the_attachment_bar_it_is_handed_sits_above_the_text_box(qtbot: QtBot) -> None:
    composer = ComposerPanel()
    qtbot.addWidget(composer)
    bar = QWidget()
    QVBoxLayout(bar).addWidget(QLabel("report.pdf", bar))
    composer.place_attachments(bar)
    bar.show()
    composer.enter_edit_mode("m1", "Hello")  # the edit banner shows too: the bar goes under it
    composer.resize(600, 300)
    composer.show()
    composer.layout().activate()
    assert bar.parentWidget() is composer and bar.isVisible()
    bar_bottom = bar.mapTo(composer, QPoint(0, bar.height())).y()
    banner_bottom = composer.edit_banner.mapTo(composer, QPoint(0, 0)).y()
    banner_bottom += composer.edit_banner.height()
    edit_top = composer.edit.mapTo(composer, QPoint(0, 0)).y()
    assert banner_bottom <= bar.mapTo(composer, QPoint(0, 0)).y()
    assert bar_bottom <= edit_top
    assert bar.height() > 0


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


def test_ctrl_shift_enter_asks_to_compare_what_is_written(qtbot: QtBot) -> None:
    composer = ComposerPanel()
    qtbot.addWidget(composer)
    asked: list[str] = []
    composer.compareRequested.connect(asked.append)
    composer.sendRequested.connect(lambda text: asked.append(f"sent {text}"))
    composer.edit.setPlainText("Oslo in May?")
    both = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    press(composer.edit, Qt.Key.Key_Return, both)
    assert asked == ["Oslo in May?"]
    assert composer.text() == "Oslo in May?"  # kept until the models are chosen
    QTest.mouseClick(composer.compare_button, Qt.MouseButton.LeftButton)
    assert asked == ["Oslo in May?", "Oslo in May?"]


def test_send_turns_into_stop_in_its_place_while_a_reply_runs(qtbot: QtBot) -> None:
    composer = ComposerPanel()
    qtbot.addWidget(composer)
    composer.resize(600, 160)
    composer.show()
    composer.layout().activate()
    box = composer.findChild(QFrame, "composerBox")
    send = composer.send_button.geometry()
    assert box.geometry().contains(composer.send_button.mapTo(composer, QPoint(0, 0)))
    composer.set_running(True)
    box.layout().activate()
    assert composer.stop_button.isVisible() and not composer.send_button.isVisible()
    assert composer.stop_button.geometry().right() == send.right()  # the same corner
    for button, name, tip in (
        (composer.send_button, "Send message", "Send (Enter)"),
        (composer.stop_button, "Stop the reply", "Stop (Esc)"),
    ):
        assert (button.text(), button.accessibleName(), button.toolTip()) == ("", name, tip)
        assert not button.icon().isNull()
