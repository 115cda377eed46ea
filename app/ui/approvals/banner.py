"""``RunBanner``: a calm strip above the composer about the open thread's run: it waits for
a decision (with Review…), or it was cut off (with Resume and Discard)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

__all__ = ["RunBanner"]


class RunBanner(QFrame):
    """Text and up to two actions; object name ``runBanner``, its buttons ``bannerPrimary``
    and ``bannerSecondary`` (named per use, e.g. ``resumeRunButton``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runBanner")
        self.setStyleSheet(
            "#runBanner { background: palette(alternate-base); border-top: 1px solid palette(mid);"
            " border-bottom: 1px solid palette(mid); }"
        )
        self.label = QLabel("", self)
        self.label.setObjectName("runBannerText")
        self.label.setWordWrap(True)
        self.primary = QPushButton("", self)
        self.secondary = QPushButton("", self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 8)
        layout.setSpacing(8)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.primary)
        layout.addWidget(self.secondary)
        self.kind = ""
        self._actions: list[Callable[[], Any]] = []
        self.primary.clicked.connect(lambda: self._act(0))
        self.secondary.clicked.connect(lambda: self._act(1))
        self.hide()

    def show_run(
        self, kind: str, text: str, actions: list[tuple[str, str, Callable[[], Any]]]
    ) -> None:
        """Show ``text`` with ``actions`` as (object name, label, callback), at most two."""
        self.kind = kind
        self.label.setText(text)
        self.setAccessibleName(text)
        self._actions = [callback for _name, _label, callback in actions]
        for button, action in zip(
            (self.primary, self.secondary), [*actions, None, None], strict=False
        ):
            if action is None:
                button.hide()
                continue
            button.setObjectName(action[0])
            button.setText(action[1])
            button.setAccessibleName(action[1])
            button.show()
        self.show()

    def clear(self, kind: str | None = None) -> None:
        """Hide the banner (only when it shows ``kind``, if given)."""
        if kind is None or self.kind == kind:
            self.kind = ""
            self.hide()

    def _act(self, index: int) -> None:
        if index < len(self._actions):
            self._actions[index]()
