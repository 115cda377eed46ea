"""The confirmation an import asks for when servers in the file claim more than their own:
every claim listed (a keyring secret not under ``mcp/NAME/``, tools that run without asking),
imported only on an explicit yes; closing or leaving it holds those servers back."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.settings._labels import hint

__all__ = ["ClaimsDialog", "claim_lines"]


def claim_lines(claims: dict[str, list[str]]) -> list[str]:
    """Each claim as the dialog lists it: ``SERVER: what it claims``."""
    return [f"{server}: {claim}" for server, said in claims.items() for claim in said]


class ClaimsDialog(QDialog):
    """Asks whether to import the servers that make ``claims`` (by server name) as well."""

    def __init__(self, claims: dict[str, list[str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpImportClaimsDialog")
        self.setWindowTitle("Import these servers as the file says?")
        names = ", ".join(claims)
        self.message = QLabel(
            f"In this file, {names} {'asks' if len(claims) == 1 else 'ask'} for more than a "
            "new server gets. Import only if you trust where the file came from: a server "
            "given another secret can send it anywhere.",
            self,
        )
        self.message.setObjectName("mcpImportClaimsMessage")
        self.message.setWordWrap(True)
        self.claims = QListWidget(self)
        self.claims.setObjectName("mcpImportClaims")
        self.claims.setAccessibleName("What the servers ask for")
        self.claims.setWordWrap(True)
        self.claims.addItems(claim_lines(claims))
        buttons = QDialogButtonBox(self)
        self.trust_button = QPushButton("Import them too", self)
        self.trust_button.setObjectName("trustClaimsButton")
        self.trust_button.setAutoDefault(False)
        self.hold_button = QPushButton("Leave them out", self)
        self.hold_button.setObjectName("holdClaimsButton")
        self.hold_button.setDefault(True)
        buttons.addButton(self.trust_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.hold_button, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.claims, 1)
        layout.addWidget(hint("The other servers in the file are imported either way.", self))
        layout.addWidget(buttons)
        self.resize(560, 320)
