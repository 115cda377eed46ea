"""The budget meter on its own: what it reads during a run, near a limit, at a pause, and
between runs — text, tooltip, accessible description and bar colour."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.core.budget import BudgetLimits, BudgetUsage
from app.core.graph.budget_pause import BudgetPause
from app.ui.budget.meter import WARN, BudgetMeter
from app.ui.theme import ACCENT


def test_a_running_turn_reads_against_its_limits(qtbot: QtBot) -> None:
    meter = BudgetMeter()
    qtbot.addWidget(meter)
    limits = BudgetLimits(max_model_calls=20, max_tool_calls=40, max_cost=0.5)
    meter.show_run(BudgetUsage(model_calls=3, tool_calls=1, tokens=1234, cost=0.042), limits)
    assert meter.text() == "3/20 calls · 1/40 tools · 1.2k tokens · $0.04"
    assert meter.accessibleDescription() == (
        "This run's budget: Model calls: 3 of 20; Tool calls: 1 of 40; "
        "Tokens: 1,234 (no limit); Cost: $0.04 of $0.50"
    )
    assert "<b>This run's budget</b>" in meter.toolTip()
    assert meter.bar.colour.name() == ACCENT
    assert abs(meter.bar.fraction - 0.15) < 1e-9  # the largest share: 3 of 20 calls


def test_near_a_limit_the_bar_turns_amber_and_between_runs_only_tokens_show(qtbot: QtBot) -> None:
    meter = BudgetMeter()
    qtbot.addWidget(meter)
    meter.show_run(BudgetUsage(model_calls=17, tokens=99), BudgetLimits(max_model_calls=20))
    assert meter.text() == "17/20 calls · 99 tokens"
    assert meter.bar.colour.name() == WARN
    meter.show_total(15320)
    assert meter.text() == "15,320 tokens"
    assert meter.bar.isHidden()
    meter.show_total(0)
    assert meter.text() == "" and meter.toolTip() == ""


def test_a_pause_read_after_a_restart_names_the_limit(qtbot: QtBot) -> None:
    meter = BudgetMeter()
    qtbot.addWidget(meter)
    pause = BudgetPause(
        limit="max_tokens", value=5000, used=5120, suggested_to=7500, text="over the tokens"
    )
    meter.mark_paused(pause)
    assert meter.text() == "Paused · 5,120/5,000 tokens"
    assert meter.accessibleDescription() == (
        "This run is paused at a limit: Tokens: 5,120 of 5,000"
    )
