"""The batch approval dialog's table: one row per call (tool, arguments, decision)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from app.text.hidden_chars import mark_hidden
from app.ui.approvals._calls import CHOICES, PendingCall
from app.ui.approvals._render import one_line

__all__ = ["calls_table"]


def calls_table(
    parent: QWidget,
    calls: list[PendingCall],
    changed: Callable[[int], None],
    callers: Sequence[str] = (),
) -> QTableWidget:
    """The table (object name ``approvalCalls``) of ``calls``, each row with a decision box
    (``decision<row>``) whose changes call ``changed``; when ``callers`` (the agent making
    each call) names more than one agent, each row's tool is preceded by its agent's name."""
    named = len(set(callers)) > 1
    table = QTableWidget(len(calls), 3, parent)
    table.setObjectName("approvalCalls")
    table.setAccessibleName("Tool calls waiting for your decision")
    table.setHorizontalHeaderLabels(["Tool", "Arguments", "Decision"])
    table.verticalHeader().hide()
    table.verticalHeader().setDefaultSectionSize(32)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideRight)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    header = table.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
    for row, call in enumerate(calls):
        tool = mark_hidden(call.request.tool)
        table.setItem(row, 0, QTableWidgetItem(f"{callers[row]}: {tool}" if named else tool))
        summary = QTableWidgetItem(one_line(call.request.args, 60))
        summary.setToolTip(one_line(call.request.args, 2000))
        table.setItem(row, 1, summary)
        combo = QComboBox(table)
        combo.setObjectName(f"decision{row}")
        combo.setAccessibleName(f"Decision for call {row + 1}, {mark_hidden(call.request.tool)}")
        for key, label in CHOICES:
            combo.addItem(label, key)
        combo.currentIndexChanged.connect(changed)
        table.setCellWidget(row, 2, combo)
    table.setFixedHeight(min(6, len(calls)) * 32 + table.horizontalHeader().sizeHint().height() + 4)
    return table
