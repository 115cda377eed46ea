"""``settingsDialog``: a list of pages on the left, the chosen page on the right.

Each page is its own module under :mod:`app.ui.settings`; :data:`PAGES` lists them in order, so
a new page is one import and one line here. Changes apply at once; the dialog only has Close.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.services.workspace import Workspace
from app.ui.settings.appearance_page import AppearancePage
from app.ui.settings.audit_page import AuditPage
from app.ui.settings.data_page import DataPage
from app.ui.settings.keys_page import KeysPage
from app.ui.settings.knowledge_page import KnowledgePage
from app.ui.settings.limits_page import LimitsPage
from app.ui.settings.mcp_page import McpPage
from app.ui.settings.models_page import ModelsPage
from app.ui.settings.network_page import NetworkPage
from app.ui.settings.page import SettingsPage
from app.ui.settings.rules_page import RulesPage
from app.ui.settings.tools_page import ToolsPage
from app.ui.tasks import spawn

__all__ = ["PAGES", "SettingsDialog"]

PAGES: list[type[SettingsPage]] = [
    ModelsPage,
    KeysPage,
    ToolsPage,
    McpPage,
    RulesPage,
    AuditPage,
    LimitsPage,
    AppearancePage,
    NetworkPage,
    DataPage,
]
"""The dialog's pages, in the order the list shows them."""


class SettingsDialog(QDialog):
    """The settings window (object name ``settingsDialog``); open it with ``open()``."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self.workspace = workspace
        self.list = QListWidget(self)
        self.list.setObjectName("settingsPageList")
        self.list.setAccessibleName("Settings pages")
        self.list.setFixedWidth(190)
        self.stack = QStackedWidget(self)
        self.pages: list[SettingsPage] = []
        for page_class in PAGES:
            page = page_class(workspace, self.stack)
            self.pages.append(page)
            self.stack.addWidget(page)
            self.list.addItem(page_class.TITLE)
            if page_class is ToolsPage:  # Knowledge follows Tools; it gets its service only
                knowledge = KnowledgePage(workspace.knowledge, workspace.events.subscribe, self)
                self.pages.append(knowledge)
                self.stack.addWidget(knowledge)
                self.list.addItem(KnowledgePage.TITLE)
        self.list.currentRowChanged.connect(self._show)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        body = QHBoxLayout()
        body.setSpacing(16)
        body.addWidget(self.list)
        body.addWidget(self.stack, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.addLayout(body, 1)
        layout.addWidget(buttons)
        self.resize(860, 560)

    def page(self, object_name: str) -> SettingsPage:
        """The page named ``object_name``."""
        for page in self.pages:
            if page.objectName() == object_name:
                return page
        raise KeyError(object_name)

    async def show_page(self, object_name: str) -> SettingsPage:
        """Switch to the page named ``object_name`` and wait until it is filled."""
        page = self.page(object_name)
        self.list.blockSignals(True)
        self.list.setCurrentRow(self.pages.index(page))
        self.list.blockSignals(False)
        self.stack.setCurrentWidget(page)
        await page.load()
        return page

    def _show(self, row: int) -> None:
        if 0 <= row < len(self.pages):
            self.stack.setCurrentIndex(row)
            spawn(self.pages[row].load())

    def open_at(self, object_name: str | None = None) -> None:
        """Show the dialog (without blocking) at a page (the current one by default)."""
        if object_name is not None:
            spawn(self.show_page(object_name))
        elif self.list.currentRow() < 0:
            self.list.setCurrentRow(0)
        else:
            spawn(self.pages[self.list.currentRow()].load())
        self.open()
