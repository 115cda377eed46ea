"""The sidebar's status marks are drawn in the colours of the theme in use, inside the
sidebar whose list has a transparent ground (light marks on light, dark on dark)."""

from __future__ import annotations

import time

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QFrame, QListView, QVBoxLayout
from pytestqt.qtbot import QtBot

from app.ui.sidebar.delegate import RowDelegate
from app.ui.sidebar.model import SidebarRow, ThreadListModel
from app.ui.theme import DARK, LIGHT, apply_theme


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_waiting_mark_is_drawn_in_its_themes_warning_colour(qtbot: QtBot, theme: str) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, theme)
    try:
        sidebar = QFrame()
        sidebar.setObjectName("sidebar")  # the theme's sheet makes its list transparent
        qtbot.addWidget(sidebar)
        view = QListView(sidebar)
        QVBoxLayout(sidebar).addWidget(view)
        model = ThreadListModel(view)
        model.set_rows([SidebarRow("b", "Owls", "Which tool?", "waiting", active_at=time.time())])
        view.setModel(model)
        view.setItemDelegate(RowDelegate(view))
        sidebar.resize(260, 200)
        sidebar.show()
        image = view.viewport().grab().toImage()
        seen = {
            QColor(image.pixel(x, y)).name()
            for x in range(image.width())
            for y in range(image.height())
        }
        mine, other = (LIGHT, DARK) if theme == "light" else (DARK, LIGHT)
        assert mine.warning in seen and other.warning not in seen
    finally:
        apply_theme(app, "system")
