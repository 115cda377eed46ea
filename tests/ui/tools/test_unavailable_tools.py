"""The composer's tools menu greys a tool that cannot work now with why, does not count it as
on, and its fix entry opens the settings at the page that fixes it."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtGui import QAction

from tests.tools.mcp.helpers import DEMO
from tests.ui.harness import (
    Models,
    close_test_window,
    open_test_window,
    settings_shown_at,
    wait_until,
)
from tests.ui.tools.test_tools_menu import button, calling


async def test_offline_greys_the_web_tools_and_go_online_opens_the_network_page(
    tmp_path: Path,
) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": calling("", {})}))
    try:
        tools = button(window)
        thread = window.chat_vm.thread_id
        assert thread is not None
        await tools.tools.set_enabled(thread, ["fetch_url", "calculator"])
        tools.refresh()
        assert tools.text() == "Tools: 2 on"

        await window.workspace.preferences.set_offline(True)
        await wait_until(lambda: tools.text() == "Tools: 1 on", what="the count without fetch_url")
        tools.rebuild()
        actions = tools.actions_by_name()
        fetch = actions["fetch_url"]
        assert fetch.text() == "fetch_url — Parley is offline, so no web address can be reached"
        assert fetch.isChecked() and not fetch.isEnabled()
        assert "Go online to fix it" in fetch.toolTip()
        assert actions["calculator"].isEnabled()
        read = actions["read_file"]
        assert read.text() == "read_file — no folder is shared with Parley"
        assert not read.isEnabled()
        fixes = {a.objectName(): a for a in tools.menu_.actions() if a.objectName()}
        assert fixes["toolFix:share_folder"].text() == "Share a folder…"
        assert "toolFix:start_server" not in fixes

        fixes["toolFix:go_online"].trigger()
        settings = await settings_shown_at(window, "networkSettingsPage")
        settings.reject()
        await window.workspace.preferences.set_offline(False)
        await wait_until(lambda: tools.text() == "Tools: 2 on", what="fetch_url on again")
        tools.rebuild()
        assert tools.actions_by_name()["fetch_url"].isEnabled()
    finally:
        await close_test_window(window)


async def test_a_server_that_is_not_running_offers_start_the_server_on_the_mcp_page(
    tmp_path: Path,
) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": calling("", {})}))
    try:
        tools = button(window)
        mcp = window.workspace.mcp
        await mcp.save_server(
            "broken", sys.executable, [str(DEMO), "--exit-at-start", "no licence"]
        )
        await mcp.wait_started()

        def fix_entry() -> QAction | None:
            tools.rebuild()
            entries = {a.objectName(): a for a in tools.menu_.actions()}
            return entries.get("toolFix:start_server")

        start = await wait_until(fix_entry, what="Start the server in the menu")
        assert start.text() == "Start the server…"
        notes = [a for a in tools.menu_.actions() if a.text().startswith("Not running: ")]
        assert len(notes) == 1 and "no licence" in notes[0].toolTip()
        start.trigger()
        settings = await settings_shown_at(window, "mcpSettingsPage")
        settings.reject()
    finally:
        await close_test_window(window)
