"""A document's excerpt: the start of its text, whitespace collapsed, cut at a word, read
from the start of the text only (a 20 MB file's excerpt does not split all of it)."""

from __future__ import annotations

import random

import pytest

from app.media._util import excerpt_of


def _whole(text: str, limit: int = 300) -> str:
    """The excerpt as made from the whole text: what the quick one must always equal."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"


def test_a_long_text_gives_its_first_words_cut_at_a_word() -> None:
    text = "The keeper  logs\n\nthe tide " * 10_000
    got = excerpt_of(text)
    assert got.startswith("The keeper logs the tide The keeper")
    assert got.endswith("…") and len(got) <= 301
    assert got[:-1].split()[-1] in {"The", "keeper", "logs", "the", "tide"}


@pytest.mark.parametrize("seed", range(40))
def test_it_equals_the_excerpt_of_the_whole_text(seed: int) -> None:
    rng = random.Random(seed)
    gaps = [" ", "\n", "\n\n", "\t", " " * rng.randint(1, 5000)]  # some mostly whitespace
    words = ["a", "lighthouse", "x" * rng.randint(1, 700), "keeper", "tide"]
    text = "".join(
        rng.choice(words) + rng.choice(gaps) for _ in range(rng.choice([1, 5, 50, 3000]))
    )
    for limit in (10, 300):
        assert excerpt_of(text, limit) == _whole(text, limit)
    assert excerpt_of("", 300) == ""
