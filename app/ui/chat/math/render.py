"""Formulas typeset to images, within caps (:mod:`.cache` keeps them).

ziamath lays the LaTeX out (its own MathML layout and its bundled STIX Two Math font) as SVG
paths, in the colour of the text; Qt's SVG renderer paints them onto a ``QImage`` at the
screen's pixel ratio. An inline formula's image is padded so that, set in the middle of the
line (``vertical-align: middle``, which centres an image a little above the baseline), its own
baseline sits on the line's.

A formula that is too long, too big or too slow to typeset, or that ziamath cannot read, is
given back with its ``problem`` instead of an image (and shown as its source). A formula
waited for (:func:`typeset_within`) is typeset on a thread of its own and given up after
:data:`TIME_LIMIT` seconds; the background worker (:mod:`.cache`) keeps one that took longer
as a failure.
"""

from __future__ import annotations

import importlib
import math
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from types import ModuleType

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from app.ui.chat.math.syntax import MathSource

__all__ = [
    "MAX_HEIGHT",
    "MAX_SOURCE",
    "MAX_WIDTH",
    "TIME_LIMIT",
    "MathStyle",
    "Typeset",
    "load_typesetter",
    "typeset_now",
    "typeset_within",
    "warm_up_math",
]

MAX_SOURCE = 2000
"""The longest formula (in characters of LaTeX) that is typeset; a longer one shows as source."""
MAX_WIDTH = 4000
MAX_HEIGHT = 1500
"""The largest image (in pixels at a ratio of 1) a formula may become."""
TIME_LIMIT = 1.0
"""The longest one formula may take to typeset, in seconds."""
SCALE = 1.25
"""How much larger than the text around it a formula's font is set: STIX Two's letters are
smaller than a sans-serif interface font's of the same size."""


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


_LOADING = threading.Lock()


def load_typesetter() -> ModuleType:
    """Import ziamath (once; on any thread: the workers do, so the window never waits for
    its font to load). It finds its font in a way this Python calls deprecated; Python does
    not show that warning outside ``__main__``, and the tests' settings ignore it."""
    with _LOADING:
        module = importlib.import_module("ziamath")
        module.config.svg2 = False  # plain paths: Qt's SVG renderer draws no <symbol>
        return module


def _svg(source: MathSource, style: MathStyle) -> tuple[str, float, float, float]:
    """The formula as SVG, with its width, ascent and descent (pixels at ratio 1)."""
    formula = load_typesetter().Latex(
        source.tex.strip(),
        size=style.size * SCALE,
        color=style.colour,
        inline=not source.display,
    )
    svg = formula.svg()
    box = formula.node.bbox
    margin = formula.margin
    return svg, box.xmax - box.xmin + 2 * margin, box.ymax + margin, -box.ymin + margin


def typeset_now(source: MathSource, style: MathStyle) -> Typeset:
    """Typeset ``source`` on this thread (any thread: it paints only on a ``QImage``)."""
    tex = source.tex.strip()
    if not tex:
        return Typeset(None, "The formula is empty.")
    if len(tex) > MAX_SOURCE:
        return Typeset(None, f"The formula is longer than {MAX_SOURCE} characters.")
    try:
        svg, width, ascent, descent = _svg(source, style)
    except Exception as exc:  # ziamath and its LaTeX reader raise many kinds on bad input
        return Typeset(None, f"The formula could not be read: {type(exc).__name__}.")
    top = bottom = 0.0
    if not source.display:
        half = max(ascent - style.middle, descent + style.middle)
        top, bottom = half - (ascent - style.middle), half - (descent + style.middle)
    height = top + ascent + descent + bottom
    if width <= 0 or height <= 0:
        return Typeset(None, "The formula is empty.")
    if width > MAX_WIDTH or height > MAX_HEIGHT:
        return Typeset(None, "The formula is too big to show.")
    renderer = QSvgRenderer(QByteArray(svg.encode()))
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


def typeset_within(source: MathSource, style: MathStyle, limit: float) -> Typeset:
    """Typeset ``source`` on a thread of its own, waiting at most ``limit`` seconds."""
    return _on_a_worker(source, style, limit)


def _on_a_worker(source: MathSource, style: MathStyle, limit: float) -> Typeset:
    future: Future[Typeset] = Future()

    def work() -> None:
        try:
            future.set_result(typeset_now(source, style))
        except BaseException as exc:  # handed to the waiting thread, which shows the source
            future.set_exception(exc)

    threading.Thread(target=work, name="typeset-math", daemon=True).start()
    try:
        return future.result(timeout=limit)
    except FutureTimeout:
        return Typeset(None, f"The formula took longer than {limit:g} s to typeset.")
    except Exception as exc:
        return Typeset(None, f"The formula could not be typeset: {type(exc).__name__}.")


def warm_up_math() -> None:
    """Import the typesetter and typeset one formula (its font's tables load on first use),
    so the first formula of a reply does not pause the window for it; safe off the GUI
    thread."""
    load_typesetter()
    typeset_now(MathSource("\\frac{a}{b}", "$$"), MathStyle(16.0, "#000000", 4.0))
