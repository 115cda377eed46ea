"""Where math is found in Markdown: every delimiter, never in code, never in prices, and a
formula's source always recoverable from what is drawn."""

from __future__ import annotations

import re

import pytest

from app.ui.chat.markdown import render_markdown
from app.ui.chat.math.syntax import MathSource, math_url, parse_math_url

_SRC = re.compile(r'<img src="(math:[^"]*)"')


def _formulas(text: str) -> list[str]:
    """The formulas found in ``text``, as written (delimiters included)."""
    found = [parse_math_url(url) for url in _SRC.findall(render_markdown(text)[0])]
    return [f.written for f in found if f is not None]


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Inline $x^2$ here", ["$x^2$"]),
        (r"Inline \(a+b\) here", [r"\(a+b\)"]),
        ("Shown:\n\n$$\n\\frac{1}{2}\n$$\n\nafter", ["$$\n\\frac{1}{2}\n$$"]),
        ("Right under a line:\n$$x = 1$$\nand on", ["$$x = 1$$"]),
        ("Shown:\n\\[\n\\sqrt{2}\n\\]\nafter", ["\\[\n\\sqrt{2}\n\\]"]),
        (r"mid-line \[y\] and $$z$$ too", [r"\[y\]", "$$z$$"]),
        ("- item $a$\n- item $b$", ["$a$", "$b$"]),
        ("| a | b |\n|---|---|\n| $x$ | $y$ |", ["$x$", "$y$"]),
    ],
)
def test_each_delimiter_is_found_with_its_source(text: str, written: list[str]) -> None:
    assert _formulas(text) == written


@pytest.mark.parametrize(
    "text",
    [
        "It costs $5 and $10.",
        "Between $5, or $6 at most",
        "Plans: $5/month and $50/year",
        "echo $HOME and $PATH",
        "A lone $ sign and another $ here",
        "Escaped \\$x\\$ dollars",
    ],
)
def test_prices_and_lone_dollars_stay_text(text: str) -> None:
    html = render_markdown(text)[0]
    assert "math:" not in html
    assert "$" in html


@pytest.mark.parametrize(
    "text",
    [
        "Run `echo $x$` first",
        "```\n$$\nx\n$$\n```",
        "```latex\n\\[ a \\]\n\\(b\\)\n```",
        "    $indented code$",
    ],
)
def test_code_spans_and_code_blocks_are_never_touched(text: str) -> None:
    html, codes = render_markdown(text)
    assert "math:" not in html
    assert "$" in html or "\\" in html or codes


@pytest.mark.parametrize("text", ["$$\nx = \\frac{1}{2", "So $x^2 + y", "\\[\na + b"])
def test_a_formula_not_closed_yet_stays_text(text: str) -> None:
    html = render_markdown(text)[0]
    assert "math:" not in html


def test_a_display_formula_never_spans_a_blank_line() -> None:
    assert _formulas("$$\na\n\nb\n$$") == []
    assert _formulas("\\[\na\n\nb\n\\]") == []


@pytest.mark.parametrize(
    "tex", ['a "quoted" <b> & c', "x\ny", "\u00e9\u03b1 \u2211", "%41 / ? # 100%"]
)
def test_any_source_survives_the_image_address(tex: str) -> None:
    for opener in ("$", "$$", "\\(", "\\["):
        source = MathSource(tex, opener)
        url = math_url(source)
        assert '"' not in url and "<" not in url and " " not in url
        assert parse_math_url(url) == source


def test_other_addresses_are_not_formulas() -> None:
    assert parse_math_url("thumb:abc") is None
    assert parse_math_url("math:nope/x") is None


def test_raw_html_beside_math_is_still_text() -> None:
    html = render_markdown('$x$ <img src="math:d/x" onerror="alert(1)">')[0]
    assert html.count("<img") == 1
    assert "&lt;img" in html
