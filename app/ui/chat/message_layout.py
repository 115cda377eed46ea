"""``MessageLayout``: one message's rich text laid out as a stack of documents.

A long message is cut, between two top-level paragraphs (where no margin is shared), into
parts of about :data:`PART` characters of HTML, each laid out in its own ``QTextDocument``.
When the message changes (a reply streams in), a part whose HTML is unchanged keeps its
document and its layout; only the changed parts (the open tail, and the part it joins) are
laid out again (and a part whose formulas were still being typeset when it was made). The
stack looks exactly like one document of the whole HTML: a paragraph's
top margin is 0, so the space between two parts is the bottom margin of the first.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QTextDocument

from app.ui.chat.markdown_stream import MarkdownStream
from app.ui.chat.message_html import RenderedMessage

__all__ = ["PART", "WAITS_FOR_MATH", "MessageLayout", "cut_points", "waits_for_math"]

PART = 1500
"""About how many characters of HTML one laid-out part holds."""

WAITS_FOR_MATH = "waitsForMath"
"""The property a document made while its formulas were still being typeset has."""

DocumentFactory = Callable[[str], QTextDocument]
"""Makes a document of the given HTML, styled and laid out at the row's width."""


def cut_points(length: int, breaks: list[tuple[int, bool]], size: int = PART) -> list[int]:
    """Where the parts of an HTML text of ``length`` begin, given where it may be cut."""
    cuts = [0]
    for at, always in breaks:
        if cuts[-1] < at < length and (always or at - cuts[-1] >= size):
            cuts.append(at)
    return cuts


@dataclass
class _Part:
    start: int
    html: str
    doc: QTextDocument
    top: float
    bottom: float


@dataclass
class MessageLayout:
    """A message laid out for one width and theme, at one revision of the message."""

    revision: object
    codes: list[str]
    html: str
    parts: list[_Part]
    height: float
    streams: dict[int, MarkdownStream] = field(default_factory=dict)
    """Each text block's rendering, kept for the message's next revision."""
    changed_top: float = 0.0
    """Where the first part laid out anew begins (the height when none was)."""
    resized: bool = True
    """Whether the height differs from the previous revision's (or there was none)."""
    behind: bool = False
    """Whether some text is not laid out yet (it grew faster than it is rendered)."""
    _make: DocumentFactory | None = None
    _whole: QTextDocument | None = None
    _natural: float | None = None

    @classmethod
    def build(
        cls,
        rendered: RenderedMessage,
        revision: object,
        make: DocumentFactory,
        streams: dict[int, MarkdownStream],
        previous: MessageLayout | None = None,
    ) -> MessageLayout:
        """Lay ``rendered`` out, keeping the documents of ``previous`` whose HTML is unchanged."""
        html = rendered.html
        cuts = cut_points(len(html), rendered.breaks)
        parts = _finished_parts(previous, html, cuts)
        top = parts[-1].bottom if parts else 0.0
        old = {(p.start, len(p.html)): p for p in previous.parts[len(parts) :]} if previous else {}
        changed: float | None = None
        for start, end in zip(
            cuts[len(parts) :], [*cuts[len(parts) + 1 :], len(html)], strict=True
        ):
            if parts:
                top += _bottom_margin(parts[-1].doc)
            piece = html[start:end]
            kept = old.get((start, end - start))
            if kept is not None and kept.html == piece and not waits_for_math(kept.doc):
                doc = kept.doc
            else:
                doc = make(piece)
                changed = top if changed is None else changed
            parts.append(_Part(start, piece, doc, top, top + doc.size().height()))
            top = parts[-1].bottom
        changed_top = top if changed is None else changed
        resized = previous is None or previous.height != top
        return cls(
            revision,
            rendered.code_blocks,
            html,
            parts,
            top,
            streams,
            changed_top,
            resized,
            rendered.behind,
            make,
        )

    @property
    def doc(self) -> QTextDocument:
        """The whole message as one document (as the parts are drawn; for reading it)."""
        if len(self.parts) == 1:
            return self.parts[0].doc
        if self._whole is None:
            assert self._make is not None
            self._whole = self._make(self.html)
        return self._whole

    def natural_width(self) -> float:
        """How wide the laid-out text is: its widest line (no wider than its layout)."""
        if self._natural is None:
            self._natural = max((p.doc.idealWidth() for p in self.parts), default=0.0)
        return self._natural

    def documents(self) -> Iterator[QTextDocument]:
        """The laid-out parts' documents."""
        return (p.doc for p in self.parts)

    def draw(
        self,
        painter: QPainter,
        context: QAbstractTextDocumentLayout.PaintContext,
        visible: tuple[float, float],
        before: Callable[[QTextDocument], None] | None = None,
    ) -> None:
        """Draw the parts that lie within ``visible`` (top and bottom, in the message's own
        coordinates); ``before`` is called with each document about to be drawn."""
        low, high = visible
        first = max(0, bisect_right(self.parts, low, key=_bottom_of) - 1)
        for part in self.parts[first:]:
            if part.top > high:
                break
            if part.bottom < low:
                continue
            if before is not None:
                before(part.doc)
            painter.translate(QPointF(0, part.top))
            context.clip = QRectF(0, low - part.top, part.doc.textWidth(), high - low)
            part.doc.documentLayout().draw(painter, context)
            painter.translate(QPointF(0, -part.top))

    def anchor_at(self, pos: QPointF) -> str:
        """The link at ``pos`` (the message's own coordinates), or ``""``."""
        for part in reversed(self.parts):
            if pos.y() >= part.top:
                local = QPointF(pos.x(), pos.y() - part.top)
                return str(part.doc.documentLayout().anchorAt(local))
        return ""


def waits_for_math(doc: QTextDocument) -> bool:
    """Whether ``doc`` shows formulas as their source while they are typeset (so it is made
    again, not kept, when its message is laid out next)."""
    return bool(doc.property(WAITS_FOR_MATH))


def _bottom_of(part: _Part) -> float:
    return part.bottom


def _finished_parts(previous: MessageLayout | None, html: str, cuts: list[int]) -> list[_Part]:
    """The parts of ``previous`` before its last one, when ``html`` begins with the same HTML
    and is cut at the same place after them (a streamed reply's finished blocks): kept as they
    are, without comparing their HTML or laying them out again."""
    if previous is None or len(previous.parts) < 2:
        return []
    keep = len(previous.parts) - 1
    end = previous.parts[keep].start
    if (
        keep >= len(cuts)
        or cuts[keep] != end
        or cuts[:keep] != [p.start for p in previous.parts[:keep]]
    ):
        return []
    if not html.startswith(previous.html[:end]):
        return []
    for i, part in enumerate(previous.parts[:keep]):
        if waits_for_math(part.doc):
            return previous.parts[:i]  # laid out again from there, with its formulas
    return previous.parts[:keep]


def _bottom_margin(doc: QTextDocument) -> float:
    # a document's height leaves out its last block's bottom margin; the next part needs it
    return float(doc.lastBlock().blockFormat().bottomMargin())
