"""A tool that uses a secret, approved in the window: the secret's value never reaches the
database (file and WAL), the logs, an export, any widget's text or accessible text, nor
anything the model is sent."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QWidget,
)

from app.core.tools import tool
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.services.logs import setup_logging, stop_logging
from app.store.paths import database_path
from app.ui.app import close_window
from app.ui.window import MainWindow
from tests.services.memory_keyring import MemoryKeyring
from tests.ui.approval_harness import Recorder, approval_dialog, open_tool_window, send
from tests.ui.harness import app, find, wait_until

MARKER = "sk-MARKER-7f3a9c2e51"
sent: list[str] = []


@tool(permissions=("net:send",), secret_refs={"token": "crm-token"}, requires_approval=True)
def post_ticket(ticket: str, token: str) -> str:
    """Post a ticket update to the CRM.

    Args:
        ticket: The ticket's id.
    """
    sent.append(f"{ticket}:{hashlib.sha256(token.encode()).hexdigest()}")
    logging.getLogger("app.test").info("posting %s with %s", ticket, token)
    return f"posted {ticket} using token {token}"


def widget_texts(window: QWidget) -> list[str]:
    """Every text a person or an accessibility tool can read in the window and its dialogs."""
    texts: list[str] = []
    widgets = [window, *window.findChildren(QWidget), *app().topLevelWidgets()]
    for widget in widgets:
        texts += [widget.accessibleName(), widget.accessibleDescription(), widget.toolTip()]
        texts.append(widget.windowTitle())
        if isinstance(widget, QLabel | QLineEdit | QAbstractButton):
            texts.append(widget.text())
        if isinstance(widget, QPlainTextEdit | QTextEdit):
            texts.append(widget.toPlainText())
        if isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
    chat = window.chat_vm.model  # type: ignore[attr-defined]
    texts += [json.dumps(m.model_dump(mode="json")) for m in chat.messages()]
    return texts


def assert_no_marker(window: MainWindow, where: str) -> None:
    leaks = [t for t in widget_texts(window) if MARKER in t]
    assert not leaks, f"the secret shows {where}: {leaks[:3]}"


async def test_a_secret_used_by_an_approved_tool_leaks_nowhere(tmp_path: Path) -> None:
    keyring = MemoryKeyring()
    resolver = KeyringSecretResolver(backend=keyring)
    resolver.set("crm-token", MARKER)
    data, logs = tmp_path / "data", tmp_path / "logs"
    log_file = setup_logging(logs, level=logging.DEBUG)
    call = {"name": "post_ticket", "args": {"ticket": "T-42"}, "id": "c1"}
    model = Recorder([{"tool_calls": [call]}, {"text": "Posted T-42."}])
    window = await open_tool_window(data, model, [post_ticket], secret_resolver=resolver)
    try:
        await send(window, "Post the T-42 update")
        dialog = await approval_dialog(window)
        assert_no_marker(window, "while the dialog is open")
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: len(model.inputs) == 2, what="the reply after the call")
        await wait_until(lambda: not window.workspace.runs.is_running(window.chat_vm.thread_id))
        expected = hashlib.sha256(MARKER.encode()).hexdigest()
        assert sent == [f"T-42:{expected}"]  # the tool did get the real secret
        assert_no_marker(window, "after the call")
        thread_id = window.chat_vm.thread_id
        exports = [
            await window.write_export(thread_id, "markdown", tmp_path / "t.md"),
            await window.write_export(thread_id, "json", tmp_path / "t.json"),
        ]
        to_model = json.dumps([[m.model_dump(mode="json") for m in i] for i in model.inputs])
        assert MARKER not in to_model
        assert "posted T-42 using token" in to_model  # the result arrived, redacted
        wal = Path(f"{database_path(data)}-wal")
        assert wal.exists() and wal.stat().st_size > 0  # checked while the store is open
        for path in (database_path(data), wal):
            assert MARKER.encode() not in path.read_bytes(), f"the secret is in {path}"
    finally:
        await close_window(window)
        stop_logging()
        sent.clear()
    files = [database_path(data), *data.glob("*-wal"), log_file, *exports]
    assert "posting T-42 with" in log_file.read_text()  # the tool's own log line, redacted
    for path in files:
        assert path is not None and path.exists()
        assert MARKER.encode() not in path.read_bytes(), f"the secret is in {path}"
