"""The form for an MCP prompt's arguments: one field per argument, in the server's order,
labelled with its name and described by the server's own words. Add stays disabled until
every required field has a value; Esc or Cancel adds nothing."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.services.mcp.offers import Offer

__all__ = ["PromptForm"]


class PromptForm(QDialog):
    """The dialog (object name ``promptArgumentsDialog``); fields are ``promptArgument:NAME``."""

    def __init__(self, offer: Offer, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("promptArgumentsDialog")
        self.setWindowTitle(f"Prompt {offer.name}")
        self.offer = offer
        head = QLabel(f"<b>{_escape(offer.name)}</b> from the MCP server {_escape(offer.server)}")
        head.setObjectName("promptArgumentsTitle")
        about = QLabel(offer.description or "Fill in the prompt's arguments.")
        about.setObjectName("promptArgumentsAbout")
        about.setWordWrap(True)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.fields: dict[str, QLineEdit] = {}
        for arg in offer.arguments:
            edit = QLineEdit(self)
            edit.setObjectName(f"promptArgument:{arg.name}")
            edit.setPlaceholderText("required" if arg.required else "optional")
            edit.setAccessibleName(arg.name)
            if arg.description:
                edit.setToolTip(arg.description)
                edit.setAccessibleDescription(arg.description)
            edit.textChanged.connect(self._check)
            label = QLabel(f"{arg.name}{' *' if arg.required else ''}:", self)
            label.setBuddy(edit)
            form.addRow(label, edit)
            if arg.description:
                note = _quiet(QLabel(arg.description, self))
                note.setWordWrap(True)
                note.setMinimumWidth(300)  # a wrapped label in a form shrinks to a sliver
                form.addRow("", note)
            self.fields[arg.name] = edit
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.add_button: QPushButton = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.add_button.setText("Add to message")
        self.add_button.setObjectName("promptArgumentsAdd")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(head)
        layout.addWidget(about)
        layout.addLayout(form)
        if any(a.required for a in offer.arguments):
            layout.addWidget(_quiet(QLabel("* required", self)))
        layout.addWidget(self.buttons)
        self.setMinimumWidth(420)
        self._check()

    def values(self) -> dict[str, str]:
        """The arguments as typed, blank ones left out."""
        return {name: edit.text() for name, edit in self.fields.items() if edit.text().strip()}

    def _check(self) -> None:
        given = self.values()
        ready = all(a.name in given for a in self.offer.arguments if a.required)
        self.add_button.setEnabled(ready)


def _quiet(label: QLabel) -> QLabel:
    """``label`` in the palette's quieter text colour (placeholder text), light or dark."""
    palette = label.palette()
    palette.setColor(
        QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.PlaceholderText)
    )
    label.setPalette(palette)
    return label


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
