"""The notifier carries a notice to the bar that shows it: its sentence, its level, its one
action and how long it stays."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.ui.notices import NoticeBar
from app.ui.notifier import Notifier


def test_a_notice_sent_through_the_notifier_shows_in_the_bar(qtbot: QtBot) -> None:
    bar = NoticeBar()
    qtbot.addWidget(bar)
    notifier = Notifier()
    notifier.shown.connect(bar.show_notice)
    retried: list[bool] = []
    notifier.show(
        "The model did not answer.", level="error", action=("Retry", lambda: retried.append(True))
    )
    assert bar.label.text() == "The model did not answer."
    assert bar.level == "error"
    assert bar.action.text() == "Retry"
    assert not bar.isHidden()
    bar.action.click()
    assert retried == [True]
    assert bar.isHidden()
    notifier.show("Exporting every thread…", level="progress")
    assert bar.label.text() == "Exporting every thread…"
    assert bar.close_button.isHidden()  # progress cannot be dismissed
