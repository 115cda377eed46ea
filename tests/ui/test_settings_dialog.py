"""The settings dialog in the real window: Ctrl+, opens it without blocking; connections are
tested against a real server on 127.0.0.1; keys go to a keyring (or this session only, never a
file); a revoked rule makes the next call ask again; the audit log filters; the theme switches
live."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from keyring.backend import KeyringBackend
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QWidget,
)

from app.services.settings import AppSettings, load_settings
from app.services.workspace import Workspace
from app.ui.settings.dialog import SettingsDialog
from app.ui.settings.page import PageId
from app.ui.window import MainWindow
from tests.services.memory_keyring import MemoryKeyring, shout
from tests.services.models_server import models_server
from tests.ui.harness import Models, app, close_test_window, find, shortcut, type_text, wait_until

KEY = "sk-window-Settings-marker-51d0e2"
CALL = {"tool_calls": [{"name": "shout", "args": {"text": "hi"}}]}


async def open_window(data_dir: Path, script: list[Any] | None = None) -> MainWindow:
    workspace = await Workspace.open(
        data_dir,
        resolve_model=Models({"scripted:a": script or []}),
        secret_resolver=lambda _r: "unused",
        tools=[shout],
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    window = MainWindow(workspace)
    window.show()
    await window.start()
    return window


async def open_page(window: MainWindow, name: PageId) -> Any:
    shortcut(window, "Ctrl+,")
    dialog = find(window, SettingsDialog, "settingsDialog")
    await wait_until(dialog.isVisible, what="the settings dialog")
    return await dialog.show_page(name)


def click(widget: QWidget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)


def files_holding(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


async def test_ctrl_comma_opens_the_pages_without_blocking(tmp_path: Path) -> None:
    window = await open_window(tmp_path)
    try:
        shortcut(window, "Ctrl+,")
        dialog = find(window, SettingsDialog, "settingsDialog")
        await wait_until(dialog.isVisible, what="the settings dialog")
        pages = find(dialog, QListWidget, "settingsPageList")
        titles = [pages.item(i).text() for i in range(pages.count())]
        assert titles == [
            "Models & providers",
            "API keys",
            "Tools",
            "Knowledge",
            "MCP servers",
            "Memory",
            "Schedules",
            "Server",
            "Approval rules",
            "Audit log",
            "Limits",
            "Appearance",
            "Voice",
            "Network",
            "Data",
        ]
        url = find(dialog, QLineEdit, "ollamaUrl")
        await wait_until(lambda: url.text() == "http://127.0.0.1:11434", what="the page filled")
        pages.setCurrentRow(titles.index("Limits"))
        await wait_until(lambda: dialog.stack.currentWidget().objectName() == "limitsSettingsPage")
        dialog.close()
    finally:
        await close_test_window(window)


async def test_connection_ok_and_failing_say_so(tmp_path: Path) -> None:
    window = await open_window(tmp_path)
    try:
        page = await open_page(window, PageId.MODELS)
        edit = find(page, QLineEdit, "ollamaUrl")
        result = find(page, QLabel, "ollamaResult")
        with models_server() as url:
            edit.setText(url)
            await page.save_url("ollama")
            click(find(page, QPushButton, "ollamaTestButton"))
            await wait_until(lambda: result.text().startswith("Connected"), what="the result")
            assert result.text() == f"Connected to Ollama at {url}: 2 models available."
        assert load_settings(tmp_path).ollama_url == url
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            closed = f"http://127.0.0.1:{s.getsockname()[1]}"
        edit.setText(closed)
        assert not await page.test("ollama")
        assert result.text() == (
            f"Could not connect to {closed}: nothing answered there. Is Ollama running?"
        )
        edit.setText("not a url")
        await page.save_url("ollama")
        assert result.text().startswith("Not saved: 'not a url' is not a web address")
        assert load_settings(tmp_path).ollama_url == url  # the old value is kept
    finally:
        await close_test_window(window)


async def test_keys_in_the_keyring_masked_replaced_deleted(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    window = await open_window(tmp_path)
    try:
        page = await open_page(window, PageId.KEYS)
        assert find(page, QLabel, "keyringStatus").text() == "Keys are kept in the system keyring."
        edit = find(page, QLineEdit, "keyEdit_openai_api_key")
        assert edit.echoMode() == QLineEdit.EchoMode.Password
        type_text(edit, KEY)
        assert await page.save("openai/api-key")
        assert memory_keyring.items[("parley", "openai/api-key")] == KEY
        masked = find(page, QLabel, "keyValue_openai_api_key")
        assert masked.text() == "••••••••" + KEY[-4:]
        assert edit.text() == ""
        assert find(page, QLabel, "keysMessage").text() == "Key saved in the system keyring."
        type_text(edit, KEY + "X")
        assert await page.save("openai/api-key")
        assert memory_keyring.items[("parley", "openai/api-key")] == KEY + "X"
        click(find(page, QPushButton, "keyDelete_openai_api_key"))
        await wait_until(lambda: masked.text() == "not set", what="the key to go")
        assert ("parley", "openai/api-key") not in memory_keyring.items
    finally:
        await close_test_window(window)
    assert files_holding(tmp_path, KEY) == []


async def test_without_a_keyring_keys_are_for_this_session_and_never_in_a_file(
    tmp_path: Path, no_keyring: KeyringBackend
) -> None:
    window = await open_window(tmp_path)
    try:
        page = await open_page(window, PageId.KEYS)
        status = find(page, QLabel, "keyringStatus").text()
        assert status.startswith("Keys are kept for this session only: no system keyring")
        type_text(find(page, QLineEdit, "keyEdit_anthropic_api_key"), KEY)
        assert await page.save("anthropic/api-key")
        assert find(page, QLabel, "keysMessage").text() == (
            "Key kept for this session only: no system keyring is available."
        )
        assert find(page, QLabel, "keyValue_anthropic_api_key").text().endswith(KEY[-4:])
        texts = [w.accessibleName() + w.accessibleDescription() for w in page.findChildren(QWidget)]
        assert not any(KEY in t for t in texts)
    finally:
        await close_test_window(window)
    assert (tmp_path / "window.ini").exists()
    assert files_holding(tmp_path, KEY) == []


async def test_revoking_a_rule_makes_the_next_call_ask_again(tmp_path: Path) -> None:
    window = await open_window(tmp_path, [CALL, {"text": "HI"}, CALL, {"text": "HI"}, CALL])
    ws = window.workspace
    try:
        # a thread the window does not show, so no approval dialog opens over it
        thread = (await ws.threads.create(title="Loud")).id
        await (await ws.runs.send(thread, "shout"))
        [pending] = await ws.runs.pending_approvals(thread)
        req = pending.requests[0]
        always = {
            "decision": "always",
            "scope": "tool",
            "tool": req.tool,
            "fingerprint": req.fingerprint,
            "thread_id": thread,
        }
        await (await ws.runs.answer(thread, {pending.interrupt_id: {req.call_id: always}}))
        await (await ws.runs.send(thread, "again"))
        assert await ws.runs.pending_approvals(thread) == []  # the rule let it run unasked

        page = await open_page(window, PageId.RULES)
        table = find(page, QTableWidget, "rulesTable")
        assert table.rowCount() == 1
        assert [table.item(0, c).text() for c in (0, 1)] == ["shout", "Every thread"]
        click(table.cellWidget(0, 3))
        await wait_until(lambda: find(page, QLabel, "rulesEmpty").isVisible(), what="no rules")
        assert find(page, QLabel, "rulesMessage").text() == (
            "Revoked: shout asks again from its next call."
        )
        await (await ws.runs.send(thread, "once more"))
        [asked] = await ws.runs.pending_approvals(thread)
        assert [r.tool for r in asked.requests] == ["shout"]

        audit = await open_page(window, PageId.AUDIT)
        table = find(audit, QTableWidget, "auditTable")
        column = lambda c: [table.item(r, c).text() for r in range(table.rowCount())]  # noqa: E731
        assert column(3) == ["requested", "allowed by rule", "always", "requested"]
        assert set(column(2)) == {"shout"}
        decision = find(audit, QComboBox, "auditDecision")
        decision.setCurrentText("always")
        await audit.load()
        assert column(3) == ["always"] and column(4) == ["tool"]
        decision.setCurrentText("Any")
        type_text(find(audit, QLineEdit, "auditFilter"), "nothing like this")
        await wait_until(lambda: table.rowCount() == 0, what="the filter")
        assert find(audit, QLabel, "auditCount").text() == "0 entries"
    finally:
        await close_test_window(window)


async def test_the_theme_switches_live_and_is_kept(tmp_path: Path) -> None:
    window = await open_window(tmp_path)
    try:
        page = await open_page(window, PageId.APPEARANCE)
        base = lambda: app().palette().color(QPalette.ColorRole.Base).lightness()  # noqa: E731
        before = base()
        find(page, QRadioButton, "theme_dark").click()
        await wait_until(lambda: base() < 128, what="the dark theme")
        assert load_settings(tmp_path).theme == "dark"
        find(page, QRadioButton, "theme_light").click()
        await wait_until(lambda: base() > 128, what="the light theme")
        find(page, QRadioButton, "theme_system").click()
        await wait_until(lambda: load_settings(tmp_path).theme == "system", what="saved")
        await wait_until(lambda: base() == before, what="the starting palette to come back")
    finally:
        await close_test_window(window)
