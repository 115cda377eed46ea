"""What every settings page is: a widget with a title that fills itself from the workspace.

Pages apply a change as soon as the user makes it (through the workspace's services), so the
dialog has no OK/Cancel to forget; a change that fails says why on the page and keeps the old
value.
"""

from __future__ import annotations

from typing import ClassVar

from PySide6.QtWidgets import QWidget

from app.services.workspace import Workspace

__all__ = ["SettingsPage"]


class SettingsPage(QWidget):
    """One page of the settings dialog.

    Subclasses set :attr:`TITLE` (the page's name in the dialog's list) and
    :attr:`OBJECT_NAME`, and fill themselves in :meth:`load`, which the dialog awaits each time
    the page is shown.
    """

    TITLE: ClassVar[str] = ""
    OBJECT_NAME: ClassVar[str] = ""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        if self.OBJECT_NAME:
            self.setObjectName(self.OBJECT_NAME)

    async def load(self) -> None:
        """Fill the page from the workspace (off the loop where it reads files)."""
