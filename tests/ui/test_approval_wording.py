"""What the approval dialog says about who asks and what each "always" choice covers: the
thread's own agent or the delegates by name (never "Parley" for another agent), the agents a
choice covers, and the arguments a rule leaves unchecked, or that it pins every one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QLabel, QRadioButton, QTableWidget
from pytestqt.qtbot import QtBot

from app.core.tools import ApprovalRequest, Tool, args_fingerprint, tool
from app.tools.files import file_tools
from app.ui.approvals import ToolApprovalDialog
from tests.ui.harness import find


@tool(requires_approval=True)
def mail_send(to: str, cc: str, subject: str, body: str) -> str:
    """Send a mail (declares no deciding argument, as an MCP tool)."""
    return "sent"


def asked(tool_name: str, call_id: str, agent: str | None = None, **args: Any) -> ApprovalRequest:
    return ApprovalRequest(
        call_id=call_id,
        tool=tool_name,
        args=args,
        fingerprint=args_fingerprint(args),
        thread_id="t1",
        agent=agent,
        asked_by="Writer" if agent else None,
    )


def dialog(
    qtbot: QtBot, requests: list[ApprovalRequest], own: str | None, tools: dict[str, Any]
) -> ToolApprovalDialog:
    shown = ToolApprovalDialog(None, requests, thread_title="Trip", tools=tools, own_agent=own)
    qtbot.addWidget(shown)
    shown.show()
    return shown


def texts(shown: ToolApprovalDialog) -> tuple[str, str, QRadioButton]:
    title = find(shown, QLabel, "approvalTitle").text()
    return (
        title,
        find(shown, QLabel, "alwaysAllowHelp").text(),
        find(shown, QRadioButton, "alwaysForArgument"),
    )


def test_a_mail_tool_of_the_threads_agent_is_offered_only_exactly_these_arguments(
    qtbot: QtBot,
) -> None:
    mail = asked(
        "mail_send", "m1", to="friend@home.example", cc="me@home.example", subject="Hi", body="x"
    )
    shown = dialog(qtbot, [mail], "Writer", {"mail_send": mail_send})
    title, help_text, scoped = texts(shown)
    assert title == "Allow Writer to run a tool?"
    assert scoped.isVisible()
    assert scoped.text() == "Writer to call mail_send with exactly these arguments"
    assert "only when Writer calls it" in help_text
    assert "for every agent, now and later" in help_text  # "for this tool"
    assert "Every argument must be exactly as now." in help_text
    assert "cc is" not in scoped.text() and "cc is" not in help_text


def test_a_declared_path_rule_names_the_arguments_it_leaves_free(qtbot: QtBot) -> None:
    writer: dict[str, Tool[..., Any]] = {t.name: t for t in file_tools([Path.home()])}
    path = str(Path.home() / "notes" / "oslo.txt")
    shown = dialog(
        qtbot,
        [asked("write_file", "w1", path=path, content="hi")],
        None,
        {"write_file": writer["write_file"]},
    )
    title, help_text, scoped = texts(shown)
    assert title == "Allow Parley to run a tool?"  # the built-in agent is Parley
    assert scoped.text() == "writing inside ~/notes"
    assert "Other arguments (content) are not checked." in help_text
    assert "in every thread, for every agent." in help_text  # a plain thread's rule


def test_a_batch_of_two_delegates_names_both(qtbot: QtBot) -> None:
    two = [
        asked("mail_send", "a", "Researcher", to="a@x", cc="", subject="", body=""),
        asked("mail_send", "b", "Checker", to="b@x", cc="", subject="", body=""),
    ]
    shown = dialog(qtbot, two, "Writer", {"mail_send": mail_send})
    title, help_text, _scoped = texts(shown)
    assert title == "Researcher and Checker want to run 2 tools"
    assert shown.windowTitle() == title
    assert "only when Researcher calls it" in help_text  # the selected call's asker
    table = find(shown, QTableWidget, "approvalCalls")
    rows = [table.item(row, 0).text() for row in range(table.rowCount())]
    assert rows == ["Researcher: mail_send", "Checker: mail_send"]
