"""``ToolApprovalDialog``: asks a person about the tool calls a paused run wants to make.

One call: its tool, what the tool does, the permissions it uses, the exact arguments as
highlighted JSON (editable, checked against the tool before Approve is enabled), the
request's note and preview, a deny reason the model reads, and Approve / Deny / Always allow.
Bidi controls and other invisible characters in what the call brings show as escapes (in
the JSON) or as their code point, such as ⟨U+202E⟩.
Several calls: one row per call with a decision each, the selected call's details below, and
Approve all / Deny all / Use these decisions.

Deny is the default button and Esc denies. Closing the dialog (or the window under it)
decides nothing: :attr:`decisions` stays ``None`` and the run keeps waiting.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.core.tools import ApprovalDecision, ApprovalRequest, ArgumentRule, Tool
from app.core.tools.argument_rules import shown_paths
from app.text.hidden_chars import mark_hidden
from app.ui.approvals._calls import Choice, PendingCall
from app.ui.approvals._look import SHEET, CallCard
from app.ui.approvals._render import check_args, code_html, escape, pretty_json, wraps
from app.ui.approvals._scoped import (
    argument_decision,
    callers_of,
    heading_for,
    rule_choice,
    rule_for,
    scope_explained,
)
from app.ui.approvals._table import calls_table
from app.ui.icons import icon, icon_button
from app.ui.theme import roles

__all__ = ["DISMISSED", "ToolApprovalDialog"]

DISMISSED = 2
"""The dialog's result when it was closed without a decision."""


def _dark(widget: QWidget) -> bool:
    return widget.palette().color(QPalette.ColorRole.Window).lightness() < 128


class ToolApprovalDialog(QDialog):
    """The approval dialog; see the module docstring. ``tools`` maps a tool's name to the
    offered tool (for checking edited arguments)."""

    def __init__(
        self,
        parent: QWidget | None,
        requests: list[ApprovalRequest],
        *,
        thread_title: str,
        tools: dict[str, Tool[..., Any] | None],
        own_agent: str | None = None,
        title: str | None = None,
    ) -> None:
        super().__init__(parent)
        self._title = title
        """The dialog's title when it is not the calls' own (a call asked through the API)."""
        self.own_agent = own_agent
        """The thread's stored agent, whose rule the dialog offers (``None``: built-in)."""
        self.setObjectName("toolApprovalDialog")
        self.setStyleSheet(SHEET)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.batch = len(requests) > 1
        self.calls = [PendingCall(r, tools.get(r.tool)) for r in requests]
        self.decisions: list[ApprovalDecision] | None = None
        self._current = 0
        self._rule: ArgumentRule | None = None
        self._dark = _dark(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(8)
        self._build_heading(layout, len(requests))
        self.table = self._build_table() if self.batch else None
        if self.table is not None:
            layout.addWidget(self.table)
        self._build_details(layout, thread_title)
        self._build_buttons(layout)
        if self.table is not None:
            self.table.selectRow(0)
            self.table.currentCellChanged.connect(self._row_changed)
        self._show_call(0)
        self.resize(640, 800 if self.batch else 680)

    # Building ------------------------------------------------------------------------

    def _build_heading(self, layout: QVBoxLayout, count: int) -> None:
        title = self._title or heading_for([c.request for c in self.calls], self.own_agent)
        self.setWindowTitle(title)
        self.setAccessibleName(title)
        row = QHBoxLayout()
        row.setSpacing(8)
        mark = QLabel(self)
        mark.setObjectName("approvalMark")
        mark.setPixmap(icon("shield-keyhole-line").pixmap(22, 22))
        mark.setAccessibleName("Permission needed")
        heading = QLabel(title, self)
        heading.setObjectName("approvalTitle")
        heading.setStyleSheet("font-size: 16px; font-weight: 600;")
        row.addWidget(mark)
        row.addWidget(heading, 1)
        layout.addLayout(row)
        intro = QLabel(
            "The model asked for these calls at once. Choose what happens to each, or decide "
            "for all of them; the selected call's details are shown below."
            if self.batch
            else "Nothing runs until you decide.",
            self,
        )
        intro.setWordWrap(True)
        intro.setObjectName("approvalIntro")
        layout.addWidget(intro)

    def _build_table(self) -> QTableWidget:
        callers = callers_of([c.request for c in self.calls], self.own_agent)
        return calls_table(self, self.calls, self._choices_changed, callers)

    def _build_details(self, layout: QVBoxLayout, thread_title: str) -> None:
        self._build_call_head(layout, thread_title)
        self._build_args(layout)
        self._build_preview(layout)
        self._build_reason(layout)
        self._build_scope(layout)

    def _build_call_head(self, layout: QVBoxLayout, thread_title: str) -> None:
        card = CallCard(self, thread_title)
        self.name_label = card.name_label
        self.permissions_label = card.permissions_label
        self.description_label = card.description_label
        layout.addWidget(card)
        self.note_label = QLabel(self)
        self.note_label.setObjectName("approvalNote")
        self.note_label.setWordWrap(True)
        self.note_label.setStyleSheet(f"color: {roles(self._dark).warning};")
        layout.addWidget(self.note_label)

    def _build_args(self, layout: QVBoxLayout) -> None:
        args_head = QHBoxLayout()
        self.args_caption = QLabel("Arguments (exactly what will run):", self)
        self.args_caption.setObjectName("argsCaption")
        self.edit_button = QPushButton("Edit", self)
        self.edit_button.setObjectName("editArgsButton")
        icon_button(
            self.edit_button,
            "edit-line",
            "Edit the arguments",
            "Change the arguments before they run",
        )
        self.edit_button.setAutoDefault(False)
        self.edit_button.clicked.connect(self._toggle_edit)
        self.reset_button = QPushButton("Undo edits", self)
        self.reset_button.setObjectName("resetArgsButton")
        icon_button(
            self.reset_button,
            "arrow-go-back-line",
            "Undo edits",
            "Go back to the model's arguments",
        )
        self.reset_button.setAutoDefault(False)
        self.reset_button.clicked.connect(self._reset_edit)
        args_head.addWidget(self.args_caption, 1)
        args_head.addWidget(self.reset_button)
        args_head.addWidget(self.edit_button)
        layout.addLayout(args_head)
        self.args_view = QTextBrowser(self)
        self.args_view.setObjectName("argsView")
        self.args_view.setAccessibleName("Arguments")
        self.args_view.setMinimumHeight(90)
        self.args_editor = QPlainTextEdit(self)
        self.args_editor.setObjectName("argsEditor")
        self.args_editor.setAccessibleName("Edit the arguments as JSON")
        self.args_editor.setTabChangesFocus(True)
        self.args_editor.textChanged.connect(self._edited)
        mono = self.args_view.font()
        mono.setFamily("monospace")
        mono.setStyleHint(mono.StyleHint.Monospace)
        self.args_editor.setFont(mono)
        layout.addWidget(self.args_view, 2)
        layout.addWidget(self.args_editor, 2)
        layout.addSpacing(4)
        self.args_error = QLabel(self)
        self.args_error.setObjectName("argsError")
        self.args_error.setWordWrap(True)
        self.args_error.setStyleSheet(f"color: {roles(self._dark).danger};")
        layout.addWidget(self.args_error)

    def _build_preview(self, layout: QVBoxLayout) -> None:
        self.preview_caption = QLabel(self)
        self.preview_caption.setObjectName("previewCaption")
        self.preview_view = QTextBrowser(self)
        self.preview_view.setObjectName("approvalPreview")
        self.preview_view.setAccessibleName("What the call would change")
        layout.addWidget(self.preview_caption)
        layout.addWidget(self.preview_view, 2)

    def _build_reason(self, layout: QVBoxLayout) -> None:
        reason_row = QHBoxLayout()
        reason_label = QLabel("Reason if you deny (the model sees it):", self)
        reason_label.setObjectName("denyReasonLabel")
        self.reason = QLineEdit(self)
        self.reason.setObjectName("denyReason")
        self.reason.setAccessibleName("Reason if you deny, shown to the model")
        self.reason.setPlaceholderText("optional")
        self.reason.textEdited.connect(self._reason_edited)
        reason_label.setBuddy(self.reason)
        reason_row.addWidget(reason_label)
        reason_row.addWidget(self.reason, 1)
        layout.addLayout(reason_row)

    def _build_scope(self, layout: QVBoxLayout) -> None:
        scope_row = QHBoxLayout()
        self.scope_caption = QLabel("Always allow:", self)
        self.scope_caption.setObjectName("alwaysAllowCaption")
        self.scope_thread = QRadioButton("in this thread", self)
        self.scope_thread.setObjectName("alwaysInThread")
        self.scope_tool = QRadioButton("for this tool", self)
        self.scope_tool.setObjectName("alwaysForTool")
        self.scope_argument = QRadioButton(self)
        self.scope_argument.setObjectName("alwaysForArgument")
        self.scope_thread.setChecked(True)
        self._scopes = QButtonGroup(self)
        self._scopes.addButton(self.scope_thread)
        self._scopes.addButton(self.scope_tool)
        self._scopes.addButton(self.scope_argument)
        self._scopes.buttonToggled.connect(self._explain_scope)
        scope_row.addWidget(self.scope_caption)
        scope_row.addWidget(self.scope_thread)
        scope_row.addWidget(self.scope_tool)
        scope_row.addWidget(self.scope_argument)
        scope_row.addStretch(1)
        layout.addLayout(scope_row)
        self.scope_help = QLabel(self)
        self.scope_help.setObjectName("alwaysAllowHelp")
        self.scope_help.setWordWrap(True)
        self.scope_help.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        layout.addWidget(self.scope_help)
        for widget in (self.scope_caption, self.scope_thread, self.scope_tool, self.scope_argument):
            widget.setVisible(not self.batch)

    def _build_buttons(self, layout: QVBoxLayout) -> None:
        bar = QFrame(self)
        bar.setObjectName("approvalButtons")
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 12, 0, 0)
        row.setSpacing(8)
        self.always_button = QPushButton("Always allow", self)
        self.always_button.setObjectName("alwaysAllowButton")
        icon_button(self.always_button, "shield-check-line", "Always allow", self._ALWAYS_TIP)
        self.always_button.setAutoDefault(False)
        self.always_button.clicked.connect(self._always)
        self.apply_button = QPushButton("Use these decisions", self)
        self.apply_button.setObjectName("applyDecisionsButton")
        icon_button(
            self.apply_button,
            "check-double-line",
            "Use these decisions",
            "Run or deny each call as chosen in its row",
        )
        self.apply_button.setAutoDefault(False)
        self.apply_button.clicked.connect(self._finish_batch)
        approve = "Approve all" if self.batch else "Approve"
        self.approve_button = QPushButton(approve, self)
        self.approve_button.setObjectName("approveButton")
        icon_button(self.approve_button, "check-line", approve, self._approve_tip())
        self.approve_button.setAutoDefault(False)
        self.approve_button.clicked.connect(self._approve)
        deny = "Deny all" if self.batch else "Deny"
        self.deny_button = QPushButton(deny, self)
        self.deny_button.setObjectName("denyButton")
        icon_button(self.deny_button, "close-line", deny, self._deny_tip(), "danger")
        self.deny_button.setDefault(True)
        self.deny_button.clicked.connect(self.reject)
        if self.batch:
            self.always_button.hide()
            row.addWidget(self.apply_button)
        else:
            self.apply_button.hide()
            row.addWidget(self.always_button)
        row.addStretch(1)
        row.addWidget(self.approve_button)
        row.addWidget(self.deny_button)
        layout.addWidget(bar)
        self.deny_button.setFocus()

    _ALWAYS_TIP = "Run this call now, and calls like it without asking, as chosen above"

    def _approve_tip(self) -> str:
        return "Run every call once" if self.batch else "Run this call once"

    def _deny_tip(self) -> str:
        return "Run none of them (Esc)" if self.batch else "Do not run it (Esc)"

    # Showing one call ----------------------------------------------------------------

    def _show_call(self, index: int) -> None:
        self._store_editor()
        self._current = index
        call = self.calls[index]
        request = call.request
        first = request.description.splitlines()[0] if request.description else ""
        line = mark_hidden(shown_paths(first))
        tool = mark_hidden(request.tool)
        self.name_label.setText(f"<b>{escape(tool)}</b>")
        self.name_label.setAccessibleName(f"{tool}: {line}")
        self.description_label.setText(line)
        self.description_label.setVisible(bool(line))
        uses = mark_hidden(", ".join(request.permissions)) or "no special permissions"
        self.permissions_label.setText(f"Uses: {uses}")
        self.note_label.setText(mark_hidden(request.note))
        self.note_label.setVisible(bool(request.note))
        self._render_args()
        preview = request.preview
        if preview is None:
            self.preview_caption.hide()
            self.preview_view.hide()
        else:
            what = "What it would change" if preview.format == "diff" else "What it would do"
            caption = f"{what}: {mark_hidden(preview.title)}" if preview.title else f"{what}:"
            if preview.truncated:
                caption += " (cut short)"
            self.preview_caption.setText(caption)
            self._show_code(self.preview_view, mark_hidden(preview.text), preview.format)
            self.preview_caption.show()
            self.preview_view.show()
        self.reason.setText(call.reason)
        self._explain_scope()
        self._update_buttons()

    def _show_code(self, view: QTextBrowser, text: str, kind: str) -> None:
        """Show ``text`` in ``view``, highlighted (unless plain text), wrapped when short."""
        view.setLineWrapMode(
            QTextBrowser.LineWrapMode.WidgetWidth
            if wraps(text)
            else QTextBrowser.LineWrapMode.NoWrap
        )
        if kind == "text":
            view.setPlainText(text)
        else:
            view.setHtml(code_html(text, kind, dark=self._dark))

    def _render_args(self) -> None:
        call = self.calls[self._current]
        editing = call.editing is not None
        self.args_view.setVisible(not editing)
        self.args_editor.setVisible(editing)
        self.edit_button.setText("Done" if editing else "Edit")
        self.edit_button.setEnabled(call.tool is not None)
        self.reset_button.setVisible(call.edited is not None or editing)
        if editing:
            text = call.editing or ""
            self.args_editor.setLineWrapMode(
                QPlainTextEdit.LineWrapMode.WidgetWidth
                if wraps(text)
                else QPlainTextEdit.LineWrapMode.NoWrap
            )
            self.args_editor.blockSignals(True)
            self.args_editor.setPlainText(text)
            self.args_editor.blockSignals(False)
        args = call.edited if call.edited is not None else call.request.args
        self._show_code(self.args_view, pretty_json(args), "json")
        edited = " — edited by you" if call.edited is not None else ""
        self.args_caption.setText(f"Arguments (exactly what will run){edited}:")
        self.args_error.setText(call.problem)
        self.args_error.setVisible(bool(call.problem))

    def _explain_scope(self, *_args: object) -> None:
        call = self.calls[self._current]
        request, spec = call.request, call.tool.rule if call.tool is not None else None
        self._rule = None if self.batch else rule_for(request, self.own_agent, spec)
        self.scope_argument.setVisible(self._rule is not None)
        if self._rule is not None:
            self.scope_argument.setText(rule_choice(self._rule, spec))
            self.scope_argument.setAccessibleName(self._rule.offer(spec))
        elif self.scope_argument.isChecked():
            self.scope_thread.setChecked(True)
        explained = scope_explained(request, self._rule, spec, self.own_agent, batch=self.batch)
        self.scope_help.setText(explained)

    # Editing -------------------------------------------------------------------------

    def _toggle_edit(self) -> None:
        call = self.calls[self._current]
        if call.editing is None:
            args = call.edited if call.edited is not None else call.request.args
            call.editing = pretty_json(args)
            self._render_args()
            self.args_editor.setFocus()
            return
        value, problem = check_args(call.tool, call.editing)
        if value is None:
            call.problem = problem
        else:
            call.edited = None if value == call.request.args else value
            call.editing, call.problem = None, ""
        self._render_args()
        self._update_buttons()

    def _reset_edit(self) -> None:
        call = self.calls[self._current]
        call.edited, call.editing, call.problem = None, None, ""
        self._render_args()
        self._update_buttons()

    def _edited(self) -> None:
        call = self.calls[self._current]
        call.editing = self.args_editor.toPlainText()
        value, call.problem = check_args(call.tool, call.editing)
        if value is not None:
            call.edited = None if value == call.request.args else value
        self.args_error.setText(call.problem)
        self.args_error.setVisible(bool(call.problem))
        self._update_buttons()

    def _store_editor(self) -> None:
        if self.calls and self.calls[self._current].editing is not None:
            self.calls[self._current].editing = self.args_editor.toPlainText()

    def _reason_edited(self, text: str) -> None:
        self.calls[self._current].reason = text

    def _row_changed(self, row: int, *_args: object) -> None:
        self._show_call(max(row, 0))

    def _choices_changed(self, *_args: object) -> None:
        if self.table is None:
            return
        for row, call in enumerate(self.calls):
            combo = self.table.cellWidget(row, 2)
            if isinstance(combo, QComboBox):
                call.choice = combo.currentData()
        self._update_buttons()

    def _update_buttons(self) -> None:
        blocked = [i for i, c in enumerate(self.calls) if c.problem]
        self.approve_button.setEnabled(not blocked)
        edited = self.calls[self._current].edited is not None
        self.always_button.setEnabled(not blocked and not edited)
        self.always_button.setToolTip(
            "Edited arguments are approved once; undo the edits to allow the tool always."
            if edited
            else self._ALWAYS_TIP
        )
        running = [i for i in blocked if self.calls[i].choice != "deny"]
        self.apply_button.setEnabled(not running)
        if blocked:
            numbers = ", ".join(str(i + 1) for i in blocked)
            self.approve_button.setToolTip(f"Fix the arguments of call {numbers} first.")
        else:
            self.approve_button.setToolTip(self._approve_tip())

    # Deciding ------------------------------------------------------------------------

    def _decision(self, call: PendingCall, choice: Choice) -> ApprovalDecision:
        call_id = call.request.call_id
        if choice == "deny":
            return ApprovalDecision(
                call_id=call_id, decision="deny", reason=call.reason.strip() or None
            )
        if call.edited is not None:
            return ApprovalDecision(call_id=call_id, decision="edit", args=call.edited)
        if choice == "approve":
            return ApprovalDecision(call_id=call_id, decision="approve")
        return ApprovalDecision(call_id=call_id, decision="always", scope=choice)

    def _approve(self) -> None:
        self._store_editor()
        if any(c.problem for c in self.calls):
            return
        self._finish([self._decision(c, "approve") for c in self.calls])

    def _always(self) -> None:
        call = self.calls[0]
        if call.problem or call.edited is not None:
            return
        if self.scope_argument.isChecked() and self._rule is not None:
            self._finish([argument_decision(call.request, self._rule)])
            return
        scope: Choice = "tool" if self.scope_tool.isChecked() else "thread"
        self._finish([self._decision(call, scope)])

    def _finish_batch(self) -> None:
        self._store_editor()
        if any(c.problem and c.choice != "deny" for c in self.calls):
            return
        self._finish([self._decision(c, c.choice) for c in self.calls])

    def _finish(self, decisions: list[ApprovalDecision]) -> None:
        self.decisions = decisions
        self.accept()

    def reject(self) -> None:
        """Deny (the Deny button, Esc): every call is denied with its reason."""
        if self.decisions is None and self.result() != DISMISSED:
            self.decisions = [self._decision(c, "deny") for c in self.calls]
        super().reject()

    def dismiss(self) -> None:
        """Close without deciding anything (the window is closing)."""
        if self.isVisible():
            self.done(DISMISSED)

    def showEvent(self, event: QShowEvent) -> None:
        """Open with the focus on Deny, the safe answer."""
        super().showEvent(event)
        self.deny_button.setFocus()

    def closeEvent(self, event: QCloseEvent) -> None:
        """The title bar's close button decides nothing: the calls stay pending."""
        event.accept()
        self.dismiss()
