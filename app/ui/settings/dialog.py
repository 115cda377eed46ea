"""``settingsDialog``: a list of pages on the left, the chosen page on the right.

Each page is its own module under :mod:`app.ui.settings`; :func:`make_pages` builds them in
order, each with the services it calls out of :class:`SettingsServices`, so a new page is one
import and one line there. Changes apply at once; the dialog only has Close.
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
from app.ui.settings.services import SettingsServices
from app.ui.settings.tools_page import ToolsPage
from app.ui.tasks import spawn

__all__ = ["SettingsDialog", "SettingsServices", "make_pages"]


def make_pages(services: SettingsServices, parent: QWidget) -> list[SettingsPage]:
    """The dialog's pages, in the order the list shows them, each given what it calls."""
    s = services
    return [
        ModelsPage(s.preferences, parent),
        KeysPage(s.preferences, parent),
        ToolsPage(s.settings, s.tools, parent),
        KnowledgePage(s.knowledge, s.events.subscribe, parent, agent_name=s.agent_name),
        McpPage(s.mcp, s.events, parent),
        RulesPage(s.preferences, parent),
        AuditPage(s.preferences, parent),
        LimitsPage(s.preferences, parent),
        AppearancePage(s.preferences, parent),
        NetworkPage(s.network, s.preferences, parent),
        DataPage(s.backups, parent),
    ]


class SettingsDialog(QDialog):
    """The settings window (object name ``settingsDialog``); open it with ``open()``."""

    def __init__(self, services: SettingsServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self.list = QListWidget(self)
        self.list.setObjectName("settingsPageList")
        self.list.setAccessibleName("Settings pages")
        self.list.setFixedWidth(190)
        self.stack = QStackedWidget(self)
        self.pages = make_pages(services, self.stack)
        for page in self.pages:
            self.stack.addWidget(page)
            self.list.addItem(page.TITLE)
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
