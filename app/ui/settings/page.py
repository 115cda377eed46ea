"""What every settings page is: a widget with a title that fills itself from the services
it is handed.

Each page takes the services it calls (the preferences, the settings store, the tools, the
MCP servers, the network ledger or the backups) and applies a change as soon as the user makes
it, so the dialog has no OK/Cancel to forget; a change that fails says why on the page and
keeps the old value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from app.ui.settings.services import SettingsServices

__all__ = ["PageId", "PageSpec", "SettingsPage"]


class PageId(Enum):
    """Each settings page; the value is the page's object name (what tests find it by)."""

    MODELS = "modelsSettingsPage"
    KEYS = "keysSettingsPage"
    TOOLS = "toolsSettingsPage"
    KNOWLEDGE = "knowledgeSettingsPage"
    MCP = "mcpSettingsPage"
    MEMORY = "memoryPage"
    SCHEDULES = "schedulesPage"
    SERVER = "serverPage"
    RULES = "rulesSettingsPage"
    AUDIT = "auditSettingsPage"
    LIMITS = "limitsSettingsPage"
    APPEARANCE = "appearanceSettingsPage"
    VOICE = "voiceSettingsPage"
    NETWORK = "networkSettingsPage"
    DATA = "dataSettingsPage"


class SettingsPage(QWidget):
    """One page of the settings dialog.

    Subclasses set :attr:`TITLE` (the page's name in the dialog's list) and
    :attr:`OBJECT_NAME`, and fill themselves in :meth:`load`, which the dialog awaits each time
    the page is shown.
    """

    TITLE: ClassVar[str] = ""
    OBJECT_NAME: ClassVar[str] = ""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if self.OBJECT_NAME:
            self.setObjectName(self.OBJECT_NAME)

    async def load(self) -> None:
        """Fill the page from its services (off the loop where it reads files)."""


@dataclass(frozen=True)
class PageSpec:
    """One page of the settings dialog as a record: its ``id``, the ``title`` the dialog's
    list shows, and the ``factory`` that makes it from the services (and its parent)."""

    id: PageId
    title: str
    factory: Callable[[SettingsServices, QWidget], SettingsPage]
