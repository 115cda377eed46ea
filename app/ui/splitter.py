"""``MainSplitter``: the sidebar beside the chat column. Ctrl+B folds the sidebar away and
brings it back at the width it had; the window's size and the split are kept in
``window.ini`` in the data folder between runs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QSplitter, QWidget

__all__ = ["MainSplitter", "WindowLayout"]


class MainSplitter(QSplitter):
    """The splitter (object name ``mainSplitter``) of ``sidebar`` and ``column``."""

    def __init__(self, sidebar: QWidget, column: QWidget, parent: QWidget) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("mainSplitter")
        self.addWidget(sidebar)
        self.addWidget(column)
        self.setStretchFactor(1, 1)
        self.setSizes([260, 900])
        self.setChildrenCollapsible(True)
        self._sidebar_width = 260

    def sidebar_hidden(self) -> bool:
        """Whether the sidebar is folded away."""
        return self.sizes()[0] == 0

    def toggle_sidebar(self) -> None:
        """Fold the sidebar away, or bring it back at its width."""
        sizes = self.sizes()
        if sizes[0] > 0:
            self._sidebar_width = sizes[0]
            self.setSizes([0, sum(sizes)])
        else:
            width = self._sidebar_width
            self.setSizes([width, max(200, sum(sizes) - width)])


class WindowLayout:
    """The window's geometry and split, read from and written to the INI file ``path``."""

    def __init__(self, path: Path) -> None:
        self._settings = QSettings(str(path), QSettings.Format.IniFormat)

    def restore(self, window: QWidget, splitter: QSplitter) -> None:
        """Give ``window`` and ``splitter`` the geometry and split kept last time."""
        geometry = self._settings.value("geometry")
        if geometry is not None:
            window.restoreGeometry(geometry)
        split = self._settings.value("splitter")
        if split is not None:
            splitter.restoreState(split)

    def save(self, window: QWidget, splitter: QSplitter) -> None:
        """Keep ``window``'s geometry and ``splitter``'s split."""
        self._settings.setValue("geometry", window.saveGeometry())
        self._settings.setValue("splitter", splitter.saveState())
        self._settings.sync()
