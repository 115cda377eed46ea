"""Small layout pieces the settings pages share: a page heading and an explanation, a table of
rows to read."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from app.ui.settings._labels import heading, hint, section

__all__ = ["heading", "page_layout", "result_label", "rows_table", "section"]


def page_layout(page: QWidget, title: str, intro: str) -> QVBoxLayout:
    """A page's column: its title and a sentence on what the page is for."""
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(8)
    layout.addWidget(heading(title, page))
    text = hint(intro, page)
    text.setObjectName("settingsIntro")
    layout.addWidget(text)
    layout.addSpacing(8)
    return layout


def result_label(parent: QWidget, name: str) -> QLabel:
    """A label for one sentence of feedback (a test result, a refusal)."""
    label = QLabel("", parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(label.textInteractionFlags())
    return label


def rows_table(
    parent: QWidget, name: str, accessible: str, columns: list[str], stretch: int
) -> QTableWidget:
    """A read-only table of whole-row selections, its ``stretch`` column taking the room left
    and the others sized to their contents."""
    table = QTableWidget(0, len(columns), parent)
    table.setObjectName(name)
    table.setAccessibleName(accessible)
    table.setHorizontalHeaderLabels(columns)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return table
