"""Typesetting formulas: a corpus of what models write becomes images of sensible size in the
text's colour, what cannot be typeset says why (and is shown as source), and the cache
typesets each formula once."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QImage

from app.ui.chat.math.cache import MathImages
from app.ui.chat.math.render import MAX_SOURCE, MathStyle, typeset_now
from app.ui.chat.math.syntax import MathSource

SIZE = 16.0
LIGHT = MathStyle(SIZE, "#1f2328", 4.0)
DARK = MathStyle(SIZE, "#e6edf3", 4.0)

# name: (LaTeX, opener, lowest and highest height in multiples of the text's size)
CORPUS = {
    "fraction": (r"x = \frac{-b \pm \sqrt{b^2-4ac}}{2a}", "$$", 2.0, 5.0),
    "root": (r"\sqrt[3]{x+1}", "$", 1.0, 3.0),
    "sum": (r"\sum_{n=1}^{\infty} \frac{1}{n^2} = \frac{\pi^2}{6}", "$$", 2.0, 6.0),
    "integral": (r"\int_0^1 x^2\,dx = \tfrac{1}{3}", "\\[", 1.5, 6.0),
    "matrix": (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", "$$", 1.8, 5.0),
    "aligned": (r"\begin{aligned} f(x) &= x^2 \\ g(x) &= 2x + 1 \end{aligned}", "$$", 2.0, 6.0),
    "cases": (r"|x| = \begin{cases} x & x \ge 0 \\ -x & x < 0 \end{cases}", "$$", 2.0, 6.0),
    "greek": (r"\alpha + \beta = \Gamma(\lambda)", "$", 1.0, 3.0),
    "accents": (r"\hat{x} + \vec{v} + \bar{y} + \tilde{z} + \dot{a}", "\\(", 1.0, 3.0),
    "sets": (r"\mathbb{R}^n \to \mathcal{L}", "$", 1.0, 3.0),
}


def _inked(image: QImage) -> list[QColor]:
    """The colours of the pixels that are drawn (not transparent)."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    return [
        image.pixelColor(x, y)
        for y in range(image.height())
        for x in range(image.width())
        if image.pixelColor(x, y).alpha() > 0
    ]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus_typesets_to_images_of_sensible_size(qapp: object, name: str) -> None:
    tex, opener, low, high = CORPUS[name]
    result = typeset_now(MathSource(tex, opener), LIGHT)
    assert result.problem == "" and result.image is not None
    assert low * SIZE <= result.height <= high * SIZE, result.height
    assert SIZE <= result.width <= 40 * SIZE
    inked = _inked(result.image)
    assert len(inked) > 0.05 * result.image.width() * result.image.height()  # not blank
    solid = max(inked, key=QColor.alpha)
    assert solid.name() == LIGHT.colour  # drawn in the text's colour


def test_dark_text_gets_light_formulas(qapp: object) -> None:
    result = typeset_now(MathSource(r"\frac{a}{b}", "$"), DARK)
    assert result.image is not None
    assert max(_inked(result.image), key=QColor.alpha).name() == DARK.colour


def test_an_inline_formula_is_padded_so_its_baseline_meets_the_line(qapp: object) -> None:
    # x has no descent: set in the middle of the line, its image reaches as far below the
    # baseline as the middle is above it, so the image is taller than the letter alone
    plain = typeset_now(MathSource("x", "$$"), LIGHT)
    inline = typeset_now(MathSource("x", "$"), LIGHT)
    assert inline.image is not None and plain.image is not None
    assert inline.height > plain.height
    assert inline.width == plain.width


def test_a_sharper_screen_gets_more_pixels_at_the_same_size(qapp: object) -> None:
    one = typeset_now(MathSource(r"\sqrt{2}", "$"), LIGHT)
    two = typeset_now(MathSource(r"\sqrt{2}", "$"), MathStyle(SIZE, LIGHT.colour, 4.0, 2.0))
    assert one.image is not None and two.image is not None
    assert abs(two.width - one.width) <= 1 and abs(two.height - one.height) <= 1
    assert two.image.width() >= 2 * one.image.width() - 2


@pytest.mark.parametrize("tex", [r"\frac{1}{", r"\begin{pmatrix} a", r"x^{\left(}", "   "])
def test_what_cannot_be_typeset_says_why_and_has_no_image(qapp: object, tex: str) -> None:
    result = typeset_now(MathSource(tex, "$"), LIGHT)
    assert result.image is None
    assert result.problem.endswith(".") and "\n" not in result.problem


def test_a_huge_formula_is_not_typeset(qapp: object) -> None:
    longest = " + ".join(f"x_{{{i}}}^{{{i}}}" for i in range(400))
    assert len(longest) > MAX_SOURCE
    assert "longer than" in typeset_now(MathSource(longest, "$$"), LIGHT).problem
    wide = " + ".join(f"x_{{{i}}}" for i in range(160))
    assert len(wide) <= MAX_SOURCE
    assert typeset_now(MathSource(wide, "$$"), LIGHT).problem == "The formula is too big to show."


def test_a_formula_that_takes_too_long_is_given_up(qapp: object) -> None:
    images = MathImages(time_limit=0.0001)
    result = images.get(MathSource(CORPUS["aligned"][0], "$$"), LIGHT)
    assert result.image is None and "took longer than" in result.problem
    assert images.stats.failures == 1


def test_the_same_formula_in_the_same_style_is_typeset_once(qapp: object) -> None:
    images = MathImages()
    first = images.get(MathSource(r"\frac{1}{2}", "$"), LIGHT)
    again = images.get(MathSource(r" \frac{1}{2} ", "$"), LIGHT)  # spaces around do not count
    assert again is first
    assert (images.stats.renders, images.stats.hits) == (1, 1)
    images.get(MathSource(r"\frac{1}{2}", "$$"), LIGHT)  # displayed: another image
    images.get(MathSource(r"\frac{1}{2}", "$"), DARK)  # another colour
    images.get(MathSource(r"\frac{1}{2}", "$"), MathStyle(20.0, LIGHT.colour, 5.0))
    assert (images.stats.renders, images.stats.hits) == (4, 1)


def test_the_cache_drops_the_least_recently_used_beyond_its_budget(qapp: object) -> None:
    one = typeset_now(MathSource("a", "$"), LIGHT)
    images = MathImages(budget=2 * one.size_in_bytes + 1)  # room for about two
    for tex in ("a", "b", "a", "c"):
        images.get(MathSource(tex, "$"), LIGHT)
    assert len(images) == 2
    assert images.cached(MathSource("a", "$"), LIGHT) is not None  # used after b: kept
    assert images.cached(MathSource("b", "$"), LIGHT) is None  # dropped


def test_formulas_asked_for_in_the_background_are_typeset_once_and_collected(
    qapp: object,
) -> None:
    images = MathImages()
    fraction, root = MathSource(r"\frac{1}{2}", "$"), MathSource(r"\sqrt{2}", "$$")
    keys = [images.request(f, LIGHT) for f in (fraction, root, fraction)]
    assert keys[0] == keys[2] and images.pending == 2
    assert images.cached(fraction, LIGHT) is None  # not before it is collected
    assert images.wait(20)
    assert sorted(images.collect(), key=str) == sorted(set(keys), key=str)
    assert images.pending == 0 and images.stats.renders == 2
    found = images.cached(root, LIGHT)
    assert found is not None and found.image is not None and found.height > SIZE
    images.request(root, LIGHT)  # already typeset: nothing more to do
    assert images.pending == 0 and images.collect() == []


def test_a_broken_formula_asked_for_in_the_background_is_kept_as_a_failure(
    qapp: object,
) -> None:
    images = MathImages()
    images.request(MathSource(r"\frac{1}{", "$"), LIGHT)
    assert images.wait(20)
    images.collect()
    found = images.cached(MathSource(r"\frac{1}{", "$"), LIGHT)
    assert found is not None and found.image is None and found.problem
    assert images.stats.failures == 1


def test_an_unknown_command_is_shown_as_source_not_drawn_letter_by_letter(qapp: object) -> None:
    result = typeset_now(MathSource(r"\foo{x} + 1", "$"), LIGHT)
    assert result.image is None
    assert result.problem == "The formula uses \\foo, which is not known."
    known = typeset_now(MathSource(r"\text{\foo} + \operatorname{sin} x", "$"), LIGHT)
    assert known.image is not None  # a command inside text, and a named operator, are fine
