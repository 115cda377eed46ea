"""What the window says when a delegate agent asks: the approval dialog names it and the agent
that asked it, the budget meter's tooltip says who spent what of the turn's budget, and the
budget pause says whose step it is."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from app.core.budget import BudgetLimits, BudgetUsage
from app.core.graph.budget_pause import BudgetPause
from app.core.tools import ApprovalRequest, args_fingerprint
from app.services.events import BudgetPaused
from app.tools.files import file_tools
from app.ui.approvals import ToolApprovalDialog
from app.ui.budget.meter import BudgetMeter
from app.ui.budget.pause_panel import pause_sentence


def asked(call_id: str, agent: str | None, asked_by: str | None, **args: str) -> ApprovalRequest:
    return ApprovalRequest(
        call_id=call_id,
        tool="write_file",
        args=dict(args),
        fingerprint=args_fingerprint(args),
        thread_id="t1",
        agent=agent,
        asked_by=asked_by,
    )


def test_the_dialog_names_the_delegate_and_who_asked_it(qtbot: QtBot) -> None:
    path = str(Path.home() / "notes" / "oslo.txt")
    tools = {t.name: t for t in file_tools([Path.home()])}  # write_file declares its path
    dialog = ToolApprovalDialog(
        None,
        [asked("w1", "Researcher", "Parley", path=path)],
        thread_title="Trip",
        tools={"write_file": tools["write_file"]},
    )
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == "Researcher, asked by Parley, wants to write_file"
    assert dialog.scope_argument.text() == "Researcher to write inside ~/notes"  # its own rule
    dialog.scope_argument.setChecked(True)
    dialog.always_button.click()
    [decision] = dialog.decisions or []
    assert (decision.decision, decision.scope) == ("always", "argument")
    assert decision.rule is not None and decision.rule.value == str(Path.home() / "notes")
    assert decision.rule.agent == "Researcher"


def test_a_batch_from_one_delegate_and_a_hostile_name_read_plainly(qtbot: QtBot) -> None:
    two = [
        asked("a", "Re\u202esearcher", "Parley", path="/x"),
        asked("b", "Re\u202esearcher", "Parley", path="/y"),
    ]
    dialog = ToolApprovalDialog(None, two, thread_title="Trip", tools={})
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == "Re⟨U+202E⟩searcher, asked by Parley, wants to run 2 tools"
    assert not dialog.scope_argument.isVisible()  # a batch offers no argument rule
    own = ToolApprovalDialog(None, [asked("c", None, None, path="/x")], thread_title="T", tools={})
    qtbot.addWidget(own)
    assert own.windowTitle() == "Allow Parley to run a tool?"


def test_the_meter_says_which_agent_spent_what(qtbot: QtBot) -> None:
    meter = BudgetMeter()
    qtbot.addWidget(meter)
    usage = BudgetUsage(model_calls=4, tool_calls=2, tokens=900)
    by_agent = {
        "": BudgetUsage(model_calls=2, tool_calls=1, tokens=400),
        "Researcher": BudgetUsage(model_calls=2, tool_calls=1, tokens=500),
    }
    meter.show_run(usage, BudgetLimits(max_model_calls=8), by_agent=by_agent)
    tip = meter.toolTip()
    assert "<b>By agent</b>" in tip
    assert "<td>Parley</td><td>&nbsp;&nbsp;2 model calls, 1 tool call, 400 tokens</td>" in tip
    assert "<td>Researcher</td><td>&nbsp;&nbsp;2 model calls, 1 tool call, 500 tokens</td>" in tip
    assert meter.accessibleDescription().endswith(
        "; Researcher: 2 model calls, 1 tool call, 500 tokens"
    )
    meter.show_run(usage, BudgetLimits(max_model_calls=8), by_agent={"": usage})
    assert "By agent" not in meter.toolTip()  # only the thread's own agent spent it


def test_a_budget_pause_inside_a_delegate_says_whose_step_it_is() -> None:
    pause = BudgetPause(
        limit="max_model_calls",
        value=2,
        used=2,
        suggested_to=3,
        text="The next step of Researcher (asked by Parley) would go over the budget.",
        agent="Researcher",
        asked_by="Parley",
    )
    _title, body = pause_sentence(BudgetPaused("t1", "i1", pause))
    assert body.startswith(
        "The next step is Researcher's (asked by Parley); the whole turn shares one budget."
    )
