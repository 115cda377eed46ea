"""The composer's "From MCP…" button: a menu of the resources and prompts the running MCP
servers offer, a section per server. Choosing one reads it (a prompt with arguments first
asks for them in a small form) and adds a chip to the attachment tray, sent with the next
message like a file. A server that offers nothing, or a
read that fails, is said in one sentence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QPushButton, QWidget

from app.core.errors import ParleyError
from app.services.mcp.offers import Offer, fetch_offer, offers
from app.ui.attachments.prompt_form import PromptForm
from app.ui.dialogs import ask
from app.ui.icons import icon_button
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.services.mcp.service import McpService
    from app.ui.attachments.tray import AttachmentTray

__all__ = ["McpOffersButton"]


def _short(text: str, width: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


class McpOffersButton(QPushButton):
    """The button (object name ``mcpOffersButton``) and its menu (``mcpOffersMenu``)."""

    problem = Signal(str)
    """A sentence to show the user: a server offered nothing usable, or a read failed."""

    def __init__(
        self, tools: McpService, tray: AttachmentTray, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mcpOffersButton")
        icon_button(
            self,
            "plug-line",
            "Add from MCP server",
            "Attach a resource or prompt an MCP server offers",
        )
        self.tools = tools
        self.tray = tray
        self.menu_ = QMenu(self)
        self.menu_.setObjectName("mcpOffersMenu")
        self.menu_.setAccessibleName("Add from MCP server")
        self.menu_.setToolTipsVisible(True)
        self.form: PromptForm | None = None
        """The open form for a prompt's arguments, if any."""
        self.clicked.connect(lambda: spawn(self.open_menu()))

    async def open_menu(self) -> None:
        """List what the servers offer, then show the menu above the button."""
        await self.fill()
        height = self.menu_.sizeHint().height()
        self.menu_.popup(self.mapToGlobal(QPoint(0, -height - 4)))

    async def fill(self) -> None:
        """Fill the menu: a section per running server, an entry per resource and prompt."""
        found = await offers(self.tools)
        menu = self.menu_
        menu.clear()
        if not found:
            menu.addAction("No MCP server is running.").setEnabled(False)
        for server in found:
            menu.addSection(f"MCP: {server.server}")
            if server.problem is not None:
                note = menu.addAction(_short(server.problem))
                note.setToolTip(server.problem)
                note.setEnabled(False)
            elif not server.offers:
                menu.addAction("Offers no resources or prompts.").setEnabled(False)
            for offer in server.offers:
                menu.addAction(self._action(offer))

    def _action(self, offer: Offer) -> QAction:
        about = f" — {_short(offer.description)}" if offer.description else ""
        kind = "Resource" if offer.kind == "resource" else "Prompt"
        asks = "…" if offer.needs_arguments else ""  # it opens a form first
        action = QAction(f"{kind}: {offer.name}{asks}{about}", self.menu_)
        action.setObjectName(f"offer:{offer.server}:{offer.kind}:{offer.name}")
        action.setToolTip(offer.description or offer.key)
        action.triggered.connect(lambda: spawn(self.attach(offer)))
        return action

    def offer_actions(self) -> dict[str, QAction]:
        """The menu's entries by ``server:kind:name`` (after :meth:`fill`)."""
        return {
            a.objectName().removeprefix("offer:"): a
            for a in self.menu_.actions()
            if a.objectName().startswith("offer:")
        }

    async def attach(self, offer: Offer) -> None:
        """Read ``offer`` (asking for a prompt's arguments first) and add it as a chip."""
        arguments: dict[str, str] = {}
        if offer.needs_arguments:
            form = PromptForm(offer, self.window())
            self.form = form
            try:
                if await ask(form) != PromptForm.DialogCode.Accepted:
                    return
                arguments = form.values()
            finally:
                self.form = None
                form.deleteLater()
        try:
            blocks = await fetch_offer(self.tools, offer, arguments)
        except ParleyError as exc:
            text = str(exc)
            self.problem.emit(text[:1].upper() + text[1:] + ".")
            return
        name = offer.name
        if arguments:
            name = _short(f"{name} ({', '.join(arguments.values())})", 40)
        self.tray.add_blocks(name, blocks)
