r"""One formula laid out as SVG by ziamath, without Qt (so a child process can do it).

ziamath lays the LaTeX out (its own MathML layout and its bundled STIX Two Math font) as SVG
paths in the colour of the text. It reads a command it does not know (``\foo``) as a name and
would draw it letter by letter; such a formula is refused here instead, so it is shown as the
source the model wrote. So is one nested deeper than :data:`MAX_NESTING` (groups in groups,
fractions in fractions, roots in roots): ziamath's layout time doubles with each level, so
that 121 characters of nested ``\frac`` took 12 seconds.
"""

from __future__ import annotations

import importlib
import re
import threading
from dataclasses import dataclass
from types import ModuleType

__all__ = [
    "MAX_NESTING",
    "MAX_SOURCE",
    "SCALE",
    "FormulaError",
    "FormulaSvg",
    "formula_svg",
    "load_typesetter",
    "nesting",
]

MAX_SOURCE = 2000
"""The longest formula (in characters of LaTeX) that is typeset; a longer one shows as source."""
MAX_NESTING = 8
"""The deepest a formula may nest (braces, ``\\left``/``\\right``, environments, and fractions,
roots, scripts written without braces); a deeper one shows as source."""
SCALE = 1.25
"""How much larger than the text around it a formula's font is set: STIX Two's letters are
smaller than a sans-serif interface font's of the same size."""

_UNKNOWN = re.compile(r"<m[ion]\b[^>]*>\s*(\\[A-Za-z]+)\s*</m[ion]>")
"""A command the LaTeX reader did not know, left as a name in the MathML it made."""


_TOKEN = re.compile(r"\\(?:[A-Za-z]+|.)|[{}^_]|\s+|[^\\{}^_\s]+", re.DOTALL)
_OPENS = frozenset({"{", "\\left", "\\begin"})
_CLOSES = frozenset({"}", "\\right", "\\end"})
_TAKES_ARGUMENTS = frozenset(
    {"^", "_", "\\frac", "\\dfrac", "\\tfrac", "\\cfrac", "\\binom", "\\sqrt"}
    | {"\\overset", "\\underset", "\\stackrel", "\\overline", "\\underline"}
)
"""Commands that nest what follows them even without braces (``\\sqrt\\sqrt x``)."""


def nesting(tex: str) -> int:
    """How deep ``tex`` nests: groups inside groups, counting a fraction, root or script
    written without braces around its argument as a level too."""
    depth = deepest = chain = 0
    for token in _TOKEN.findall(tex):
        if token.isspace():
            continue
        if token in _OPENS:
            depth += 1
            chain = 0
        elif token in _CLOSES:
            depth = max(0, depth - 1)
            chain = 0
        elif token in _TAKES_ARGUMENTS:
            chain += 1
        else:
            chain = 0
        deepest = max(deepest, depth + chain)
    return deepest


class FormulaError(Exception):
    """Why a formula cannot be typeset, in one sentence (``problem``)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True, slots=True)
class FormulaSvg:
    """A formula as SVG, with its width, ascent and descent (pixels at a ratio of 1)."""

    svg: str
    width: float
    ascent: float
    descent: float


_LOADING = threading.Lock()


def load_typesetter() -> ModuleType:
    """Import ziamath (once; on any thread). It finds its font in a way this Python calls
    deprecated; Python does not show that warning outside ``__main__``, and the tests'
    settings ignore it."""
    with _LOADING:
        module = importlib.import_module("ziamath")
        module.config.svg2 = False  # plain paths: Qt's SVG renderer draws no <symbol>
        return module


def formula_svg(tex: str, display: bool, size: float, colour: str) -> FormulaSvg:
    """``tex`` laid out at ``size`` pixels (before :data:`SCALE`) in ``colour``
    (``#rrggbb``), displayed or set in the line; raises :class:`FormulaError` with the
    reason when it cannot be."""
    tex = tex.strip()
    if not tex:
        raise FormulaError("The formula is empty.")
    if len(tex) > MAX_SOURCE:
        raise FormulaError(f"The formula is longer than {MAX_SOURCE} characters.")
    depth = nesting(tex)
    if depth > MAX_NESTING:
        raise FormulaError(
            f"The formula is nested {depth} levels deep; Parley typesets formulas nested at "
            f"most {MAX_NESTING} deep."
        )
    ziamath = load_typesetter()
    try:
        mathml = ziamath.tex.tex2mml(tex, inline=not display)
    except Exception as exc:  # the LaTeX reader raises many kinds on bad input
        raise FormulaError(f"The formula could not be read: {type(exc).__name__}.") from exc
    unknown = _UNKNOWN.search(mathml)
    if unknown is not None:
        raise FormulaError(f"The formula uses {unknown.group(1)[:40]}, which is not known.")
    try:
        formula = ziamath.Latex(tex, size=size * SCALE, color=colour, inline=not display)
        svg = formula.svg()
    except Exception as exc:  # ziamath's layout raises many kinds on odd input
        raise FormulaError(f"The formula could not be read: {type(exc).__name__}.") from exc
    box = formula.node.bbox
    margin = formula.margin
    return FormulaSvg(svg, box.xmax - box.xmin + 2 * margin, box.ymax + margin, -box.ymin + margin)
