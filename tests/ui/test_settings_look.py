"""Settings pages speak in one voice: a page's title, a section's heading, and every helper
sentence in the muted colour at full strength, readable (WCAG AA) in light and dark."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from app.ui.settings._labels import heading, hint, section
from app.ui.theme import apply_theme, roles
from tests.ui.test_theme_roles import contrast


def _inked(label: QLabel, ground: str) -> str:
    """The colour of the label's text as drawn: the pixel furthest from the ground."""
    image = label.grab().toImage()
    pixels = {
        QColor(image.pixel(x, y)).name()
        for x in range(image.width())
        for y in range(image.height())
    }
    return max(pixels, key=lambda colour: contrast(colour, ground))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_helper_text_is_muted_and_readable(qtbot: QtBot, theme: str) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    dark = apply_theme(app, theme)
    try:
        page = QWidget()
        qtbot.addWidget(page)
        layout = QVBoxLayout(page)
        said = hint("Parley keeps a copy of your threads.", page)
        title = heading("Backups", page)
        part = section("Runs", page)
        for label in (title, part, said):
            layout.addWidget(label)
        page.show()
        ground = page.palette().color(page.backgroundRole()).name()
        drawn = _inked(said, ground)
        assert contrast(drawn, ground) >= 4.5, f"{drawn} on {ground}"
        assert contrast(drawn, roles(dark).muted) < 1.2  # the muted colour, not faded
        assert contrast(_inked(part, ground), ground) > contrast(drawn, ground)
        assert part.font().bold() or part.fontInfo().bold()
        assert title.fontInfo().pixelSize() > part.fontInfo().pixelSize()
    finally:
        apply_theme(app, "system")
