"""The Tools and MCP servers settings pages, each on its own: folders granted and removed,
the network policy, servers added, switched off, edited with a keyring secret and removed;
every change is in the files on disk at once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog, QLineEdit, QListWidget, QTreeWidget, QWidget

from app.services.workspace import Workspace
from app.ui.settings._mcp_dialog import ServerDialog
from app.ui.settings.mcp_page import McpPage
from app.ui.settings.tools_page import ToolsPage
from app.ui.tasks import spawn
from tests.services.memory_keyring import MemoryKeyring
from tests.tools.mcp.helpers import DEMO
from tests.ui.harness import find, wait_until


def saved(workspace: Workspace, name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((workspace.data_dir / name).read_text(encoding="utf-8"))


def open_dialog(page: QWidget, cls: type[QDialog]) -> QDialog | None:
    """The visible dialog of type ``cls`` that ``page`` opened."""
    for widget in page.findChildren(cls):
        if widget.isVisible():
            return widget
    return None


async def add_dialog(workspace: Workspace, args: str) -> tuple[McpPage, ServerDialog]:
    """The MCP page with its Add dialog open and filled in for the demo server."""
    page = McpPage(workspace.mcp, workspace.events)
    page.show()
    page.add_button.click()
    dialog = await wait_until(lambda: open_dialog(page, ServerDialog), what="the server dialog")
    find(dialog, QLineEdit, "mcpServerName").setText("demo")
    find(dialog, QLineEdit, "mcpServerCommand").setText(sys.executable)
    find(dialog, QLineEdit, "mcpServerArgs").setText(args)
    return page, dialog


async def test_a_folder_is_granted_through_the_folder_dialog_and_removed(
    workspace: Workspace, tmp_path: Path
) -> None:
    folder = tmp_path / "projects"
    folder.mkdir()
    page = ToolsPage(workspace.settings, workspace.tools)
    page.show()
    await page.load()
    assert not page.folders.isVisible() and page.empty.isVisible()
    page.add_button.click()
    dialog = await wait_until(lambda: open_dialog(page, QFileDialog), what="the folder dialog")
    assert isinstance(dialog, QFileDialog)
    dialog.setDirectory(str(folder))  # the user walks into the folder and chooses it
    dialog.accept()
    folders = find(page, QListWidget, "grantedFolders")
    await wait_until(lambda: folders.count() == 1, what="the folder listed")
    assert folders.item(0).text() == str(folder.resolve())
    assert saved(workspace, "settings.json")["granted_folders"] == [str(folder.resolve())]
    assert any(t.name == "read_file" for t in workspace.tools.available())

    folders.setCurrentRow(0)
    page.remove_button.click()
    await wait_until(lambda: folders.count() == 0, what="the folder removed")
    assert saved(workspace, "settings.json")["granted_folders"] == []
    page.close()


async def test_a_missing_folder_is_refused_with_a_sentence(
    workspace: Workspace, tmp_path: Path
) -> None:
    page = ToolsPage(workspace.settings, workspace.tools)
    page.show()
    await page.add_folder(str(tmp_path / "gone"))
    assert page.error.isVisible()
    assert page.error.text() == (
        f"Could not grant {tmp_path / 'gone'}: {tmp_path / 'gone'} is not a folder; "
        "choose an existing folder to grant"
    )
    assert workspace.settings.current.granted_folders == []
    page.close()


async def test_the_network_policy_is_saved_at_once(workspace: Workspace) -> None:
    page = ToolsPage(workspace.settings, workspace.tools)
    page.show()
    assert not page.private_network.isChecked()
    page.private_network.click()
    settings = workspace.data_dir / "settings.json"
    await wait_until(settings.exists, what="the settings written")
    assert saved(workspace, "settings.json")["allow_private_network"] is True
    assert workspace.settings.current.allow_private_network
    page.close()


async def test_a_server_is_added_runs_lists_its_tools_is_switched_off_and_removed(
    workspace: Workspace,
) -> None:
    page = McpPage(workspace.mcp, workspace.events)
    page.show()
    await page.load()
    assert page.empty.isVisible()
    page.add_button.click()
    dialog = await wait_until(lambda: open_dialog(page, ServerDialog), what="the server dialog")
    find(dialog, QLineEdit, "mcpServerName").setText("demo")
    find(dialog, QLineEdit, "mcpServerCommand").setText(sys.executable)
    find(dialog, QLineEdit, "mcpServerArgs").setText(f"'{DEMO}'")
    spawn(dialog.save())  # what Save does
    await wait_until(lambda: not dialog.isVisible(), what="the dialog to close")
    assert saved(workspace, "mcp.json")["mcpServers"]["demo"] == {
        "command": sys.executable,
        "args": [str(DEMO)],
    }
    await workspace.mcp.wait_started()
    await wait_until(lambda: page.state.text() == "Running", what="running")
    tools = find(page, QTreeWidget, "mcpServerTools")
    listed = [tools.topLevelItem(i).text(0) for i in range(tools.topLevelItemCount())]
    assert "echo" in listed
    echo = tools.topLevelItem(listed.index("echo"))
    assert echo.toolTip(0) == "Say the text back."
    assert page.list.item(0).text().startswith("demo\nRunning · ")

    page.enabled.click()
    await wait_until(lambda: page.state.text() == "Off", what="switched off")
    assert saved(workspace, "mcp.json")["mcpServers"]["demo"]["disabled"] is True
    await workspace.mcp.wait_started()
    assert not [e for e in workspace.tools.catalogue() if e.group == "demo"]

    page.remove_button.click()
    await wait_until(lambda: page.list.count() == 0, what="removed")
    assert saved(workspace, "mcp.json")["mcpServers"] == {}
    page.close()


async def test_a_failing_server_shows_why(workspace: Workspace) -> None:
    await workspace.mcp.save_server(
        "broken", sys.executable, [str(DEMO), "--exit-at-start", "the token is missing"]
    )
    page = McpPage(workspace.mcp, workspace.events)
    page.show()
    await workspace.mcp.wait_started()
    await page.load()
    assert page.state.text() == "Not running"
    assert page.reason.isVisible()
    assert "the token is missing" in page.reason.text()
    page.close()


async def test_a_secret_goes_to_the_keyring_and_the_file_holds_only_its_name(
    workspace: Workspace,
) -> None:
    page, dialog = await add_dialog(workspace, str(DEMO))
    await dialog.keep_secret("DEMO_USER", "s3cret-ada")
    assert dialog.env.toPlainText() == "DEMO_USER={keyring:mcp/demo/DEMO_USER}"
    assert await dialog.save()
    text = (workspace.data_dir / "mcp.json").read_text(encoding="utf-8")
    assert "s3cret-ada" not in text
    assert "{keyring:mcp/demo/DEMO_USER}" in text
    keyring: MemoryKeyring = workspace.keyring  # type: ignore[attr-defined]
    assert keyring.items[("parley", "mcp/demo/DEMO_USER")] == "s3cret-ada"
    page.close()


async def test_bad_arguments_and_environment_say_what_is_wrong(workspace: Workspace) -> None:
    page, dialog = await add_dialog(workspace, "'unclosed")
    assert not await dialog.save()
    assert dialog.error.text() == (
        "The arguments cannot be read: No closing quotation (check the quotes)"
    )
    find(dialog, QLineEdit, "mcpServerArgs").setText("x")
    dialog.env.setPlainText("JUSTANAME")
    assert not await dialog.save()
    assert dialog.error.text() == "Environment line 1 should look like NAME=value"
    assert not (workspace.data_dir / "mcp.json").exists()
    dialog.reject()
    page.close()


async def test_editing_a_server_keeps_what_the_form_does_not_show(workspace: Workspace) -> None:
    await workspace.mcp.save_server("demo", sys.executable, [str(DEMO)])
    workspace.mcp.config.edit("demo", policy="approval", disabled=True)
    page = McpPage(workspace.mcp, workspace.events)
    page.show()
    await page.load()
    page.edit_button.click()
    dialog = await wait_until(lambda: open_dialog(page, ServerDialog), what="the server dialog")
    assert isinstance(dialog, ServerDialog)
    assert find(dialog, QLineEdit, "mcpServerArgs").text() == str(DEMO)
    find(dialog, QLineEdit, "mcpServerName").setText("notes")
    find(dialog, QLineEdit, "mcpServerArgs").setText(f"{DEMO} --exit-after 60")
    assert await dialog.save()
    assert saved(workspace, "mcp.json")["mcpServers"] == {
        "notes": {
            "command": sys.executable,
            "args": [str(DEMO), "--exit-after", "60"],
            "policy": "approval",
            "disabled": True,
        }
    }
    await workspace.mcp.wait_started()
    await page.load()
    assert page.list.item(0).text() == "notes\nOff"
    page.close()
