"""The approval dialog shows the bidi controls and invisible characters a call brings: as
JSON escapes in the arguments (the same JSON, still editable), as their code point in the
description, the note, the preview and the batch table."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QPlainTextEdit, QPushButton

from app.core.tools import ApprovalRequest, args_fingerprint
from app.ui.approvals import ToolApprovalDialog
from tests.ui.approval_harness import note_preview, write_note
from tests.ui.harness import find
from tests.ui.test_approval_dialog import run

ARGS = {"path": "report\u202etxt.exe", "content": "a\u2066b\u200bc\u061cd\x9b é 👨\u200d👩\u200d👧"}
"""A name that reads ``reportexe.txt`` and content with an isolate, a zero-width space, an
Arabic letter mark and a C1 control among letters and an emoji joined with U+200D."""

CONTENT = "a\\u2066b\\u200bc\\u061cd\\u009b é 👨\u200d👩\u200d👧"
"""The content as the dialog's JSON shows it."""


def hostile(call_id: str, **args: Any) -> ApprovalRequest:
    values = {**ARGS, **args}
    return ApprovalRequest(
        call_id=call_id,
        tool="write_note",
        description="Writes a note \u202eon your disk\u202c.\nMore.",
        permissions=["files:write"],
        args=values,
        fingerprint=args_fingerprint(values),
        thread_id="t1",
        note="Asked again \u200fnow.",
        preview=note_preview(values),
    )


def dialog_for(*requests: ApprovalRequest) -> ToolApprovalDialog:
    return ToolApprovalDialog(
        None, list(requests), thread_title="Trip\u202e", tools={"write_note": write_note}
    )


async def test_hidden_characters_in_a_call_are_shown_and_the_call_runs_unchanged() -> None:
    dialog = dialog_for(hostile("c1"))
    seen: dict[str, str] = {}

    def act(d: ToolApprovalDialog) -> None:
        seen["args"] = d.args_view.toPlainText()
        seen["name"] = d.name_label.text()
        seen["description"] = d.description_label.text()
        seen["note"] = d.note_label.text()
        seen["thread"] = find(d, QLabel, "approvalThread").text()
        seen["caption"] = d.preview_caption.text()
        seen["preview"] = d.preview_view.toPlainText()
        find(d, QPushButton, "editArgsButton").click()
        seen["editor"] = find(d, QPlainTextEdit, "argsEditor").toPlainText()
        find(d, QPushButton, "editArgsButton").click()  # Done, nothing changed
        find(d, QPushButton, "approveButton").click()

    await run(dialog, act)
    json_text = f'{{\n  "content": "{CONTENT}",\n  "path": "report\\u202etxt.exe"\n}}'
    assert seen == {
        "args": json_text,
        "name": "<b>write_note</b>",
        "description": "Writes a note ⟨U+202E⟩on your disk⟨U+202C⟩.",
        "note": "Asked again ⟨U+200F⟩now.",
        "thread": "Thread: Trip⟨U+202E⟩",
        "caption": "What it would change: report⟨U+202E⟩txt.exe",
        "preview": "--- /dev/null\n+++ b/note\n"
        "+a⟨U+2066⟩b⟨U+200B⟩c⟨U+061C⟩d⟨U+009B⟩ é 👨\u200d👩\u200d👧",
        "editor": json_text,
    }
    decisions = dialog.decisions or []
    assert [(d.decision, d.args) for d in decisions] == [("approve", None)]


async def test_a_batch_row_shows_the_hidden_characters_of_its_arguments() -> None:
    dialog = dialog_for(hostile("c1"), hostile("c2", path="b\u2067"))
    dialog.show()
    assert dialog.table is not None
    rows = [dialog.table.item(row, 1).toolTip() for row in range(2)]
    assert rows == [
        f'path="report\\u202etxt.exe", content="{CONTENT}"',
        f'path="b\\u2067", content="{CONTENT}"',
    ]
    dialog.dismiss()
