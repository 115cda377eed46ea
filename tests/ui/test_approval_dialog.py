"""The approval dialog on its own: what each button decides, what closing decides (nothing),
edits that block approving until they are valid, and every control named for assistive
technology."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QPlainTextEdit, QPushButton, QWidget

from app.core.tools import ApprovalRequest, args_fingerprint
from app.ui.approvals import DISMISSED, ToolApprovalDialog
from app.ui.dialogs import ask
from tests.ui.approval_harness import write_note
from tests.ui.harness import find, press, wait_until


def request(call_id: str, **args: Any) -> ApprovalRequest:
    values = {"path": "notes.txt", "content": "hello", **args}
    return ApprovalRequest(
        call_id=call_id,
        tool="write_note",
        description=write_note.description,
        permissions=["files:write"],
        args=values,
        fingerprint=args_fingerprint(values),
        thread_id="t1",
        note="Asked again: its arguments differ from the ones shown.",
    )


def dialog_for(*requests: ApprovalRequest) -> ToolApprovalDialog:
    return ToolApprovalDialog(
        None, list(requests), thread_title="Trip", tools={"write_note": write_note}
    )


async def run(dialog: ToolApprovalDialog, act: Any) -> int:
    """Open ``dialog`` the way the window does, do ``act`` once it shows, await the result."""
    import asyncio

    pending = asyncio.ensure_future(ask(dialog))
    await wait_until(dialog.isVisible, what="the dialog")
    act(dialog)
    return await asyncio.wait_for(pending, 5)


async def test_the_title_bar_close_decides_nothing() -> None:
    dialog = dialog_for(request("c1"))
    assert await run(dialog, lambda d: d.close()) == DISMISSED
    assert dialog.decisions is None


async def test_esc_denies_with_the_reason_typed() -> None:
    dialog = dialog_for(request("c1"))

    def act(d: ToolApprovalDialog) -> None:
        d.reason.setText("not now")
        d.calls[0].reason = "not now"
        press(d, Qt.Key.Key_Escape)

    await run(dialog, act)
    assert dialog.decisions is not None
    assert [(x.decision, x.reason) for x in dialog.decisions] == [("deny", "not now")]


async def test_the_note_shows_and_deny_is_the_default_button() -> None:
    dialog = dialog_for(request("c1"))
    dialog.show()
    assert dialog.note_label.isVisible() and "Asked again" in dialog.note_label.text()
    assert find(dialog, QPushButton, "denyButton").isDefault()
    assert not find(dialog, QPushButton, "approveButton").isDefault()
    dialog.dismiss()


async def test_folders_in_the_home_folder_are_described_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "al"
    monkeypatch.setenv("HOME", str(home))
    told = f"Folders you may use: {home}/notes, {tmp_path}/alan. A relative path is inside {home}."
    dialog = dialog_for(request("c1").model_copy(update={"description": told}))
    dialog.show()
    assert dialog.description_label.text() == (
        f"Folders you may use: ~/notes, {tmp_path}/alan. A relative path is inside ~."
    )
    dialog.dismiss()


async def test_an_edit_with_a_problem_blocks_approve_all_but_not_deny() -> None:
    dialog = dialog_for(request("c1"), request("c2", content="second"))

    def act(d: ToolApprovalDialog) -> None:
        approve = find(d, QPushButton, "approveButton")
        apply = find(d, QPushButton, "applyDecisionsButton")
        d.table.selectRow(1)
        find(d, QPushButton, "editArgsButton").click()
        find(d, QPlainTextEdit, "argsEditor").setPlainText("[1, 2]")
        assert d.args_error.text() == 'The arguments must be a JSON object, like {"name": "value"}.'
        assert not approve.isEnabled() and "call 2" in approve.toolTip()
        assert apply.isEnabled()  # the broken call is still set to Deny
        find(d, QComboBox, "decision1").setCurrentIndex(1)
        assert not apply.isEnabled()
        find(d, QPushButton, "denyButton").click()

    await run(dialog, act)
    assert [d.decision for d in dialog.decisions or []] == ["deny", "deny"]


async def test_approve_all_approves_each_call_with_its_edits() -> None:
    dialog = dialog_for(request("c1"), request("c2"))

    def act(d: ToolApprovalDialog) -> None:
        d.table.selectRow(1)
        find(d, QPushButton, "editArgsButton").click()
        find(d, QPlainTextEdit, "argsEditor").setPlainText(
            '{"path": "other.txt", "content": "changed"}'
        )
        find(d, QPushButton, "approveButton").click()

    await run(dialog, act)
    decisions = dialog.decisions or []
    assert [(d.call_id, d.decision, d.args) for d in decisions] == [
        ("c1", "approve", None),
        ("c2", "edit", {"path": "other.txt", "content": "changed"}),
    ]


async def test_edited_arguments_cannot_be_allowed_always() -> None:
    dialog = dialog_for(request("c1"))
    dialog.show()
    always = find(dialog, QPushButton, "alwaysAllowButton")
    find(dialog, QPushButton, "editArgsButton").click()
    find(dialog, QPlainTextEdit, "argsEditor").setPlainText('{"path": "x", "content": "y"}')
    assert not always.isEnabled() and "approved once" in always.toolTip()
    find(dialog, QPushButton, "resetArgsButton").click()
    assert always.isEnabled() and '"content": "hello"' in dialog.args_view.toPlainText()
    dialog.dismiss()


async def test_every_control_has_an_accessible_name_or_visible_text() -> None:
    for dialog in (dialog_for(request("c1")), dialog_for(request("c1"), request("c2"))):
        dialog.show()
        unnamed = [
            w.objectName() or type(w).__name__
            for w in dialog.findChildren(QWidget)
            if w.isVisible()
            and w.focusPolicy() & Qt.FocusPolicy.TabFocus
            and not w.accessibleName()
            and not (hasattr(w, "text") and w.text())
        ]
        assert unnamed == []
        dialog.dismiss()


async def test_long_arguments_are_shown_whole_and_unwrapped() -> None:
    content = "x" * 100_000
    dialog = dialog_for(request("c1", content=content))
    dialog.show()
    assert dialog.args_view.lineWrapMode() == dialog.args_view.LineWrapMode.NoWrap
    assert f'"content": "{content}"' in dialog.args_view.toPlainText()
    short = dialog_for(request("c2"))
    short.show()
    assert short.args_view.lineWrapMode() == short.args_view.LineWrapMode.WidgetWidth
    dialog.dismiss()
    short.dismiss()


async def test_a_batch_row_can_allow_always_in_the_thread_or_for_the_tool() -> None:
    dialog = dialog_for(request("c1"), request("c2"), request("c3"))

    def act(d: ToolApprovalDialog) -> None:
        find(d, QComboBox, "decision0").setCurrentIndex(2)
        find(d, QComboBox, "decision1").setCurrentIndex(3)
        assert "Always allow this tool: write_note runs without asking in every thread" in (
            d.scope_help.text()
        )
        find(d, QPushButton, "applyDecisionsButton").click()

    await run(dialog, act)
    assert [(d.decision, d.scope) for d in dialog.decisions or []] == [
        ("always", "thread"),
        ("always", "tool"),
        ("deny", "thread"),
    ]
