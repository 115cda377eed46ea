"""The window's colours are written once, in the theme, by role; every text role reads on
its ground at WCAG AA (4.5:1) in light and dark."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.ui import theme
from app.ui.theme import DARK, LIGHT, Roles

UI = Path(theme.__file__).parent

_LITERAL = re.compile(
    r"(?<![\w&])#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b(?=[^\"']*[\"'])"  # in a string
    r"|rgba?\("
    r"|[\"']\s*(?:color|background)\s*:\s*(?:gray|grey|black|white|red|green|blue)\b"
    r"|[\"'](?:gray|grey|black|white|red|green|blue|orange|yellow)[\"']"
    r"|GlobalColor\.(?:gray|black|white|red|green|blue|yellow|darkGray|lightGray)"
)

READ = [
    ("text", "surface"),
    ("muted", "surface"),
    ("accent", "surface"),
    ("danger", "surface"),
    ("warning", "surface"),
    ("success", "surface"),
    ("on_accent", "accent_fill"),
    ("chip_text", "chip"),
    ("text", "raised"),
    ("muted", "raised"),
    ("success", "raised"),
    ("danger", "raised"),
    ("text", "card"),
    ("text", "delegate_card"),
    ("muted", "delegate_card"),
    ("text", "code"),
    ("muted", "code"),
    ("danger", "danger_ground"),
    ("text", "danger_ground"),
    ("text", "warning_ground"),
]
"""Each text role and the ground it is read on."""


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    """WCAG's contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    a, b = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def test_the_contrast_formula_matches_known_pairs() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize(("name", "roles"), [("light", LIGHT), ("dark", DARK)])
def test_every_text_role_reads_on_its_ground(name: str, roles: Roles) -> None:
    low = [
        f"{fg} on {bg}: {contrast(getattr(roles, fg), getattr(roles, bg)):.2f}"
        for fg, bg in READ
        if contrast(getattr(roles, fg), getattr(roles, bg)) < 4.5
    ]
    assert low == [], f"{name}: under 4.5:1"


def test_no_colour_is_written_outside_the_theme() -> None:
    found = [
        f"{path.relative_to(UI)}:{n}: {line.strip()}"
        for path in sorted(UI.rglob("*.py"))
        if path.name != "theme.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _LITERAL.search(line)
    ]
    assert found == []


def test_the_literal_check_finds_what_it_is_for() -> None:
    for line in (
        'bg = "#23272e"',
        "QColor('#fff')",
        'style = "color: gray;"',
        'f"background: rgba(59, 111, 216, 40)"',
        "image.fill(Qt.GlobalColor.gray)",
        'QColor("white")',
    ):
        assert _LITERAL.search(line), line
    assert not _LITERAL.search("issue #123 and a heading")
