"""Search snippets computed from a bounded piece of the message, so a hit costs the same
whatever the size of the message and however often the words occur in it.

Words are matched as the index matches them (``unicode61``, diacritics removed, case
folded): every query word as a whole word, the last one as a prefix.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["SCAN_CHARS", "make_snippet", "matches_all"]

SCAN_CHARS = 1 << 20
"""Only this many characters from a message's start are searched for the snippet."""

_BEFORE, _AFTER = 60, 100  # characters of context around the first match
_CUT_PUNCTUATION = ".,;:!?)»"
_fold_table: dict[int, str] = {}


def _fold_char(char: str) -> str:
    """The character as the index compares it, always one character long."""
    decomposed = unicodedata.normalize("NFKD", char)
    base = "".join(c for c in decomposed if not unicodedata.combining(c)) or char
    for candidate in (base.lower(), char.lower()):
        if len(candidate) == 1:
            return candidate
    return char


def fold(text: str) -> str:
    """``text`` case- and diacritic-folded, character for character (same length)."""
    missing = {ord(c) for c in set(text)} - _fold_table.keys()
    for code in missing:
        _fold_table[code] = _fold_char(chr(code))
    return text.translate(_fold_table)


_WORD = r"(?<![^\W_])(?:{})(?![^\W_])"  # a whole word as unicode61 cuts them


def _pattern(words: list[str]) -> re.Pattern[str]:
    folded = [re.escape(fold(w)) for w in words]
    alternatives = [*folded[:-1], folded[-1] + r"[^\W_]*"]
    return re.compile(_WORD.format("|".join(alternatives)))


def matches_all(text: str, words: list[str]) -> bool:
    """Whether ``text`` holds every one of ``words`` (the last one as a prefix)."""
    folded = fold(text)
    last = len(words) - 1
    return all(
        re.search(_WORD.format(re.escape(fold(w)) + (r"[^\W_]*" if i == last else "")), folded)
        for i, w in enumerate(words)
    )


def _snap(text: str, start: int, end: int) -> tuple[int, int]:
    """Move a cut that falls inside a word to that word's edge (inwards)."""
    while 0 < start < end and text[start - 1].isalnum() and text[start].isalnum():
        start += 1
    while start < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end -= 1
    return start, end


def make_snippet(text: str, whole_length: int, words: list[str], marks: tuple[str, str]) -> str:
    """A short excerpt of ``text`` (the first characters of a message ``whole_length`` long)
    around the first of ``words``, each match wrapped in ``marks``."""
    pattern = _pattern(words)
    folded = fold(text)
    first = pattern.search(folded)
    centre = first.start() if first else 0
    start = max(0, centre - _BEFORE)
    end = min(len(text), (first.end() if first else 0) + _AFTER)
    start, end = _snap(text, start, end)
    out = []
    at = start
    for match in pattern.finditer(folded, start, end):
        out += [text[at : match.start()], marks[0], text[match.start() : match.end()], marks[1]]
        at = match.end()
    out.append(text[at:end])
    middle = "".join(out).strip()
    if start > 0:
        middle = "…" + middle.lstrip(_CUT_PUNCTUATION).lstrip()
    return middle + ("…" if end < whole_length else "")
