"""Formulas placed in a message's document: each ``math:`` image of its HTML is typeset
(through the shared cache) and added to the document as an image resource before the HTML
is set, so laying the document out never waits for one; a formula that cannot be typeset is
swapped for its source, in code style. A formula wider than the text is scaled to fit."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QFont, QFontInfo, QFontMetricsF, QTextDocument

from app.ui.chat.math.render import MathImages, MathStyle
from app.ui.chat.math.syntax import parse_math_url

__all__ = ["math_style", "typeset_html"]

_TAG = re.compile(r'<img src="(math:[^"]*)" style="vertical-align: middle;" />')
_IMAGE = QTextDocument.ResourceType.ImageResource.value


def math_style(font: QFont, colour: QColor, ratio: float) -> MathStyle:
    """How formulas are drawn beside text in ``font`` and ``colour`` on a screen of ``ratio``."""
    metrics = QFontMetricsF(font)
    size = QFontInfo(font).pixelSize()
    middle = metrics.height() / 2 - metrics.descent()
    return MathStyle(round(size, 2), colour.name(), round(middle, 2), ratio)


def typeset_html(
    doc: QTextDocument,
    text: str,
    images: MathImages,
    style: MathStyle,
    *,
    width: float,
    code_background: str,
) -> str:
    """Add the formulas of ``text`` (HTML) to ``doc``; the HTML to set, with the formulas
    that could not be typeset shown as their source. ``width`` is the text's width."""
    if "math:" not in text:
        return text

    def place(found: re.Match[str]) -> str:
        url = found.group(1)
        source = parse_math_url(url)
        result = None if source is None else images.get(source, style)
        if source is None or result is None or result.image is None:
            written = source.written if source is not None else url
            return (
                f'<code style="background-color:{code_background};">{html.escape(written)}</code>'
            )
        doc.addResource(_IMAGE, QUrl(url), result.image)
        w, h = result.width, result.height
        if w > width > 0:
            w, h = width, h * width / w
        return (
            f'<img src="{url}" width="{w:.2f}" height="{h:.2f}" style="vertical-align: middle;" />'
        )

    return _TAG.sub(place, text)
