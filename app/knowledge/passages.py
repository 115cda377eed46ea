"""Cutting a document's text into passages that remember their page or heading and where in
the text they lie.

A passage is a run of whole paragraphs of about :data:`TARGET_CHARS` characters; a paragraph
longer than :data:`MAX_CHARS` is cut at a sentence or a space. Markdown headings (outside code
fences) name the section each passage is in; a PDF's pages (its text split by form feeds, as
the ingest reads it) give each passage its page. ``start`` and ``end`` are offsets into the
document's whole text, so ``text[start:end]`` is the passage as it stands there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "HEADING_JOIN",
    "MAX_CHARS",
    "TARGET_CHARS",
    "Passage",
    "cut_passages",
    "document_passages",
]

TARGET_CHARS = 900
"""Paragraphs are joined into a passage until it holds about this many characters."""

MAX_CHARS = 1500
"""No passage is longer than this; a longer paragraph is cut at a sentence or a space."""

_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_SENTENCE_END = re.compile(r"[.!?。]\s")


@dataclass(frozen=True, slots=True)
class Passage:
    """A piece of a document: its text, its place in the document's text (``start``,
    ``end``), its page (1-based, PDFs) and the headings it is under (Markdown: outermost
    first, joined by :data:`HEADING_JOIN`)."""

    text: str
    start: int
    end: int
    page: int | None = None
    heading: str | None = None


def _paragraphs(text: str) -> Iterator[tuple[int, int]]:
    """Each paragraph's ``(start, end)`` in ``text``: text between blank lines, trimmed."""
    pos = 0
    for match in [*_BLANK_LINE.finditer(text), None]:
        stop = len(text) if match is None else match.start()
        start, end = pos, _rstrip(text, pos, stop)
        while start < end and text[start].isspace():
            start += 1
        if start < end:
            yield start, end
        if match is not None:
            pos = match.end()


def _split_long(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` pieces of at most :data:`MAX_CHARS`, cut after a sentence or at a
    space where there is one."""
    while end - start > MAX_CHARS:
        window = text[start : start + MAX_CHARS]
        ends = [m.end() for m in _SENTENCE_END.finditer(window, TARGET_CHARS // 2)]
        near = [at for at in ends if at <= TARGET_CHARS]
        cut = (near or ends or [0])[-1]
        if cut == 0:
            cut = window.rfind(" ", TARGET_CHARS // 2, TARGET_CHARS) + 1 or MAX_CHARS
        piece_end = start + cut
        yield start, _rstrip(text, start, piece_end)
        start = piece_end
        while start < end and text[start].isspace():
            start += 1
    if start < end:
        yield start, end


def _rstrip(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


HEADING_JOIN = " › "
"""What joins a passage's headings, outermost first: ``Project Heron › Launch``."""


def _headings_in(paragraph: str, in_fence: bool) -> tuple[list[tuple[int, str]], bool]:
    """The headings in ``paragraph`` with their levels, and whether a code fence is open
    after it."""
    found_all: list[tuple[int, str]] = []
    for line in paragraph.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence and (found := _HEADING.match(line)):
            found_all.append((len(found.group(1)), found.group(2).strip()))
    return found_all, in_fence


def _under(path: list[tuple[int, str]], level: int, title: str) -> list[tuple[int, str]]:
    """The heading path after a heading of ``level``: it replaces those at its level or
    deeper."""
    return [*(h for h in path if h[0] < level), (level, title)]


def cut_passages(
    text: str, *, offset: int = 0, page: int | None = None, markdown: bool = False
) -> list[Passage]:
    """Cut ``text`` into passages; offsets are shifted by ``offset`` (where ``text`` starts
    in its document). With ``markdown`` each passage remembers the headings it is under
    (outermost first, joined by :data:`HEADING_JOIN`), and a heading starts a new passage."""
    whole = text
    out: list[Passage] = []
    path: list[tuple[int, str]] = []
    heading: str | None = None
    in_fence = False
    group: list[tuple[int, int]] = []
    group_heading: str | None = None

    def flush() -> None:
        if group:
            start, end = group[0][0], group[-1][1]
            out.append(Passage(whole[start:end], start + offset, end + offset, page, group_heading))
            group.clear()

    headings_only = False  # the group holds headings and nothing under them yet
    for start, end in _paragraphs(whole):
        lone_heading = False
        if markdown:
            # from the start of its first line: a line indented as code is no heading
            line_start = whole.rfind("\n", 0, start) + 1
            found, in_fence = _headings_in(whole[line_start:end], in_fence)
            if found:
                if not headings_only:
                    flush()  # a heading with nothing under it yet stays with the next one
                for level, title in found:
                    path = _under(path, level, title)
                heading = HEADING_JOIN.join(title for _, title in path)
                lone_heading = len(found) == len(whole[start:end].strip().splitlines())
        if not group or headings_only:
            group_heading = heading
        for piece in _split_long(whole, start, end):
            if group and piece[1] - group[0][0] > TARGET_CHARS and not headings_only:
                flush()
                group_heading = heading
            group.append(piece)
            headings_only = lone_heading
            if piece[1] - piece[0] >= TARGET_CHARS:
                flush()
                group_heading = heading
                headings_only = False
    flush()
    return out


def document_passages(
    text: str, *, pages: Sequence[str] | None = None, markdown: bool = False
) -> list[Passage]:
    """The passages of a whole document. ``pages``: its text page by page (a PDF, whose
    ``text`` is the pages joined by form feeds); each passage then has its page."""
    if pages is None:
        return cut_passages(text, markdown=markdown)
    out: list[Passage] = []
    offset = 0
    for number, page_text in enumerate(pages, 1):
        out.extend(cut_passages(page_text, offset=offset, page=number))
        offset += len(page_text) + 1
    return out
