"""Every button that shows only an icon is named for a screen reader and explained by a
tooltip: the window's buttons (the composer's row among them) and the approval dialog's,
walked widget by widget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QAbstractButton, QWidget

from app.core.tools import ApprovalRequest, args_fingerprint
from app.ui.approvals import ToolApprovalDialog
from tests.ui.approval_harness import write_note
from tests.ui.harness import Models, close_test_window, open_test_window


def icon_only(root: QWidget) -> list[QAbstractButton]:
    """The visible buttons under ``root`` that show an icon and no text."""
    return [
        b
        for b in root.findChildren(QAbstractButton)
        if b.isVisible() and not b.text().strip() and not b.icon().isNull()
    ]


def unnamed(root: QWidget) -> list[str]:
    """The visible buttons under ``root`` with neither text nor an accessible name, or icon
    buttons without a tooltip."""
    found = []
    for b in root.findChildren(QAbstractButton):
        if not b.isVisible() or b.text().strip():
            continue
        if not b.accessibleName() or (not b.icon().isNull() and not b.toolTip()):
            found.append(b.objectName() or type(b).__name__)
    return found


async def test_every_icon_button_of_the_window_has_a_name_and_a_tooltip(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": "Hi."}]}))
    try:
        shown = {b.objectName(): b.accessibleName() for b in icon_only(window)}
        assert {
            "attachButton": "Attach files",
            "mcpOffersButton": "Add from MCP server",
            "compareButton": "Compare models",
            "sendButton": "Send message",
        }.items() <= shown.items()
        assert unnamed(window) == []
    finally:
        await close_test_window(window)


async def test_every_button_of_the_approval_dialog_is_named() -> None:
    values: dict[str, Any] = {"path": "notes.txt", "content": "hello"}
    request = ApprovalRequest(
        call_id="c1",
        tool="write_note",
        description=write_note.description,
        permissions=["files:write"],
        args=values,
        fingerprint=args_fingerprint(values),
        thread_id="t1",
    )
    for requests in ([request], [request, request.model_copy(update={"call_id": "c2"})]):
        dialog = ToolApprovalDialog(
            None, requests, thread_title="Trip", tools={"write_note": write_note}
        )
        dialog.show()
        try:
            assert dialog.findChildren(QAbstractButton)
            assert unnamed(dialog) == []
        finally:
            dialog.dismiss()


async def test_the_approval_dialogs_choices_show_an_icon_and_say_what_they_do() -> None:
    values: dict[str, Any] = {"path": "notes.txt", "content": "hello"}
    request = ApprovalRequest(
        call_id="c1",
        tool="write_note",
        description=write_note.description,
        permissions=["files:write"],
        args=values,
        fingerprint=args_fingerprint(values),
        thread_id="t1",
    )
    dialog = ToolApprovalDialog(
        None, [request], thread_title="Trip", tools={"write_note": write_note}
    )
    dialog.show()
    try:
        names = ("approveButton", "denyButton", "alwaysAllowButton", "editArgsButton")
        buttons = [dialog.findChild(QAbstractButton, name) for name in names]
        said = [(b.text(), b.accessibleName(), b.toolTip()) for b in buttons if b is not None]
        assert [b is not None and not b.icon().isNull() for b in buttons] == [True] * 4
        assert said[0] == ("Approve", "Approve", "Run this call once")
        assert said[1] == ("Deny", "Deny", "Do not run it (Esc)")
        assert said[3][1] == "Edit the arguments"
    finally:
        dialog.dismiss()
