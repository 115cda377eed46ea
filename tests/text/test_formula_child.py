"""The typesetting child's side: what it loads, and its answers."""

from __future__ import annotations

import subprocess
import sys

from app.text.formula_child import answer
from app.text.formula_svg import FormulaSvg


def test_the_typesetting_child_loads_no_qt_and_nothing_of_the_window() -> None:
    """What the child runs (Parley's entry, the child plumbing, its module, a formula laid
    out) without Qt: it loaded PySide6's runtime through the window's package before."""
    code = (
        "import sys\n"
        "import app.__main__, app.core.child_process\n"
        "from app.text.formula_child import answer\n"
        "from app.text.formula_svg import load_typesetter\n"
        "load_typesetter()\n"
        "assert answer((r'\\frac{a}{b}', True, 16.0, '#000000')).svg.startswith('<svg')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')"
        " or m.startswith('app.ui')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_a_formula_is_laid_out_and_a_broken_one_says_why() -> None:
    laid = answer((r"x^2", False, 16.0, "#1f2328"))
    assert isinstance(laid, FormulaSvg) and "<svg" in laid.svg
    broken = answer((r"\frac{1}{", False, 16.0, "#000000"))
    assert isinstance(broken, str) and broken.startswith("The formula could not be read")
