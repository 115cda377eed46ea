"""The dialog that adds or edits one MCP server: a command to run (name, command, arguments,
environment) or a streamable-HTTP address (URL and headers), with secrets kept in the keyring
(the environment or header holds ``{keyring:REF}``), and a button that tries the server."""

from __future__ import annotations

import shlex

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError, UserError
from app.services.mcp.actions import form_config, parse_headers, probe_server, save_http_server
from app.services.mcp.service import McpService
from app.services.workspace_tools import ServerInfo
from app.ui.dialogs import ask, text_dialog
from app.ui.settings._labels import error_label, hint
from app.ui.tasks import spawn

__all__ = ["ServerDialog", "parse_args", "parse_env", "tested"]

TEST_TIMEOUT = 20.0
"""Seconds a tried server has to start and list its tools."""


def tested(names: list[str]) -> str:
    """The sentence a working test shows."""
    if not names:
        return "Connected. The server offers no tools."
    shown = ", ".join(names[:6]) + (", …" if len(names) > 6 else "")
    return f"Connected: {len(names)} tool{'s' if len(names) != 1 else ''} ({shown})."


def align_labels(*forms: QFormLayout) -> None:
    """Give the label columns of ``forms`` one width, so stacked forms line up as one."""
    labels: list[QWidget] = []
    for form in forms:
        for row in range(form.rowCount()):
            item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            label = item.widget() if item is not None else None
            if label is not None:
                labels.append(label)
    width = max((label.sizeHint().width() for label in labels), default=0)
    for label in labels:
        label.setMinimumWidth(width)


def _put_line(edit: QPlainTextEdit, sep: str, key: str, line: str, *, fold: bool = False) -> None:
    """Replace the ``key SEP value`` line of ``edit`` (or add one) with ``line``; ``fold``
    compares keys without case, as header names are."""

    def norm(text: str) -> str:
        return text.strip().lower() if fold else text.strip()

    lines = edit.toPlainText().splitlines()
    kept = [old for old in lines if norm(old.partition(sep)[0]) != norm(key)]
    edit.setPlainText("\n".join([*kept, line]).strip())


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
    """Add a server (``server`` is None) or edit one; saves through ``mcp`` on OK."""

    def __init__(
        self, mcp: McpService, server: ServerInfo | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.mcp = mcp
        self.server = server
        self.setObjectName("mcpServerDialog")
        self.setWindowTitle("Edit MCP server" if server else "Add MCP server")
        self._build_fields(server)
        self._build_http_fields(server)
        self._build_test()
        self._lay_out(server)

    def _build_fields(self, server: ServerInfo | None) -> None:
        self.name = QLineEdit(server.name if server else "", self)
        self.name.setObjectName("mcpServerName")
        self.name.setAccessibleName("Server name")
        self.name.setPlaceholderText("time")
        self.command = QLineEdit(server.command if server and not server.url else "", self)
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

    def _build_http_fields(self, server: ServerInfo | None) -> None:
        self.kind = QComboBox(self)
        self.kind.setObjectName("mcpServerKind")
        self.kind.setAccessibleName("How Parley reaches the server")
        self.kind.addItems(["Runs a command (stdio)", "At an address (streamable HTTP)"])
        self.url = QLineEdit((server.url or "") if server else "", self)
        self.url.setObjectName("mcpServerUrl")
        self.url.setAccessibleName("Address")
        self.url.setPlaceholderText("https://example.com/mcp")
        self.headers = QPlainTextEdit(
            "\n".join(f"{k}: {v}" for k, v in server.headers.items()) if server else "", self
        )
        self.headers.setObjectName("mcpServerHeaders")
        self.headers.setAccessibleName("Headers, one Name: value per line")
        self.headers.setPlaceholderText("Name: value, one per line")
        self.headers.setTabChangesFocus(True)
        self.headers.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.header_secret_button = QPushButton("Add a secret header…", self)
        self.header_secret_button.setObjectName("mcpAddHeaderSecret")
        self.header_secret_button.setAccessibleName("Add a header whose value is secret")
        self.header_secret_button.clicked.connect(lambda: spawn(self.add_header_secret()))

    def _build_test(self) -> None:
        self.test_button = QPushButton("Test connection", self)
        self.test_button.setObjectName("mcpDialogTest")
        self.test_button.setAccessibleName("Start the server and list its tools")
        self.test_button.clicked.connect(lambda: spawn(self.test()))
        self.test_result = hint("", self)
        self.test_result.setObjectName("mcpDialogTestResult")

    def _stdio_page(self) -> tuple[QWidget, QFormLayout]:
        stdio = QWidget(self)
        form = QFormLayout(stdio)
        form.setContentsMargins(0, 0, 0, 0)
        form.setSpacing(8)
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
        return stdio, form

    def _http_page(self) -> tuple[QWidget, QFormLayout]:
        http = QWidget(self)
        web = QFormLayout(http)
        web.setContentsMargins(0, 0, 0, 0)
        web.setSpacing(8)
        web.addRow("&Address:", self.url)
        header_box = QVBoxLayout()
        header_box.setSpacing(4)
        header_box.addWidget(self.headers)
        row = QHBoxLayout()
        row.addWidget(hint("A token goes to the keyring; here it shows as {keyring:…}.", self), 1)
        row.addWidget(self.header_secret_button)
        header_box.addLayout(row)
        web.addRow("Headers:", header_box)
        return http, web

    def _lay_out(self, server: ServerInfo | None) -> None:
        top = QFormLayout()
        top.setSpacing(8)
        top.addRow("&Name:", self.name)
        top.addRow("&Kind:", self.kind)
        stdio, form = self._stdio_page()
        http, web = self._http_page()
        self.pages = QStackedWidget(self)
        self.pages.addWidget(stdio)
        self.pages.addWidget(http)
        self.stdio_page, self.http_page = stdio, http
        self.kind.currentIndexChanged.connect(self._show_page)
        self.kind.setCurrentIndex(1 if server is not None and server.url else 0)
        self._show_page(self.kind.currentIndex())
        align_labels(top, form, web)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_result, 1)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(lambda: spawn(self.save()))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(self.pages)
        layout.addLayout(test_row)
        layout.addWidget(self.error)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.resize(580, 360)

    def _show_page(self, index: int) -> None:
        """Show the fields of the chosen kind; the hidden page takes no room."""
        for i, page in enumerate((self.stdio_page, self.http_page)):
            policy = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
            page.setSizePolicy(policy, policy)
        self.pages.setCurrentIndex(index)
        self.pages.adjustSize()

    def _say(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    async def _ask_secret(
        self, kind: str, name_prompt: str, value_note: str
    ) -> tuple[str, str] | None:
        """Ask for a name, then its secret value (hidden as typed); None if either is cancelled."""
        name_dialog, name = text_dialog(self, f"Secret {kind}", name_prompt)
        if not await ask(name_dialog) or not name.text().strip():
            return None
        value_dialog, value = text_dialog(
            self,
            "Secret value",
            f"Paste the value of {name.text().strip()}{value_note}. It is kept in your system "
            "keyring, never in Parley's files.",
            secret=True,
        )
        if not await ask(value_dialog):
            return None
        return name.text(), value.text()

    async def add_secret(self) -> None:
        """Ask for a variable name and its secret value; keep the value in the keyring."""
        asked = await self._ask_secret(
            "variable", "The environment variable's name (e.g. GITHUB_TOKEN):", ""
        )
        if asked is not None:
            await self.keep_secret(*asked)

    async def keep_secret(self, variable: str, value: str) -> None:
        """Keep ``value`` in the keyring and put ``variable={keyring:REF}`` in the environment."""
        server = self.name.text().strip() or "server"
        try:
            reference = await self.mcp.store_secret(server, variable, value)
        except ParleyError as exc:
            self._say(f"The secret was not kept: {exc}")
            return
        _put_line(self.env, "=", variable.strip(), f"{variable.strip()}={reference}")
        self._say("")

    def is_http(self) -> bool:
        """Whether the form describes a streamable-HTTP server."""
        return self.kind.currentIndex() == 1

    async def add_header_secret(self) -> None:
        """Ask for a header's name and its secret value; keep the value in the keyring."""
        asked = await self._ask_secret(
            "header",
            "The header's name (e.g. Authorization or X-Api-Key):",
            " (a bearer token may be pasted alone)",
        )
        if asked is not None:
            await self.keep_header_secret(*asked)

    async def keep_header_secret(self, header: str, value: str) -> None:
        """Keep ``value`` in the keyring and put ``header: {keyring:REF}`` in the headers
        (``Authorization`` gets ``Bearer`` in front when the value has no scheme)."""
        header = header.strip()
        server = self.name.text().strip() or "server"
        scheme = ""
        if header.lower() == "authorization":
            first, _, rest = value.strip().partition(" ")
            scheme, value = ("Bearer ", value.strip()) if not rest else (first + " ", rest)
        try:
            reference = await self.mcp.store_secret(server, header.replace("-", "_"), value)
        except ParleyError as exc:
            self._say(f"The secret was not kept: {exc}")
            return
        _put_line(self.headers, ":", header, f"{header}: {scheme}{reference}", fold=True)
        self._say("")

    async def probe(self) -> list[str]:
        """Start the server the form describes (not saved) and return its tools' names."""
        if self.is_http():
            server = form_config(
                self.name.text(),
                url=self.url.text(),
                headers=parse_headers(self.headers.toPlainText()),
            )
        else:
            server = form_config(
                self.name.text(),
                command=self.command.text(),
                args=parse_args(self.args.text()),
                env=parse_env(self.env.toPlainText()),
            )
        return await probe_server(self.mcp, server, limit=TEST_TIMEOUT)

    async def test(self) -> None:
        """Start the server the form describes, list its tools and say how it went."""
        self.test_button.setEnabled(False)
        self.test_result.setText("Starting the server…")
        try:
            names = await self.probe()
        except (OSError, ParleyError) as exc:
            self.test_result.setText("")
            self._say(str(exc)[:1].upper() + str(exc)[1:])
        else:
            self._say("")
            self.test_result.setText(tested(names))
        finally:
            self.test_button.setEnabled(True)

    async def save(self) -> bool:
        """Check and save the server; the dialog closes only when it was saved."""
        replace = self.server.name if self.server else None
        try:
            if self.is_http():
                await save_http_server(
                    self.mcp,
                    self.name.text().strip(),
                    self.url.text(),
                    parse_headers(self.headers.toPlainText()),
                    replace=replace,
                )
            else:
                args = parse_args(self.args.text())
                env = parse_env(self.env.toPlainText())
                await self.mcp.save_server(
                    self.name.text().strip(), self.command.text(), args, env, replace=replace
                )
        except (OSError, ParleyError) as exc:
            self._say(str(exc)[:1].upper() + str(exc)[1:])
            return False
        self.accept()
        return True
