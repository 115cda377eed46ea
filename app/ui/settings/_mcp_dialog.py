"""The dialog that adds or edits one stdio MCP server: name, command, arguments and
environment, with secrets kept in the keyring (the environment holds ``{keyring:REF}``)."""

from __future__ import annotations

import shlex

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError, UserError
from app.services.workspace import Workspace
from app.services.workspace_tools import ServerInfo
from app.ui.dialogs import ask, text_dialog
from app.ui.settings._labels import error_label, hint
from app.ui.tasks import spawn

__all__ = ["ServerDialog", "parse_args", "parse_env"]


def parse_args(text: str) -> list[str]:
    """Arguments as a shell would split them (quotes keep spaces)."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise UserError(f"the arguments cannot be read: {exc} (check the quotes)") from None


def parse_env(text: str) -> dict[str, str]:
    """``NAME=value`` lines (blank lines and ``#`` comments skipped)."""
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.strip():
            raise UserError(f"environment line {number} should look like NAME=value")
        env[name.strip()] = value.strip()
    return env


class ServerDialog(QDialog):
    """Add a server (``server`` is None) or edit one; saves through the workspace on OK."""

    def __init__(
        self, workspace: Workspace, server: ServerInfo | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.server = server
        self.setObjectName("mcpServerDialog")
        self.setWindowTitle("Edit MCP server" if server else "Add MCP server")
        self.name = QLineEdit(server.name if server else "", self)
        self.name.setObjectName("mcpServerName")
        self.name.setAccessibleName("Server name")
        self.name.setPlaceholderText("time")
        self.command = QLineEdit(server.command if server else "", self)
        self.command.setObjectName("mcpServerCommand")
        self.command.setAccessibleName("Command")
        self.command.setPlaceholderText("uvx")
        self.args = QLineEdit(shlex.join(server.args) if server else "", self)
        self.args.setObjectName("mcpServerArgs")
        self.args.setAccessibleName("Arguments")
        self.args.setPlaceholderText("mcp-server-time --local-timezone Europe/Oslo")
        self.env = QPlainTextEdit(
            "\n".join(f"{k}={v}" for k, v in server.env.items()) if server else "", self
        )
        self.env.setObjectName("mcpServerEnv")
        self.env.setAccessibleName("Environment, one NAME=value per line")
        self.env.setPlaceholderText("NAME=value, one per line")
        self.env.setTabChangesFocus(True)
        self.env.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.secret_button = QPushButton("Add a secret…", self)
        self.secret_button.setObjectName("mcpAddSecret")
        self.secret_button.setAccessibleName("Add a secret environment variable")
        self.secret_button.clicked.connect(lambda: spawn(self.add_secret()))
        self.error = error_label(self)

        form = QFormLayout()
        form.setSpacing(8)
        form.addRow("&Name:", self.name)
        form.addRow("&Command:", self.command)
        form.addRow("&Arguments:", self.args)
        env_box = QVBoxLayout()
        env_box.setSpacing(4)
        env_box.addWidget(self.env)
        row = QHBoxLayout()
        row.addWidget(
            hint("Secrets go to the system keyring; here they show as {keyring:…}.", self), 1
        )
        row.addWidget(self.secret_button)
        env_box.addLayout(row)
        form.addRow("&Environment:", env_box)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(lambda: spawn(self.save()))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.resize(560, 320)

    def _say(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    async def add_secret(self) -> None:
        """Ask for a variable name and its secret value; keep the value in the keyring."""
        name_dialog, variable = text_dialog(
            self, "Secret variable", "The environment variable's name (e.g. GITHUB_TOKEN):"
        )
        if not await ask(name_dialog) or not variable.text().strip():
            return
        value_dialog, value = text_dialog(
            self,
            "Secret value",
            f"Paste the value of {variable.text().strip()}. It is kept in your system "
            "keyring, never in Parley's files.",
            secret=True,
        )
        if not await ask(value_dialog):
            return
        await self.keep_secret(variable.text(), value.text())

    async def keep_secret(self, variable: str, value: str) -> None:
        """Keep ``value`` in the keyring and put ``variable={keyring:REF}`` in the environment."""
        server = self.name.text().strip() or "server"
        try:
            reference = await self.workspace.tools.store_secret(server, variable, value)
        except ParleyError as exc:
            self._say(f"The secret was not kept: {exc}")
            return
        lines = [
            line
            for line in self.env.toPlainText().splitlines()
            if line.partition("=")[0].strip() != variable.strip()
        ]
        self.env.setPlainText("\n".join([*lines, f"{variable.strip()}={reference}"]).strip())
        self._say("")

    async def save(self) -> bool:
        """Check and save the server; the dialog closes only when it was saved."""
        try:
            args = parse_args(self.args.text())
            env = parse_env(self.env.toPlainText())
            await self.workspace.tools.save_server(
                self.name.text().strip(),
                self.command.text(),
                args,
                env,
                replace=self.server.name if self.server else None,
            )
        except (OSError, ParleyError) as exc:
            self._say(str(exc)[:1].upper() + str(exc)[1:])
            return False
        self.accept()
        return True
