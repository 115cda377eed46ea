"""Ranking the passages a word search found the way a person reads them.

BM25 (in the index) finds the candidates; here the best of them are scored again on what
BM25 does not see: how much of the question a passage holds, counting rare words for more
(its *relevance*, between 0 and 1), and whether the question's words stand together in it
as they do in the question. A file matched by several passages then gives way, after its
best one, to the other files, and holds at most three of the first five, so one long note
cannot fill the list.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "BM25_WEIGHT",
    "COVER_WEIGHT",
    "FIRST",
    "HEAD_WEIGHT",
    "MEANING_FLOORS",
    "NEAR",
    "NEAR_WEIGHT",
    "PER_FILE",
    "PREFIX_CREDIT",
    "SECTION_WEIGHT",
    "WORDS_FLOOR",
    "Candidate",
    "capped",
    "counted_words",
    "coverage",
    "idf",
    "meaning_floor",
    "nearness",
    "rerank",
    "words_of",
]

T = TypeVar("T")

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
"""A word as the index's tokenizer (``unicode61``) cuts one: letters and digits."""

NEAR = 3
"""Two of the question's words stand together when at most this many words part them."""

BM25_WEIGHT, COVER_WEIGHT, HEAD_WEIGHT, NEAR_WEIGHT = 0.5, 0.5, 0.3, 0.3
"""What BM25's score (as a share of the best candidate's), the share of the question held
(squared: a passage missing a rare word falls well behind), the share held by its file's
path and its headings, and the words standing together each add to a passage's score.
BM25 alone cannot tell passages apart when every one holds the question's words (its rarity
of a word most passages hold is nil). Set on the bench's retrieval questions (the Debian
Reference), each half of which gains by them."""

SECTION_WEIGHT = 1.0
"""What the share of the question a passage's own (innermost) heading holds adds: the title
of the section a passage is in says best what it is about."""

WORDS_FLOOR = 0.15
"""A passage found by words goes before a question only when it holds at least this share
of the question's weight (:func:`coverage`). Set on the bench's retrieval questions (the
Debian Reference): a floor that costs no answered question its answer (up to 0.175 costs
none); it leaves 3 of the 14 questions nothing there answers with no passage."""

MEANING_FLOORS = {"bundled": 0.95, "": 0.5}
"""The cosine a passage found by meaning alone needs, by embedding model: the bundled
stand-in's, and any other's (``""``). The stand-in's is set on the bench's questions
(``--sweep``): it is not trained for embedding, so every passage is near every question
(a cosine of 0.9 or so, unrelated questions' best from 0.73 to 0.93, answering passages'
from 0.64 to 0.93); under 0.8 every unrelated question gets passages, and each step up to
0.95 gains answered questions, where it costs nothing that words alone find. Any other
model's is not set on them (bge-small is not installed where the bench ran): a cosine
under a half is unrelated text for common embedding models."""


def meaning_floor(model: str) -> float:
    """The cosine a passage needs to be found by the embedding model named ``model``."""
    return MEANING_FLOORS.get(model, MEANING_FLOORS[""])


_SAME_FILE = 0.7
"""Each further passage of a file scores this share of what it would alone."""

FIRST, PER_FILE = 5, 3
"""Of the first :data:`FIRST` passages, at most :data:`PER_FILE` are of one file while
another file's passage can take the place (a file's further ones follow them): however well
one note matches, the first five show other files too. It costs the bench's questions
nothing (their answers are often several sections of one long chapter)."""


def _fold(word: str) -> str:
    """``word`` as the index keeps it: lower case, accents removed."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words_of(text: str) -> list[str]:
    """``text``'s words cut as the index's tokenizer cuts them (before its stemming), folded
    to lower case without accents, in order."""
    return [_fold(w) for w in _TOKEN.findall(text)]


def counted_words(text: str, common: frozenset[str]) -> list[str]:
    """The question's words that count, in order, each once: the common ones and single
    letters (the *s* of *what's*) left out unless nothing else is left."""
    words = list(dict.fromkeys(words_of(text)))
    return [w for w in words if w not in common and (len(w) > 1 or w.isdigit())] or words


def idf(passages: int, holding: int) -> float:
    """How rare a word is: more for a word few of ``passages`` hold, never below a little
    (a word every passage holds still tells something)."""
    return math.log(1.0 + (passages - holding + 0.5) / (holding + 0.5)) + 0.05


PREFIX_CREDIT = 0.5
"""What a question's word counts for where only a longer word it begins is held (*admin* in
*administration*, but also *back* in *backup*): a hint, not the word."""


def coverage(
    question: Sequence[str],
    weights: Mapping[str, float],
    held: set[str],
    longer: Mapping[str, str] | None = None,
) -> float:
    """The share of the question's weight whose words are ``held``: 1.0 when every word is
    there, near 0 when only common ones are. A word held only as the start of a longer one
    of ``held`` (``longer`` maps such longer words to the question's word they begin) counts
    :data:`PREFIX_CREDIT` of its weight."""
    total = sum(weights.get(t, 0.0) for t in question)
    if total <= 0:
        return 0.0
    begun = {longer[t] for t in held if t in longer} if longer else set()
    return (
        sum(
            weights.get(t, 0.0) * (1.0 if t in held else PREFIX_CREDIT if t in begun else 0.0)
            for t in question
        )
        / total
    )


def nearness(question: Sequence[str], fields: Sequence[Sequence[tuple[int, str]]]) -> float:
    """How many of the question's neighbouring word pairs stand together, in order, in one
    of ``fields`` (the places of words in the file's path, headings, text), as a share: a
    pair side by side counts 1, one within :data:`NEAR` words of each other a half."""
    pairs = list(itertools.pairwise(question))
    if not pairs:
        return 0.0
    together = 0.0
    for first, second in pairs:
        together += max(_closeness(words, first, second) for words in fields)
    return together / len(pairs)


def _closeness(words: Sequence[tuple[int, str]], first: str, second: str) -> float:
    best = 0.0
    last_first = -(NEAR + 2)
    for at, word in words:
        if word == first:
            last_first = at
        elif word == second and at - last_first <= NEAR + 1:
            if at - last_first == 1:
                return 1.0
            best = 0.5
    return best


@dataclass(frozen=True, slots=True)
class Candidate:
    """A passage BM25 found: its BM25 score (higher is better), its file, and where the
    question's words are in its file's path, the headings it is under, its own heading (the
    innermost) and its text (each place with its word, as the index cuts them)."""

    key: int
    bm25: float
    file: str
    title: Sequence[tuple[int, str]]
    heading: Sequence[tuple[int, str]]
    section: Sequence[tuple[int, str]]
    text: Sequence[tuple[int, str]]


def rerank(
    question: Sequence[str],
    weights: Mapping[str, float],
    candidates: Sequence[Candidate],
    *,
    same_file: float = _SAME_FILE,
    longer: Mapping[str, str] | None = None,
) -> list[tuple[Candidate, float, float]]:
    """The candidates best first, each with its new score and its relevance (see
    :func:`coverage`): BM25's score, raised for passages that hold more of the question,
    hold it in their path and headings (their own heading most), and hold its words
    together; lowered for a file's passages after its best one. ``longer`` maps the longer
    words the candidates hold to the question's word each begins (see :func:`coverage`)."""
    scored: list[tuple[Candidate, float, float]] = []
    best = max((cand.bm25 for cand in candidates), default=0.0)
    for cand in candidates:
        fields = [cand.title, cand.heading, cand.section, cand.text]
        held = {w for words in fields for _, w in words}
        relevance = coverage(question, weights, held, longer)
        named = coverage(
            question, weights, {w for _, w in (*fields[0], *fields[1], *fields[2])}, longer
        )
        own = coverage(question, weights, {w for _, w in fields[2]}, longer)
        score = (
            BM25_WEIGHT * (cand.bm25 / best if best > 0 else 0.0)
            + COVER_WEIGHT * relevance**2
            + HEAD_WEIGHT * named
            + SECTION_WEIGHT * own
            + NEAR_WEIGHT * nearness(question, _as_begun(fields, longer))
        )
        scored.append((cand, score, relevance))
    scored.sort(key=lambda item: -item[1])
    return _spread(scored, lambda item: item[0].file, same_file)


def _as_begun(
    fields: list[Sequence[tuple[int, str]]], longer: Mapping[str, str] | None
) -> list[Sequence[tuple[int, str]]]:
    """``fields`` with each longer word taken for the question's word it begins."""
    if not longer:
        return fields
    return [[(at, longer.get(w, w)) for at, w in words] for words in fields]


def _spread(
    scored: list[tuple[Candidate, float, float]],
    file_of: Callable[[tuple[Candidate, float, float]], str],
    factor: float,
) -> list[tuple[Candidate, float, float]]:
    seen: dict[str, int] = {}
    spread = []
    for item in scored:
        n = seen.get(file_of(item), 0)
        seen[file_of(item)] = n + 1
        spread.append((item[0], item[1] * factor**n, item[2]))
    spread.sort(key=lambda item: -item[1])
    return capped(spread, file_of)


def capped(ranked: Sequence[T], file_of: Callable[[T], str]) -> list[T]:
    """``ranked`` with a file's passages past :data:`PER_FILE` moved out of the first
    :data:`FIRST` (to just after them, in their order) while other files' can fill them."""
    first: list[T] = []
    held: list[T] = []
    seen: dict[str, int] = {}
    for at, item in enumerate(ranked):
        if len(first) == FIRST:
            return first + held + list(ranked[at:])
        n = seen[file_of(item)] = seen.get(file_of(item), 0) + 1
        (first if n <= PER_FILE else held).append(item)
    return first + held
