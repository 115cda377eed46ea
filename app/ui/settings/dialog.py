"""``settingsDialog``: a list of pages on the left, the chosen page on the right.

Each page is its own module under :mod:`app.ui.settings`; :data:`PAGES` lists them in order as
:class:`~app.ui.settings.page.PageSpec` records, each making its page with the services it
calls out of :class:`SettingsServices`, so a new page is a :class:`PageId` member and one
record there. A page is opened by its :class:`PageId`. Changes apply at once; the dialog only
has Close.
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
from app.ui.settings.memory_page import MemoryPage
from app.ui.settings.models_page import ModelsPage
from app.ui.settings.network_page import NetworkPage
from app.ui.settings.page import PageId, PageSpec, SettingsPage
from app.ui.settings.rules_page import RulesPage
from app.ui.settings.schedules_page import SchedulesPage
from app.ui.settings.server_page import ServerPage
from app.ui.settings.services import SettingsServices
from app.ui.settings.tools_page import ToolsPage
from app.ui.settings.voice_page import VoicePage
from app.ui.tasks import spawn

__all__ = ["PAGES", "PageId", "PageSpec", "SettingsDialog", "SettingsServices"]


PAGES: tuple[PageSpec, ...] = (
    PageSpec(PageId.MODELS, ModelsPage.TITLE, lambda s, p: ModelsPage(s.preferences, p)),
    PageSpec(PageId.KEYS, KeysPage.TITLE, lambda s, p: KeysPage(s.preferences, p)),
    PageSpec(PageId.TOOLS, ToolsPage.TITLE, lambda s, p: ToolsPage(s.settings, s.tools, p)),
    PageSpec(
        PageId.KNOWLEDGE,
        KnowledgePage.TITLE,
        lambda s, p: KnowledgePage(s.knowledge, s.events.subscribe, p, agent_name=s.agent_name),
    ),
    PageSpec(PageId.MCP, McpPage.TITLE, lambda s, p: McpPage(s.mcp, s.events, p)),
    PageSpec(
        PageId.MEMORY,
        MemoryPage.TITLE,
        lambda s, p: MemoryPage(s.memory, s.agents, s.threads, s.settings, p),
    ),
    PageSpec(
        PageId.SCHEDULES,
        SchedulesPage.TITLE,
        lambda s, p: SchedulesPage(
            s.schedules, s.agents, p, scheduling=s.window_schedules, preferences=s.preferences
        ),
    ),
    PageSpec(PageId.SERVER, ServerPage.TITLE, lambda s, p: ServerPage(s.server, p)),
    PageSpec(PageId.RULES, RulesPage.TITLE, lambda s, p: RulesPage(s.preferences, p)),
    PageSpec(PageId.AUDIT, AuditPage.TITLE, lambda s, p: AuditPage(s.preferences, p)),
    PageSpec(PageId.LIMITS, LimitsPage.TITLE, lambda s, p: LimitsPage(s.preferences, p)),
    PageSpec(
        PageId.APPEARANCE, AppearancePage.TITLE, lambda s, p: AppearancePage(s.preferences, p)
    ),
    PageSpec(PageId.VOICE, VoicePage.TITLE, lambda s, p: VoicePage(s.preferences, s.voice, p)),
    PageSpec(
        PageId.NETWORK, NetworkPage.TITLE, lambda s, p: NetworkPage(s.network, s.preferences, p)
    ),
    PageSpec(PageId.DATA, DataPage.TITLE, lambda s, p: DataPage(s.backups, p)),
)
"""The dialog's pages, in the order its list shows them."""


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
        self.pages: list[SettingsPage] = []
        self._ids: list[PageId] = []
        for spec in PAGES:
            page = spec.factory(services, self.stack)
            page.setObjectName(spec.id.value)
            self.pages.append(page)
            self._ids.append(spec.id)
            self.stack.addWidget(page)
            self.list.addItem(spec.title)
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
        self.resize(980, 580)

    def page(self, page_id: PageId) -> SettingsPage:
        """The page ``page_id``."""
        return self.pages[self._ids.index(page_id)]

    async def show_page(self, page_id: PageId) -> SettingsPage:
        """Switch to the page ``page_id`` and wait until it is filled."""
        page = self.page(page_id)
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

    def open_at(self, page_id: PageId | None = None) -> None:
        """Show the dialog (without blocking) at a page (the current one by default)."""
        if page_id is not None:
            spawn(self.show_page(page_id))
        elif self.list.currentRow() < 0:
            self.list.setCurrentRow(0)
        else:
            spawn(self.pages[self.list.currentRow()].load())
        self.open()
