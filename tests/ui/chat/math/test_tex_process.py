"""The child process formulas are laid out in: it answers what the app would, a formula over
its time limit has it stopped (and the next formula gets a new one), a killed child is
replaced, a formula nested too deep is refused before layout, and a busy child ends when the
app is killed."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from app.text.formula_svg import FormulaSvg, formula_svg
from app.ui.chat.math.tex_process import TexProcess
from tests.core.children import child_outlives_killed_parent

FRACTION = (r"\frac{a}{b}", True, 16.0, "#1f2328")


def test_the_child_lays_a_formula_out_as_the_app_would() -> None:
    process = TexProcess()
    try:
        laid = process.svg(FRACTION, 30)
        assert isinstance(laid, FormulaSvg)
        assert laid == formula_svg(*FRACTION)  # the same SVG and box, byte for byte
        assert "<svg" in laid.svg and laid.width > 0 and laid.ascent > 0
        broken = process.svg((r"\frac{1}{", False, 16.0, "#000000"), 30)
        assert isinstance(broken, str) and broken.startswith("The formula could not be read")
        assert process.started == 1 and not process.unavailable  # one child for all
    finally:
        process.close()


def test_a_formula_over_the_time_limit_stops_the_child_and_the_next_gets_a_new_one() -> None:
    process = TexProcess()
    try:
        process.start()
        slow = " + ".join(rf"\frac{{x_{{{i}}}}}{{y^{{{i}}}}}" for i in range(60))
        assert len(slow) < 2000  # typeset, not refused for its length
        assert process.svg((slow, True, 16.0, "#000000"), 0.001) == (
            "The formula took longer than 0.001 s."
        )
        assert isinstance(process.svg(FRACTION, 30), FormulaSvg)
        assert process.started == 2
    finally:
        process.close()


def test_a_killed_child_is_replaced() -> None:
    process = TexProcess()
    try:
        process.start()
        assert process._process is not None and process._process.pid is not None
        os.kill(process._process.pid, signal.SIGKILL)
        process._process.join(5)
        assert isinstance(process.svg(FRACTION, 30), FormulaSvg)
        assert process.started == 2
    finally:
        process.close()


def test_closing_stops_the_child() -> None:
    process = TexProcess()
    process.start()
    child = process._process
    assert child is not None and child.is_alive()
    process.close()
    child.join(5)
    assert not child.is_alive()


def _continued_fraction(levels: int) -> str:
    tex = "x"
    for _ in range(levels):
        tex = rf"\frac{{1}}{{1+{tex}}}"
    return tex


def test_a_formula_nested_too_deep_is_refused_by_its_nesting_without_a_new_child() -> None:
    deep = _continued_fraction(10)
    assert len(deep) == 121  # took 12.6 s to lay out
    process = TexProcess()
    try:
        answer = process.svg((deep, True, 16.0, "#000000"), 600)
        assert answer == (
            "The formula is nested 10 levels deep; Parley typesets formulas nested at most 8 deep."
        )
        assert isinstance(process.svg(FRACTION, 30), FormulaSvg)
        assert process.started == 1
    finally:
        process.close()


_KILLED_PARENT = r"""
from app.ui.chat.math.tex_process import TexProcess
tex = "x"
for _ in range(8):
    tex = r"\frac{1}{1+" + tex + "}"
slow = " + ".join([tex] * 20)
process = TexProcess()
process.start()
print(process._process.pid, flush=True)
process.svg((slow, True, 16.0, "#000000"), 3600)
"""


def test_a_busy_child_ends_when_the_app_is_killed(tmp_path: Path) -> None:
    assert not child_outlives_killed_parent(_KILLED_PARENT, tmp_path)
