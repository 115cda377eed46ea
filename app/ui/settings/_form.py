"""Small layout pieces the settings pages share: a page heading and an explanation."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

__all__ = ["heading", "page_layout", "result_label"]


def page_layout(page: QWidget, title: str, intro: str) -> QVBoxLayout:
    """A page's column: its title and a sentence on what the page is for."""
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(8)
    layout.addWidget(heading(title, page))
    text = QLabel(intro, page)
    text.setWordWrap(True)
    text.setObjectName("settingsIntro")
    layout.addWidget(text)
    layout.addSpacing(8)
    return layout


def heading(text: str, parent: QWidget) -> QLabel:
    """A page title."""
    label = QLabel(text, parent)
    label.setObjectName("settingsHeading")
    return label


def result_label(parent: QWidget, name: str) -> QLabel:
    """A label for one sentence of feedback (a test result, a refusal)."""
    label = QLabel("", parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(label.textInteractionFlags())
    return label
