"""The window's icons come from one icon font and are drawn in the palette's colours when
painted: the same icon follows a switch from light to dark without being set again."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from app.ui.icons import glyph, icon
from app.ui.theme import DARK, LIGHT


def strokes(name: str) -> set[str]:
    """The fully opaque colours of icon ``name`` drawn at 32 pixels."""
    image = icon(name).pixmap(32, 32).toImage()
    found = set()
    for x in range(32):
        for y in range(32):
            colour = image.pixelColor(x, y)
            if colour.alpha() == 255:
                found.add(colour.name())
    return found


def test_an_icon_follows_the_palettes_text_colour(qapp: QApplication) -> None:
    before = qapp.palette()
    try:
        for text in (LIGHT.text, DARK.text):
            palette = QPalette(before)
            palette.setColor(QPalette.ColorRole.ButtonText, QColor(text))
            qapp.setPalette(palette)
            assert strokes("attachment-2") == {text}
    finally:
        qapp.setPalette(before)


def test_only_the_one_icon_font_is_loaded(qapp: QApplication) -> None:
    assert glyph("send-plane-2-fill")
    from app.ui import icons

    assert [font.family for font in icons._font] == ["remixicon"]
