"""Formulas placed in a message's document: each ``math:`` image of its HTML that is typeset
(in the shared cache) is added to the document as an image resource before the HTML is set;
one that is not yet is shown as its source, in code style, and typeset in the background (the
row is laid out again when it is), as is one that cannot be typeset. A formula wider than the
text is scaled to fit."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QFont, QFontInfo, QFontMetricsF, QTextDocument

from app.ui.chat.math.cache import MathImages, MathKey
from app.ui.chat.math.render import MathStyle
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
    wait: bool = False,
) -> tuple[str, list[MathKey]]:
    """Add the formulas of ``text`` (HTML) to ``doc``; the HTML to set, with the formulas
    that are not typeset shown as their source, and the formulas being typeset in the
    background meanwhile (none when ``wait``: then each is typeset before this returns).
    ``width`` is the text's width."""
    pending: list[MathKey] = []
    if "math:" not in text:
        return text, pending

    def place(found: re.Match[str]) -> str:
        url = found.group(1)
        source = parse_math_url(url)
        result = None
        if source is not None:
            result = images.get(source, style) if wait else images.cached(source, style)
            if result is None:
                pending.append(images.request(source, style))
        if source is None or result is None or result.image is None:
            written = source.written if source is not None else url
            return (
                f'<code style="background-color:{code_background};">{html.escape(written)}</code>'
            )
        doc.addResource(_IMAGE, QUrl(url), result.pixmap())
        w, h = result.width, result.height
        if w > width > 0:
            w, h = width, h * width / w
        return (
            f'<img src="{url}" width="{w:.2f}" height="{h:.2f}" style="vertical-align: middle;" />'
        )

    return _TAG.sub(place, text), pending
