"""The MCP servers page beyond adding a command: a streamable-HTTP server with a token kept in
the keyring, what a server and each of its tools may do (the next call follows it in the
window), testing a server (working, failing, hung) and importing another app's file."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox, QDialog, QPushButton, QTreeWidget, QWidget

from app.services.mcp.config import McpConfig
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.settings import mcp_page
from app.ui.settings._mcp_dialog import ServerDialog
from app.ui.settings.mcp_page import McpPage
from app.ui.tasks import spawn
from tests.tools.mcp.helpers import DEMO, demo_config, free_port, time_config
from tests.tools.mcp.test_http import TOKEN, HttpDemo
from tests.ui.approval_harness import Recorder, approval_dialog, open_tool_window, send
from tests.ui.harness import find, wait_until
from tests.ui.tools.test_tools_menu import button, switch


@pytest.fixture
def http_demo() -> Iterator[HttpDemo]:
    server = HttpDemo(free_port())
    server.start()
    yield server
    server.stop()


def servers(workspace: Workspace) -> dict:  # type: ignore[type-arg]
    path = workspace.data_dir / "mcp.json"
    return json.loads(path.read_text(encoding="utf-8"))["mcpServers"]  # type: ignore[no-any-return]


def visible(parent: QWidget, cls: type[QDialog]) -> QDialog | None:
    return next((w for w in parent.findChildren(cls) if w.isVisible()), None)


async def shown_page(workspace: Workspace) -> McpPage:
    page = McpPage(workspace.mcp, workspace.events)
    page.show()
    await workspace.mcp.wait_started()
    await page.load()
    return page


def choose(box: QComboBox, label: str) -> None:
    """Pick ``label`` in ``box`` as a user would (the activated signal fires)."""
    index = box.findText(label)
    assert index >= 0, f"{label!r} not in {[box.itemText(i) for i in range(box.count())]}"
    box.setCurrentIndex(index)
    box.activated.emit(index)


def tool_rows(page: McpPage) -> list[tuple[str, str, str]]:
    tree = find(page, QTreeWidget, "mcpServerTools")
    rows = []
    for i in range(tree.topLevelItemCount()):
        item = tree.topLevelItem(i)
        box = tree.itemWidget(item, 2)
        rows.append((item.text(0), item.text(1), box.currentText() if box else ""))
    return rows


async def test_an_http_server_with_a_keyring_token_is_added_tested_and_runs(
    workspace: Workspace, http_demo: HttpDemo
) -> None:
    page = McpPage(workspace.mcp, workspace.events)
    page.show()
    page.add_button.click()
    dialog = await wait_until(lambda: visible(page, ServerDialog), what="the server dialog")
    assert isinstance(dialog, ServerDialog)
    dialog.name.setText("web")
    choose(dialog.kind, "At an address (streamable HTTP)")
    assert dialog.url.isVisible() and not dialog.command.isVisible()
    dialog.url.setText(http_demo.url)
    await dialog.keep_header_secret("Authorization", TOKEN)
    assert dialog.headers.toPlainText() == "Authorization: Bearer {keyring:mcp/web/Authorization}"
    assert workspace.keyring.items[("parley", "mcp/web/Authorization")] == TOKEN  # type: ignore[attr-defined]

    await dialog.test()
    assert dialog.test_result.text().startswith("Connected: ")
    assert "echo" in dialog.test_result.text()

    spawn(dialog.save())
    await wait_until(lambda: not dialog.isVisible(), what="the dialog to close")
    assert servers(workspace) == {
        "web": {
            "url": http_demo.url,
            "headers": {"Authorization": "Bearer {keyring:mcp/web/Authorization}"},
        }
    }
    assert TOKEN not in (workspace.data_dir / "mcp.json").read_text(encoding="utf-8")
    await workspace.mcp.wait_started()
    await wait_until(lambda: page.state.text() == "Running", what="running")
    assert ("echo", "Allowed", "As the server (Ask first)") in tool_rows(page)

    page.edit_button.click()
    again = await wait_until(lambda: visible(page, ServerDialog), what="the edit dialog")
    assert isinstance(again, ServerDialog)
    assert again.kind.currentIndex() == 1 and again.url.text() == http_demo.url
    again.reject()
    page.close()


async def test_a_bad_address_is_one_sentence_and_nothing_is_saved(workspace: Workspace) -> None:
    page = McpPage(workspace.mcp, workspace.events)
    dialog = ServerDialog(workspace.mcp, None, page)
    dialog.name.setText("web")
    dialog.kind.setCurrentIndex(1)
    dialog.url.setText("ftp://example.com/mcp")
    assert not await dialog.save()
    assert dialog.error.text() == (
        "Server 'web' cannot be saved: 'ftp://example.com/mcp' is not an http:// or https:// "
        "address"
    )
    dialog.url.setText("http://127.0.0.1:9/mcp")
    dialog.headers.setPlainText("no colon here")
    assert not await dialog.save()
    assert dialog.error.text() == "Header line 1 should look like Name: value"
    assert not (workspace.data_dir / "mcp.json").exists()


async def test_server_and_tool_policies_show_defaults_and_apply_at_once(
    workspace: Workspace,
) -> None:
    await workspace.mcp.save_server("demo", sys.executable, [str(DEMO)])
    page = await shown_page(workspace)
    rows = {name: (suggested, may) for name, suggested, may in tool_rows(page)}
    assert rows["echo"] == ("Allowed", "As the server (Ask first)")  # says it is read-only
    assert rows["write_note"] == ("Ask first", "As the server (Ask first)")
    assert {t.name: t for t in workspace.tools.available()}["demo__echo"].requires_approval

    box = find(page, QComboBox, "mcpToolPolicy:echo")
    choose(box, "Allowed")
    await wait_until(lambda: servers(workspace)["demo"].get("tools") == {"echo": "allowed"})
    await wait_until(
        lambda: (
            not {t.name: t for t in workspace.tools.available()}["demo__echo"].requires_approval
        ),
        what="echo to run at once",
    )

    choose(find(page, QComboBox, "mcpToolPolicy:echo"), "Off")
    await wait_until(lambda: "demo__echo" not in {t.name for t in workspace.tools.available()})
    assert servers(workspace)["demo"]["tools"] == {"echo": "off"}
    await wait_until(lambda: ("echo", "Allowed", "Off") in tool_rows(page), what="row shows Off")

    choose(find(page, QComboBox, "mcpServerPolicy"), "Off")
    await wait_until(
        lambda: not [t for t in workspace.tools.available() if t.name.startswith("demo__")]
    )
    assert servers(workspace)["demo"]["policy"] == "off"
    choose(find(page, QComboBox, "mcpServerPolicy"), "Each tool's default")
    await wait_until(lambda: "demo__write_note" in {t.name for t in workspace.tools.available()})
    assert "policy" not in servers(workspace)["demo"]
    assert workspace.mcp.manager is not None
    assert workspace.mcp.manager.connections["demo"].starts == 1  # applied without a restart
    page.close()


async def test_test_connection_reports_the_count_a_reason_or_a_timeout(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = McpConfig.for_data_dir(workspace.data_dir)
    config.add(time_config())
    config.add(demo_config("broken", "--exit-at-start", "the token is missing", disabled=True))
    hung = "import time; time.sleep(60)"
    config.add(demo_config("hung", disabled=True).model_copy(update={"args": ["-c", hung]}))
    page = await shown_page(workspace)
    test = find(page, QPushButton, "testServerButton")

    page.list.setCurrentRow(0)
    test.click()
    await wait_until(lambda: page.test_result.text().startswith("Connected"), 30, "time tested")
    assert page.test_result.text() == ("Connected: 2 tools (get_current_time, convert_time).")

    page.list.setCurrentRow(1)
    test.click()
    await wait_until(lambda: page.test_result.text().startswith("Failed"), 30, "broken tested")
    assert "the token is missing" in page.test_result.text()
    assert "\n" not in page.test_result.text()

    monkeypatch.setattr(mcp_page, "TEST_TIMEOUT", 1.5)
    page.list.setCurrentRow(2)
    started = time.monotonic()
    test.click()
    ticks = 0
    while not page.test_result.text().startswith("Failed"):
        await asyncio.sleep(0.05)  # the loop keeps turning while the server hangs
        ticks += 1
        assert time.monotonic() - started < 15
    assert ticks > 10
    log = workspace.data_dir / "logs" / "mcp" / "tests" / "hung.log"
    assert page.test_result.text() == (
        f"Failed: Server 'hung' did not answer within 1.5 s of starting; its log is {log}"
    )
    assert log.is_file()
    page.close()


async def test_import_adds_what_it_can_and_says_what_it_skipped(
    workspace: Workspace, tmp_path: Path
) -> None:
    await workspace.mcp.save_server("time", sys.executable, ["-m", "mcp_server_time"])
    other = tmp_path / "claude_desktop_config.json"
    other.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo": {"command": sys.executable, "args": [str(DEMO)]},
                    "time": {"command": "uvx", "args": ["mcp-server-time"]},
                    "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                }
            }
        ),
        encoding="utf-8",
    )
    page = await shown_page(workspace)
    await page.import_file(str(other))
    assert page.summary.text() == (
        "Added 1: demo. Skipped 2: time (a server named 'time' is already configured); old "
        "(server 'old' uses the older SSE transport, which Parley does not support; use the "
        "server's streamable-HTTP address instead)."
    )
    assert list(servers(workspace)) == ["time", "demo"]
    assert [page.list.item(i).text().split("\n")[0] for i in range(page.list.count())] == [
        "time",
        "demo",
    ]
    await page.import_file(str(tmp_path / "missing.json"))
    assert page.error.text() == f"Nothing was imported: {tmp_path / 'missing.json'} is not a file"
    await workspace.mcp.wait_started()
    page.close()


async def test_ask_first_opens_the_approval_dialog_and_off_takes_the_tool_away(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    McpConfig.for_data_dir(data).add(demo_config())
    call = {"name": "demo__echo", "args": {"text": "hi"}, "id": "c1"}
    model = Recorder([{"tool_calls": [call]}, {"text": "Echoed."}])
    window = await open_tool_window(data, model, tools=[])
    try:
        await window.workspace.mcp.wait_started()
        await switch(window, "demo__echo")
        thread = window.chat_vm.thread_id
        page = await shown_page(window.workspace)
        choose(find(page, QComboBox, "mcpToolPolicy:echo"), "Ask first")
        await wait_until(
            lambda: (
                window.workspace.tools.for_thread(window.chat_vm.thread_id)[0].requires_approval
            ),
            what="echo to ask first",
        )

        await send(window, "Echo hi")
        dialog = await approval_dialog(window)
        assert "demo__echo" in dialog.name_label.text()
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: len(model.inputs) == 2, what="the answer")
        assert model.last_tool_results() == ["echo: hi"]

        choose(find(page, QComboBox, "mcpToolPolicy:echo"), "Off")
        await wait_until(lambda: not window.workspace.tools.for_thread(thread), what="echo off")
        assert servers(window.workspace)["demo"]["tools"] == {"echo": "off"}
        menu = button(window)
        menu.rebuild()
        assert "demo__echo" not in menu.actions_by_name()
        page.close()
    finally:
        await close_window(window)
