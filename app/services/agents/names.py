"""Agent names that read alike: a name written with letters of two alphabets in one word
("Rеsearcher" with a Cyrillic ``е``), and two names that look the same on screen.

:func:`skeleton` is what a name looks like: NFKC, case folded, letters of Cyrillic and Greek
that look like Latin ones (and ``0``/``1`` that look like ``o``/``l``) as those, spaces and
dashes as one space. Two agents whose names have one skeleton cannot both be kept.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["mixed_alphabets", "skeleton"]

_LOOKS_LATIN = str.maketrans(
    {
        # Cyrillic (capitals fold to these first: В and Н look like B and H)
        **{"а": "a", "в": "b", "ь": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "н": "h"},
        **{"і": "i", "ј": "j", "к": "k", "ӏ": "l", "м": "m", "о": "o", "р": "p", "ԛ": "q"},
        **{"ѕ": "s", "т": "t", "у": "y", "х": "x", "ԝ": "w"},
        # Greek
        **{"α": "a", "β": "b", "ϲ": "c", "ε": "e", "η": "h", "ι": "i", "κ": "k", "μ": "m"},
        **{"ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ζ": "z"},
        # digits and signs
        **{"0": "o", "1": "l", "|": "l"},
    }
)
_ALPHABETS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE")
"""Alphabets with letters that look like Latin ones."""


def skeleton(name: str) -> str:
    """What ``name`` looks like on screen (see the module docstring)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    plain = "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))
    looks = plain.translate(_LOOKS_LATIN).replace("rn", "m")
    return re.sub(r"[\s\-_.]+", " ", looks).strip()


def _alphabet(char: str) -> str | None:
    if not char.isalpha():
        return None
    word = unicodedata.name(char, "").split(" ", 1)[0]
    return word if word in _ALPHABETS else None


def mixed_alphabets(name: str) -> tuple[str, str] | None:
    """The first two alphabets one word of ``name`` mixes (``("Latin", "Cyrillic")``), if any:
    such a word is made to look like another."""
    for word in name.split():
        seen = [a for a in dict.fromkeys(_alphabet(c) for c in word) if a is not None]
        if len(seen) > 1:
            return seen[0].title(), seen[1].title()
    return None
