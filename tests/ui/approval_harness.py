"""A window offering tools that need approval, and helpers to drive the approval dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QDialog, QPlainTextEdit, QWidget

from app.core.graph import RunConfig
from app.core.models import ScriptedChatModel
from app.core.state import Message
from app.core.tools import ApprovalPreview, RuleSpec, Tool, tool
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.store import ApprovalRecord, Store
from app.ui.window import MainWindow
from tests.ui.harness import find, press, type_text, wait_until

__all__ = [
    "Recorder",
    "approval_dialog",
    "audit",
    "note_preview",
    "open_tool_window",
    "send",
    "write_note",
]


def note_preview(args: Any) -> ApprovalPreview:
    """A diff of what ``write_note`` would write."""
    lines = "".join(f"+{line}\n" for line in str(args["content"]).splitlines())
    return ApprovalPreview(
        format="diff", title=str(args["path"]), text=f"--- /dev/null\n+++ b/note\n{lines}"
    )


@tool(
    permissions=("files:write",),
    requires_approval=True,
    approval_preview=note_preview,
    rule=RuleSpec("path", "folder"),  # the path decides where it writes; offered by its name
)
def write_note(path: str, content: str) -> str:
    """Write a note to a file on the user's disk.

    Args:
        path: Where the note goes.
        content: The note's text.
    """
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(content + "\n")
    return f"wrote {len(content)} characters to {path}"


class Recorder:
    """A scripted model (from ``turns``) that keeps every input it was given."""

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        self.turns = list(turns)
        self.inputs: list[list[Message]] = []

    def __call__(self, messages: list[Message]) -> dict[str, Any]:
        self.inputs.append(list(messages))
        return self.turns.pop(0) if self.turns else {"text": "Nothing more to say."}

    def last_tool_results(self) -> list[str]:
        """The tool results in the newest input, as text."""
        out = []
        for message in self.inputs[-1]:
            out.extend(str(r.output) for r in message.tool_results())
        return out


async def open_tool_window(
    data_dir: Path,
    model: Recorder | ScriptedChatModel,
    tools: list[Tool[..., Any]] | None = None,
    *,
    secret_resolver: Any = None,
    store: Store | None = None,
) -> MainWindow:
    """A real window on ``data_dir`` whose default model is ``model`` (a recorder is replayed
    by a scripted model), offering ``tools``; ``store``: an opened store to use (the window
    closes it)."""
    scripted = model if isinstance(model, ScriptedChatModel) else ScriptedChatModel(model)

    def resolve(spec: str) -> ScriptedChatModel:
        return scripted

    workspace = await Workspace.open(
        data_dir,
        resolve_model=resolve,
        secret_resolver=secret_resolver or (lambda ref: "unused"),
        tools=tools if tools is not None else [write_note],
        store=store,
        run_config=RunConfig(
            budget_pause=True, tool_permissions=frozenset({"files:write", "net:send"})
        ),
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    window = MainWindow(workspace)
    window.show()
    await window.start(preload=False)
    return window


async def send(window: QWidget, text: str) -> None:
    """Type ``text`` in the composer and press Enter."""
    from PySide6.QtCore import Qt

    composer = find(window, QPlainTextEdit, "composer")
    type_text(composer, text)
    press(composer, Qt.Key.Key_Return)


def _open_dialog(window: QWidget) -> QDialog | None:
    for dialog in window.findChildren(QDialog, "toolApprovalDialog"):
        if dialog.isVisible():
            return dialog
    return None


async def approval_dialog(window: QWidget, timeout: float = 10.0) -> Any:
    """The approval dialog once it is open."""
    return await wait_until(lambda: _open_dialog(window), timeout, "the approval dialog")


async def audit(window: MainWindow, thread_id: str) -> list[tuple[str, str, str, str | None]]:
    """The thread's audit log, oldest first: (tool, decision, scope, reason)."""
    records: list[ApprovalRecord] = await window.workspace._store.list_approvals(
        thread_id=thread_id
    )
    return [(r.tool, r.decision, r.scope, r.reason) for r in reversed(records)]
