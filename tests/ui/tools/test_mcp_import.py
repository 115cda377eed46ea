"""What outside MCP configuration cannot do in the window: an imported file's claims (other
secrets, tools run unasked) wait for a yes in a confirmation listing each; a list nested
100,000 deep is one sentence; a tool that says it is read-only but writes asks first."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtWidgets import QDialog, QLabel, QListWidget, QPushButton, QWidget

from app.services.mcp.config import McpConfig
from app.services.workspace import Workspace
from app.tools.mcp import ServerConfig
from app.ui.app import close_window
from app.ui.settings.mcp_page import McpPage
from app.ui.tasks import spawn
from tests.services.mcp_files import HELD, HOSTILE, LEAKY
from tests.tools.mcp.test_hints import LIAR
from tests.ui.approval_harness import Recorder, approval_dialog, open_tool_window, send
from tests.ui.harness import Models, find, open_test_window, wait_until
from tests.ui.tools.test_mcp_page import servers, shown_page
from tests.ui.tools.test_tools_menu import switch

CLAIMS = [f"{name}: {claim}" for name, claims in HELD.items() for claim in claims]


def _shown(page: QWidget) -> QDialog | None:
    found = page.findChildren(QDialog, "mcpImportClaimsDialog")
    return next((d for d in found if d.isVisible()), None)


async def importing(page: McpPage, source: Path) -> QDialog:
    """Start importing ``source`` on ``page``; the confirmation it opens, with every claim
    listed as expected."""
    spawn(page.import_file(str(source)))
    dialog: QDialog = await wait_until(lambda: _shown(page), 5.0, "the claims dialog")
    claims = find(dialog, QListWidget, "mcpImportClaims")
    assert [claims.item(i).text() for i in range(claims.count())] == CLAIMS
    return dialog


def hostile(tmp_path: Path) -> Path:
    source = tmp_path / "shared.json"
    source.write_text(json.dumps(HOSTILE), encoding="utf-8")
    return source


async def test_an_import_lists_each_claim_and_adds_those_servers_only_on_yes(
    workspace: Workspace, tmp_path: Path
) -> None:
    source = hostile(tmp_path)
    page = await shown_page(workspace)
    find(await importing(page, source), QPushButton, "holdClaimsButton").click()
    await wait_until(lambda: page.summary.isVisible(), what="the summary")
    assert page.summary.text() == (
        f"Added 1: notes. Skipped 1: leaky ({LEAKY}). Held back 2: "
        f"web ({'; '.join(HELD['web'])}); helper ({'; '.join(HELD['helper'])})."
    )
    assert list(servers(workspace)) == ["notes"]

    find(await importing(page, source), QPushButton, "trustClaimsButton").click()
    await wait_until(lambda: page.summary.text().startswith("Added 2"), what="the new summary")
    assert page.summary.text() == (
        "Added 2: web, helper. Skipped 2: notes (a server named 'notes' is already "
        f"configured); leaky ({LEAKY})."
    )
    assert servers(workspace)["web"] == HOSTILE["mcpServers"]["web"]
    assert list(servers(workspace)) == ["notes", "web", "helper"]
    await workspace.mcp.wait_started()
    page.close()


async def test_closing_the_confirmation_holds_the_servers_back(
    workspace: Workspace, tmp_path: Path
) -> None:
    page = await shown_page(workspace)
    (await importing(page, hostile(tmp_path))).close()
    await wait_until(lambda: page.summary.isVisible(), what="the summary")
    assert "Held back 2: web (" in page.summary.text()
    assert list(servers(workspace)) == ["notes"]
    await workspace.mcp.wait_started()
    page.close()


async def test_a_server_list_nested_100000_deep_is_one_sentence_in_the_window(
    tmp_path: Path,
) -> None:
    deep = '{"mcpServers": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    (tmp_path / "mcp.json").write_text(deep, encoding="utf-8")
    reason = (
        f"{tmp_path / 'mcp.json'} nests its values more than 64 levels deep, which no server "
        "list does; fix it or move it away. Parley has not changed it"
    )
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        await window.workspace.mcp.wait_started()
        notice = find(window, QLabel, "noticeText")
        await wait_until(lambda: "nests its values" in notice.text(), what="the notice")
        assert notice.text() == f"No MCP server's tools are offered: {reason}"
        page = await shown_page(window.workspace)
        assert page.error.text() == reason
        page.close()
    finally:
        await close_window(window)
    assert (tmp_path / "mcp.json").read_text(encoding="utf-8") == deep


async def test_a_newly_added_tool_that_claims_read_only_but_writes_asks_first(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    target = tmp_path / "notes.txt"
    McpConfig.for_data_dir(data).add(
        ServerConfig(name="liar", command=sys.executable, args=[str(LIAR)])
    )
    call = {"name": "liar__tidy", "args": {"path": str(target)}, "id": "c1"}
    model = Recorder([{"tool_calls": [call]}, {"text": "Tidied."}])
    window = await open_tool_window(data, model, tools=[])
    try:
        await window.workspace.mcp.wait_started()
        await switch(window, "liar__tidy")
        await send(window, "Tidy my notes")
        dialog = await approval_dialog(window)
        assert "liar__tidy" in dialog.name_label.text()
        assert not target.exists()  # nothing ran before the decision
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: len(model.inputs) == 2, what="the answer")
        assert model.last_tool_results() == [f"tidied {target}"]
        assert target.read_text(encoding="utf-8") == "tidied"
    finally:
        await close_window(window)
