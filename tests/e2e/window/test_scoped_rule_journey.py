"""A rule scoped by argument, in the real window: "always allow write_note inside the notes
folder" lets the next call inside that folder run unasked (the audit log names the rule),
while a call outside it opens the dialog again; Settings lists the rule and revokes it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QPushButton, QRadioButton, QTableWidget

from app.ui.app import close_window
from app.ui.settings.page import PageId
from tests.ui.approval_harness import Recorder, approval_dialog, open_tool_window, send
from tests.ui.harness import find, wait_until


def note_call(path: Path, call_id: str) -> dict[str, object]:
    return {"name": "write_note", "args": {"path": str(path), "content": "hi"}, "id": call_id}


async def finished(window: object) -> None:
    vm = window.chat_vm  # type: ignore[attr-defined]
    await wait_until(
        lambda: vm.thread_id and not vm.runs.is_running(vm.thread_id),
        what="the run to end",
    )


async def test_a_folder_rule_allows_calls_inside_and_asks_about_one_outside(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    (notes / "trip").mkdir(parents=True)
    one, two, three = notes / "one.txt", notes / "trip" / "two.txt", tmp_path / "three.txt"
    model = Recorder(
        [
            {"tool_calls": [note_call(one, "c1")]},
            {"text": "First saved."},
            {"tool_calls": [note_call(two, "c2")]},
            {"tool_calls": [note_call(three, "c3")]},
            {"text": "Not that one, then."},
        ]
    )
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "first")
        dialog = await approval_dialog(window)
        scoped = find(dialog, QRadioButton, "alwaysForArgument")
        assert scoped.isVisible() and scoped.text() == f"write_note inside {notes}"
        scoped.click()
        assert "only calls whose real arguments fall inside it" in dialog.scope_help.text()
        find(dialog, QPushButton, "alwaysAllowButton").click()
        await wait_until(lambda: one.exists(), what="the first call")
        await finished(window)

        await send(window, "second")
        dialog = await approval_dialog(window)  # asked about the call outside the folder only
        assert two.exists() and not three.exists()
        assert str(three) in dialog.args_view.toPlainText()
        find(dialog, QPushButton, "denyButton").click()
        await finished(window)
        assert not three.exists()

        thread_id = window.chat_vm.thread_id
        records = await window.workspace._store.list_approvals(thread_id=thread_id)
        used = [(r.decision, r.rule) for r in reversed(records) if r.rule]
        assert used == [
            ("always", f"write_note inside {notes}"),
            ("allowed_by_rule", f"write_note inside {notes}"),
        ]

        settings = window.open_settings()
        page = await settings.show_page(PageId.RULES)
        table = find(page, QTableWidget, "rulesTable")
        item = table.item(0, 1)
        assert table.rowCount() == 1 and item is not None
        assert item.text() == f"inside {notes} · every thread"
        revoke = table.cellWidget(0, 3)
        assert isinstance(revoke, QPushButton)
        revoke.click()
        await wait_until(lambda: table.rowCount() == 0, what="the rule to be revoked")
        assert await window.workspace._store.list_argument_rules() == []
        settings.close()
    finally:
        await close_window(window)
