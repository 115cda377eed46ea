"""An agent's own approval rule and knowledge folders, in the real window: the dialog offers
"Always allow Writer to write inside the folder", the next call inside runs unasked and one
outside is asked about; Settings > Rules names the agent; the agent editor lists the rule
(Remove takes it away) and picks the agent's knowledge folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QPushButton, QRadioButton, QTableWidget

from app.services.agents import Agent
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.settings.page import PageId
from app.ui.tasks import spawn
from app.ui.window import MainWindow
from tests.e2e.window.test_agent_journeys import check, click_agent, editor_of, save
from tests.e2e.window.test_scoped_rule_journey import finished
from tests.e2e.window.test_stored_delegation_journey import _listed
from tests.ui.approval_harness import approval_dialog, send
from tests.ui.harness import Models, find, wait_until


def write(path: Path, call_id: str) -> dict[str, Any]:
    call = {"name": "write_file", "args": {"path": str(path), "content": "hi"}, "id": call_id}
    return {"tool_calls": [call]}


async def test_an_agents_rule_and_folders_from_the_dialog_to_the_editor(tmp_path: Path) -> None:
    notes, docs = tmp_path / "notes", tmp_path / "docs"
    notes.mkdir()
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nThe lighthouse opens at nine.\n")
    one, two, three = notes / "one.txt", notes / "two.txt", tmp_path / "three.txt"
    script = [write(one, "c1"), "Saved.", write(two, "c2"), write(three, "c3"), "Not there."]
    models = Models({"scripted:a": [], "scripted:writer": script})
    workspace = await Workspace.open(
        tmp_path / "data", resolve_model=models, secret_resolver=lambda _r: "unused"
    )
    workspace.settings.use(
        AppSettings(default_model="scripted:a", granted_folders=[str(notes), str(tmp_path)])
    )
    writer = await workspace.agents.add(
        Agent(name="Writer", model="scripted:writer", tools=("write_file",))
    )
    folder = await workspace.knowledge.add_folder(docs)
    window = MainWindow(workspace)
    window.show()
    await window.start(preload=False)
    try:
        await wait_until(lambda: _listed(window, "Writer"), what="the saved agent listed")
        click_agent(window, "Writer")
        await wait_until(lambda: window.chat_vm.thread_id is not None, what="its thread")
        await send(window, "save one")
        dialog = await approval_dialog(window)
        scoped = find(dialog, QRadioButton, "alwaysForArgument")
        assert scoped.text() == f"Writer to write inside {notes}"
        assert scoped.accessibleName() == f"Always allow Writer to write inside {notes}"
        scoped.click()
        find(dialog, QPushButton, "alwaysAllowButton").click()
        await wait_until(lambda: one.exists(), what="the first call")
        await finished(window)

        await send(window, "save two")
        dialog = await approval_dialog(window)  # only the call outside the folder is asked
        assert two.exists() and not three.exists()
        assert str(three) in dialog.args_view.toPlainText()
        find(dialog, QPushButton, "denyButton").click()
        await finished(window)
        assert not three.exists()
        records = await workspace._store.list_approvals(thread_id=window.chat_vm.thread_id)
        assert [r.rule for r in records if r.decision == "allowed_by_rule"] == [
            f"write_file inside {notes} for Writer"
        ]

        settings = window.open_settings()
        page = await settings.show_page(PageId.RULES)
        table = find(page, QTableWidget, "rulesTable")
        item = table.item(0, 1)
        assert item is not None and item.text() == f"inside {notes} · every thread · for Writer"
        settings.close()

        spawn(window.agent_part.edit_agent(writer.id))
        editor = await editor_of(window)
        rules = find(editor, QListWidget, "agentRules")
        assert [rules.item(i).text() for i in range(rules.count())] == [
            f"write_file inside {notes}"
        ]
        knowledge = find(editor, QListWidget, "agentKnowledge")
        assert knowledge.item(0).checkState() == Qt.CheckState.Unchecked
        check(knowledge, folder)
        rules.setCurrentRow(0)
        find(editor, QPushButton, "removeAgentRuleButton").click()
        await wait_until(lambda: rules.item(0).flags() == Qt.ItemFlag.NoItemFlags, what="removal")
        assert await workspace._store.list_argument_rules() == []
        await save(window, editor)
        assert workspace.agents.knowledge_of(writer) == [folder]

        spawn(window.agent_part.edit_agent(writer.id))
        editor = await editor_of(window)
        again = find(editor, QListWidget, "agentKnowledge")
        assert again.item(0).checkState() == Qt.CheckState.Checked
        editor.reject()

        settings = window.open_settings()
        page = await settings.show_page(PageId.KNOWLEDGE)
        listed = find(page, QListWidget, "knowledgeFolders")
        await wait_until(lambda: "(agent Writer)" in listed.item(0).text(), what="its owner")
        settings.close()
    finally:
        await close_window(window)
