"""Approving tool calls in the real window: each decision kind, what ran (the file on disk)
and what the audit log holds; Esc, the title bar's close button and closing the window decide
nothing; the dialog comes back after a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QPushButton, QRadioButton

from app.ui.app import close_window
from tests.ui.approval_harness import (
    Recorder,
    approval_dialog,
    audit,
    open_tool_window,
    send,
)
from tests.ui.harness import find, press, type_text, wait_until


def note_call(path: Path, content: str = "Pack a jacket", call_id: str = "c1") -> dict[str, object]:
    return {"name": "write_note", "args": {"path": str(path), "content": content}, "id": call_id}


async def finished(window: object) -> None:
    vm = window.chat_vm  # type: ignore[attr-defined]
    await wait_until(
        lambda: vm.thread_id and not vm.runs.is_running(vm.thread_id),
        what="the run to end",
    )


async def test_approve_runs_the_call_shown_and_audits_it(tmp_path: Path) -> None:
    note = tmp_path / "oslo.txt"
    model = Recorder([{"tool_calls": [note_call(note)]}, {"text": "Saved your note."}])
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "Note: pack a jacket")
        dialog = await approval_dialog(window)
        assert dialog.windowModality() == Qt.WindowModality.WindowModal
        assert "write_note" in dialog.name_label.text()
        assert "files:write" in dialog.permissions_label.text()
        shown = dialog.args_view.toPlainText()
        assert '"content": "Pack a jacket"' in shown and str(note) in shown
        assert "+Pack a jacket" in dialog.preview_view.toPlainText()
        assert find(dialog, QPushButton, "denyButton").isDefault()
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: note.exists(), what="the note to be written")
        await finished(window)
        assert note.read_text() == "Pack a jacket\n"
        thread_id = window.chat_vm.thread_id
        assert await audit(window, thread_id) == [
            ("write_note", "requested", "once", None),
            ("write_note", "approve", "once", None),
        ]
        assert model.last_tool_results() == [f"wrote 13 characters to {note}"]
    finally:
        await close_window(window)


async def test_deny_with_a_reason_runs_nothing_and_the_model_reads_the_reason(
    tmp_path: Path,
) -> None:
    note = tmp_path / "oslo.txt"
    model = Recorder([{"tool_calls": [note_call(note)]}, {"text": "Understood."}])
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "Note: pack a jacket")
        dialog = await approval_dialog(window)
        type_text(find(dialog, QLineEdit, "denyReason"), "use the trip folder instead")
        find(dialog, QPushButton, "denyButton").click()
        await wait_until(lambda: len(model.inputs) == 2, what="the model to be asked again")
        await finished(window)
        assert not note.exists()
        assert model.last_tool_results() == [
            "The user denied this call to 'write_note': use the trip folder instead"
        ]
        assert (await audit(window, window.chat_vm.thread_id))[-1] == (
            "write_note",
            "deny",
            "once",
            "use the trip folder instead",
        )
    finally:
        await close_window(window)


async def test_edited_arguments_are_checked_then_run_instead(tmp_path: Path) -> None:
    note, edited = tmp_path / "oslo.txt", tmp_path / "trip.txt"
    model = Recorder([{"tool_calls": [note_call(note)]}, {"text": "Saved."}])
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "Note: pack a jacket")
        dialog = await approval_dialog(window)
        approve = find(dialog, QPushButton, "approveButton")
        find(dialog, QPushButton, "editArgsButton").click()
        editor = find(dialog, QPlainTextEdit, "argsEditor")
        assert editor.isVisible() and '"content": "Pack a jacket"' in editor.toPlainText()
        editor.setPlainText('{"path": "x", ')
        error = find(dialog, type(dialog.args_error), "argsError")
        assert error.isVisible() and error.text().startswith("This is not valid JSON")
        assert not approve.isEnabled()
        editor.setPlainText('{"path": "x", "content": 3}')
        assert error.text() == '"content": Input should be a valid string.'
        assert not approve.isEnabled()
        editor.setPlainText('{"path": "x"}')
        assert error.text() == '"content" is required but missing.'
        editor.setPlainText(f'{{"path": "{edited}", "content": "Pack boots", "colour": 1}}')
        assert error.text() == '"colour" is not an argument of write_note.'
        editor.setPlainText(f'{{"path": "{edited}", "content": "Pack boots"}}')
        assert not error.isVisible() and approve.isEnabled()
        find(dialog, QPushButton, "editArgsButton").click()  # Done: shown highlighted again
        assert "Pack boots" in dialog.args_view.toPlainText()
        assert "edited by you" in dialog.args_caption.text()
        approve.click()
        await wait_until(lambda: edited.exists(), what="the edited call to run")
        await finished(window)
        assert edited.read_text() == "Pack boots\n" and not note.exists()
        assert (await audit(window, window.chat_vm.thread_id))[-1][:3] == (
            "write_note",
            "edit",
            "once",
        )
    finally:
        await close_window(window)


async def test_always_in_this_thread_asks_no_more_here_but_does_elsewhere(tmp_path: Path) -> None:
    one, two, three = (tmp_path / f"{n}.txt" for n in ("one", "two", "three"))
    model = Recorder(
        [
            {"tool_calls": [note_call(one)]},
            {"text": "First saved."},
            {"tool_calls": [note_call(two, call_id="c2")]},
            {"text": "Second saved."},
            {"tool_calls": [note_call(three, call_id="c3")]},
        ]
    )
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "first")
        dialog = await approval_dialog(window)
        assert find(dialog, QRadioButton, "alwaysInThread").isChecked()
        help_text = find(dialog, type(dialog.scope_help), "alwaysAllowHelp").text()
        assert "without asking again in this thread only" in help_text
        assert "in every thread" in help_text
        find(dialog, QPushButton, "alwaysAllowButton").click()
        await wait_until(lambda: one.exists(), what="the first call")
        await finished(window)
        first_thread = window.chat_vm.thread_id
        await send(window, "second")
        await wait_until(lambda: two.exists(), what="the second call, unasked")
        await finished(window)
        assert window.approvals.dialog is None
        assert [a[1:3] for a in await audit(window, first_thread)] == [
            ("requested", "once"),
            ("always", "thread"),
            ("allowed_by_rule", "once"),
        ]
        await window.new_thread()
        await send(window, "third")
        dialog = await approval_dialog(window)  # another thread asks again
        assert not three.exists()
        find(dialog, QPushButton, "denyButton").click()
        await finished(window)
    finally:
        await close_window(window)


async def test_always_for_this_tool_allows_it_in_every_thread(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    model = Recorder(
        [
            {"tool_calls": [note_call(one)]},
            {"text": "Saved."},
            {"tool_calls": [note_call(two, call_id="c2")]},
            {"text": "Saved too."},
        ]
    )
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "first")
        dialog = await approval_dialog(window)
        find(dialog, QRadioButton, "alwaysForTool").click()
        find(dialog, QPushButton, "alwaysAllowButton").click()
        await wait_until(lambda: one.exists(), what="the first call")
        await finished(window)
        first_thread = window.chat_vm.thread_id
        await window.new_thread()
        await send(window, "second, elsewhere")
        await wait_until(lambda: two.exists(), what="the call in another thread, unasked")
        await finished(window)
        assert (await audit(window, first_thread))[-1][1:3] == ("always", "tool")
        assert (await audit(window, window.chat_vm.thread_id))[-1][1] == "allowed_by_rule"
    finally:
        await close_window(window)


async def test_a_batch_takes_one_decision_per_call(tmp_path: Path) -> None:
    paths = [tmp_path / f"n{i}.txt" for i in range(3)]
    edited = tmp_path / "edited.txt"
    calls = [note_call(p, f"note {i}", f"c{i}") for i, p in enumerate(paths)]
    model = Recorder([{"tool_calls": calls}, {"text": "Done."}])
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "three notes")
        dialog = await approval_dialog(window)
        table = dialog.table
        assert table.rowCount() == 3 and "note 1" in table.item(1, 1).toolTip()
        assert find(dialog, QPushButton, "approveButton").text() == "Approve all"
        assert find(dialog, QPushButton, "denyButton").text() == "Deny all"
        dialog.findChild(type(table.cellWidget(0, 2)), "decision0").setCurrentIndex(1)
        table.selectRow(1)
        assert "note 1" in dialog.args_view.toPlainText()
        type_text(find(dialog, QLineEdit, "denyReason"), "not this one")
        table.selectRow(2)
        assert find(dialog, QLineEdit, "denyReason").text() == ""
        dialog.findChild(type(table.cellWidget(2, 2)), "decision2").setCurrentIndex(2)
        find(dialog, QPushButton, "editArgsButton").click()
        find(dialog, QPlainTextEdit, "argsEditor").setPlainText(
            f'{{"path": "{edited}", "content": "edited note"}}'
        )
        find(dialog, QPushButton, "applyDecisionsButton").click()
        await wait_until(lambda: edited.exists() and paths[0].exists(), what="two calls")
        await finished(window)
        assert paths[0].read_text() == "note 0\n" and edited.read_text() == "edited note\n"
        assert not paths[1].exists() and not paths[2].exists()
        results = model.last_tool_results()
        assert results[1] == "The user denied this call to 'write_note': not this one"
        decided = [a for a in await audit(window, window.chat_vm.thread_id) if a[1] != "requested"]
        assert sorted(decided, key=str) == sorted(
            [
                ("write_note", "approve", "once", None),
                ("write_note", "deny", "once", "not this one"),
                ("write_note", "edit", "once", None),
            ],
            key=str,
        )
    finally:
        await close_window(window)


async def test_esc_denies(tmp_path: Path) -> None:
    note = tmp_path / "oslo.txt"
    model = Recorder([{"tool_calls": [note_call(note)]}, {"text": "Fine."}])
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "Note")
        dialog = await approval_dialog(window)
        press(dialog, Qt.Key.Key_Escape)
        await wait_until(lambda: len(model.inputs) == 2, what="the model to hear the denial")
        await finished(window)
        assert not note.exists()
        assert model.last_tool_results() == ["The user denied this call to 'write_note'."]
        assert (await audit(window, window.chat_vm.thread_id))[-1][1] == "deny"
    finally:
        await close_window(window)


async def test_closing_the_dialog_decides_nothing_and_review_brings_it_back(
    tmp_path: Path,
) -> None:
    note = tmp_path / "oslo.txt"
    model = Recorder([{"tool_calls": [note_call(note)]}, {"text": "Saved."}])
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "Note")
        dialog = await approval_dialog(window)
        thread_id = window.chat_vm.thread_id
        dialog.close()  # the title bar's close button
        review = await wait_until(
            lambda: window.findChild(QPushButton, "reviewApprovalButton"), what="Review…"
        )
        await asyncio.sleep(0.1)
        assert not note.exists() and len(model.inputs) == 1
        assert len(await window.workspace.runs.pending_approvals(thread_id)) == 1
        assert [t.status for t in await window.workspace.threads.list_all()] == ["waiting"]
        assert await audit(window, thread_id) == [("write_note", "requested", "once", None)]
        assert review.isVisible()
        sidebar = window.threads_vm.model
        await wait_until(lambda: sidebar.rows[0].status == "waiting", what="the badge")
        tip = sidebar.data(sidebar.index(0, 0), Qt.ItemDataRole.ToolTipRole)
        assert tip.endswith("(waiting for approval)")
        review.click()
        dialog = await approval_dialog(window)
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: note.exists(), what="the call to run")
        await finished(window)
    finally:
        await close_window(window)


async def test_quitting_mid_dialog_decides_nothing_and_the_dialog_comes_back(
    tmp_path: Path,
) -> None:
    note = tmp_path / "oslo.txt"
    data = tmp_path / "data"
    model = Recorder([{"tool_calls": [note_call(note)]}])
    window = await open_tool_window(data, model)
    await send(window, "Note")
    await approval_dialog(window)
    thread_id = window.chat_vm.thread_id
    await close_window(window)  # the window and the store close under the open dialog
    assert not note.exists()

    later = Recorder([{"text": "Saved after the restart."}])
    window = await open_tool_window(data, later)
    try:
        assert [t.status for t in await window.workspace.threads.list_all()] == ["waiting"]
        assert await audit(window, thread_id) == [("write_note", "requested", "once", None)]
        dialog = await approval_dialog(window)
        assert '"content": "Pack a jacket"' in dialog.args_view.toPlainText()
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: later.inputs, what="the run to continue")
        await finished(window)
        assert note.read_text() == "Pack a jacket\n"  # ran exactly once
        assert [a[1] for a in await audit(window, thread_id)] == ["requested", "approve"]
        assert window.chat_vm.model.messages()[-1].text() == "Saved after the restart."
    finally:
        await close_window(window)


async def test_other_threads_keep_working_while_the_dialog_is_open(tmp_path: Path) -> None:
    note = tmp_path / "oslo.txt"
    model = Recorder([{"tool_calls": [note_call(note)]}, {"text": "Meanwhile, elsewhere."}])
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await send(window, "Note")
        dialog = await approval_dialog(window)
        other = await window.workspace.threads.create()
        state = await asyncio.wait_for(await window.workspace.runs.send(other.id, "hello"), 5)
        assert state is not None and state.context[-1].text() == "Meanwhile, elsewhere."
        assert dialog.isVisible()
        find(dialog, QPushButton, "denyButton").click()
        await finished(window)
    finally:
        await close_window(window)
