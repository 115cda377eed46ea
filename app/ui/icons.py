"""The window's icons: one icon font (Remix Icon, from QtAwesome's fonts folder), drawn in the
palette's colours when painted, so an icon follows the light or dark theme without being set
again.

Only this font is loaded, by Qt's font database, on first use; QtAwesome itself is not imported
(its import loads a Qt compatibility layer that takes a good part of the window's start-up),
and the bundle ships only this font's files (``packaging/_trim.py``)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Literal, TypeVar

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QIcon,
    QIconEngine,
    QPainter,
    QPalette,
    QPixmap,
)
from PySide6.QtWidgets import QAbstractButton

from app.ui.theme import is_dark, roles

__all__ = ["FONT", "ICON_SIZE", "Tone", "draw_glyph", "glyph", "glyph_html", "icon", "icon_button"]

FONT = ("ri", "remixicon-2.5.0.ttf", "remixicon-charmap-2.5.0.json")
"""The one icon font: its prefix, file and character map in QtAwesome's ``fonts`` folder."""

Tone = Literal["text", "muted", "on_accent", "danger"]
"""Which colour an icon is drawn in: the palette's text, muted text, text on the accent's
fill (Send), or the danger colour (Delete)."""

B = TypeVar("B", bound=QAbstractButton)

_SCALE = 0.8
"""How much of the icon's square the glyph fills."""


class _IconFont:
    """The icon font loaded into the application: its family and its characters by name."""

    def __init__(self, folder: Path) -> None:
        if QGuiApplication.instance() is None:  # Qt's font database would crash
            raise RuntimeError("The icon font is loaded into a running application only.")
        font_id = QFontDatabase.addApplicationFontFromData((folder / FONT[1]).read_bytes())
        families = QFontDatabase.applicationFontFamilies(font_id)
        if not families:
            raise RuntimeError(f"The icon font {folder / FONT[1]} could not be loaded.")
        self.family = families[0]
        codes = json.loads((folder / FONT[2]).read_text(encoding="utf-8"))
        self.charmap = {name: chr(int(code, 16)) for name, code in codes.items()}

    def font(self, size: float) -> QFont:
        """The icon font at ``size`` pixels."""
        font = QFont()
        font.setFamily(self.family)
        font.setPixelSize(round(size))
        return font


def _fonts_folder() -> Path:
    """QtAwesome's ``fonts`` folder, found without importing the package (in the bundle, the
    folder its data files were copied to)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None and (Path(bundle) / "qtawesome" / "fonts").is_dir():
        return Path(bundle) / "qtawesome" / "fonts"
    spec = importlib.util.find_spec("qtawesome")
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    if not places:
        raise RuntimeError("The icon font is missing: QtAwesome's fonts folder was not found.")
    return Path(places[0]) / "fonts"


_font: list[_IconFont] = []


def _loaded() -> _IconFont:
    if not _font:
        _font.append(_IconFont(_fonts_folder()))
    return _font[0]


def glyph(name: str) -> str:
    """The character of the icon ``name`` (a Remix Icon name, such as ``attachment-2``);
    raises ``KeyError`` for a name the font does not have."""
    return _loaded().charmap[name]


def draw_glyph(painter: QPainter, name: str, rect: QRect, colour: QColor) -> None:
    """Draw the icon ``name`` centred in ``rect`` in ``colour`` (for a delegate that paints
    its marks itself, such as the sidebar's status marks)."""
    font = _loaded().font(min(rect.width(), rect.height()) * _SCALE)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.setFont(font)
    painter.setPen(colour)
    painter.drawText(QRectF(rect), Qt.AlignmentFlag.AlignCenter, glyph(name))
    painter.restore()


def glyph_html(name: str, colour: str) -> str:
    """The icon ``name`` as rich text in ``colour`` (a theme role's value), for a card drawn
    as HTML; the font is loaded on first use, so a document laid out after it finds it."""
    family = _loaded().family
    return f'<span style="font-family:{family}; color:{colour};">{glyph(name)}</span>'


def _colour(tone: Tone, mode: QIcon.Mode) -> QColor:
    palette = QGuiApplication.palette()
    if mode == QIcon.Mode.Disabled:
        return palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText)
    if tone == "text":
        return palette.color(QPalette.ColorRole.ButtonText)
    if tone == "muted":
        return palette.color(QPalette.ColorRole.PlaceholderText)
    theme = roles(is_dark(palette))
    return QColor(theme.on_accent if tone == "on_accent" else theme.danger)


class _GlyphEngine(QIconEngine):
    """Paints one glyph of the icon font in the colour its tone has in the palette of now."""

    def __init__(self, char: str, tone: Tone) -> None:
        super().__init__()
        self._char = char
        self._tone = tone

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        """Draw the glyph centred in ``rect``."""
        font = _loaded().font(min(rect.width(), rect.height()) * _SCALE)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.setFont(font)
        painter.setPen(_colour(self._tone, mode))
        painter.drawText(QRectF(rect), Qt.AlignmentFlag.AlignCenter, self._char)
        painter.restore()

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        """The glyph on a transparent pixmap of ``size``."""
        pixmap = QPixmap(size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        self.paint(painter, QRect(QPoint(0, 0), size), mode, state)
        painter.end()
        return pixmap

    def clone(self) -> QIconEngine:
        """A copy (Qt copies an icon's engine when the icon is detached)."""
        return _GlyphEngine(self._char, self._tone)


def icon(name: str, tone: Tone = "text") -> QIcon:
    """The icon ``name`` of the icon font, drawn in ``tone`` (the palette's text colour by
    default, the disabled text colour when its button is disabled). Needs a running
    application (the font is loaded into it on first use)."""
    return QIcon(_GlyphEngine(glyph(name), tone))


ICON_SIZE = QSize(18, 18)
"""The size of an icon button's icon."""


def icon_button(button: B, name: str, accessible: str, tip: str, tone: Tone = "text") -> B:
    """Make ``button`` an icon button: the icon ``name`` (beside its text, if it has one),
    read out as ``accessible`` and explained by ``tip`` (which names its shortcut)."""
    button.setIcon(icon(name, tone))
    button.setIconSize(ICON_SIZE)
    button.setAccessibleName(accessible)
    button.setToolTip(tip)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button
