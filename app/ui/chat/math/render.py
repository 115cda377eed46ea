"""Formulas typeset to images, within caps (:mod:`.cache` keeps them).

ziamath lays the LaTeX out as SVG paths (:mod:`.formula_svg`; in the background in a child
process, :mod:`.tex_process`); Qt's SVG renderer paints them onto a ``QImage`` at the screen's
pixel ratio. An inline formula's image is padded so that, set in the middle of the line
(``vertical-align: middle``, which centres an image a little above the baseline), its own
baseline sits on the line's.

A formula that is too long, too big or too slow to typeset, or that ziamath cannot read, is
given back with its ``problem`` instead of an image (and shown as its source).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from app.text.formula_svg import MAX_SOURCE, FormulaError, FormulaSvg, formula_svg
from app.ui.chat.math.syntax import MathSource

__all__ = [
    "MAX_HEIGHT",
    "MAX_SOURCE",
    "MAX_WIDTH",
    "TIME_LIMIT",
    "MathStyle",
    "Typeset",
    "paint_formula",
    "typeset_now",
]

MAX_WIDTH = 4000
MAX_HEIGHT = 1500
"""The largest image (in pixels at a ratio of 1) a formula may become."""
TIME_LIMIT = 1.0
"""The longest one formula may take to typeset, in seconds."""


@dataclass(frozen=True)
class MathStyle:
    """How formulas are drawn in a document: the ``size`` of the text around (pixels), its
    ``colour`` (``#rrggbb``), ``middle`` (how far above the baseline Qt centres an image set
    in the middle of a line: half the font's height less its descent) and the screen's
    device pixel ``ratio``."""

    size: float
    colour: str
    middle: float
    ratio: float = 1.0


@dataclass(eq=False)
class Typeset:
    """A typeset formula: its image (sized for the screen's pixel ratio), or why there is
    none (``problem``)."""

    image: QImage | None
    problem: str = ""
    _pixmap: QPixmap | None = None

    def pixmap(self) -> QPixmap:
        """The image as a pixmap, made once (on the GUI thread: documents draw pixmaps
        without converting them each time)."""
        if self._pixmap is None:
            self._pixmap = QPixmap() if self.image is None else QPixmap.fromImage(self.image)
        return self._pixmap

    @property
    def size_in_bytes(self) -> int:
        """About how much memory it holds (the image and its pixmap)."""
        return 0 if self.image is None else 2 * self.image.sizeInBytes()

    @property
    def width(self) -> float:
        """The image's width in the document's pixels (0 without one)."""
        return 0.0 if self.image is None else self.image.deviceIndependentSize().width()

    @property
    def height(self) -> float:
        """The image's height in the document's pixels (0 without one)."""
        return 0.0 if self.image is None else self.image.deviceIndependentSize().height()


def typeset_now(source: MathSource, style: MathStyle) -> Typeset:
    """Typeset ``source`` on this thread (any thread: it paints only on a ``QImage``)."""
    try:
        laid = formula_svg(source.tex, source.display, style.size, style.colour)
    except FormulaError as exc:
        return Typeset(None, exc.problem)
    return paint_formula(laid, source, style)


def paint_formula(laid: FormulaSvg | str, source: MathSource, style: MathStyle) -> Typeset:
    """Paint a formula laid out as SVG (any thread); ``laid`` may instead be why it could not
    be laid out."""
    if isinstance(laid, str):
        return Typeset(None, laid)
    width, ascent, descent = laid.width, laid.ascent, laid.descent
    top = bottom = 0.0
    if not source.display:
        half = max(ascent - style.middle, descent + style.middle)
        top, bottom = half - (ascent - style.middle), half - (descent + style.middle)
    height = top + ascent + descent + bottom
    if width <= 0 or height <= 0:
        return Typeset(None, "The formula is empty.")
    if width > MAX_WIDTH or height > MAX_HEIGHT:
        return Typeset(None, "The formula is too big to show.")
    renderer = QSvgRenderer(QByteArray(laid.svg.encode()))
    if not renderer.isValid():
        return Typeset(None, "The formula could not be drawn.")
    ratio = style.ratio
    image = QImage(
        math.ceil(width * ratio),
        math.ceil(height * ratio),
        QImage.Format.Format_ARGB32_Premultiplied,
    )
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, top * ratio, width * ratio, (ascent + descent) * ratio))
    painter.end()
    image.setDevicePixelRatio(ratio)
    return Typeset(image)
