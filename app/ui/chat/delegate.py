"""``MessageDelegate``: paints one message row from its cached :class:`MessageLayout`.

Only visible rows are painted, and each message is laid out once per revision, width and
theme (an LRU cache), so long threads scroll smoothly. When a streaming reply changes, its
finished Markdown blocks keep their rendering and their laid-out parts; an update renders and
lays out only the open tail, so its cost does not grow with the reply.
"""

from __future__ import annotations

import datetime as dt
import html
import logging
from collections import OrderedDict
from math import ceil

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRect,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtCore import Signal as QtSignal
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPalette,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
)

from app.core.state import Message
from app.text.hidden_chars import mark_hidden
from app.ui.attachments.thumbs import ThumbnailCache
from app.ui.chat.blocks.document import MediaDocument
from app.ui.chat.branch_switcher import SWITCHER_HEIGHT, SWITCHER_WIDTH
from app.ui.chat.caret import Caret
from app.ui.chat.delegated import DelegatedRun, card_html
from app.ui.chat.markdown import WARM_UP_SAMPLE, code_background
from app.ui.chat.markdown_stream import MarkdownStream
from app.ui.chat.math.cache import MathImages, MathKey, math_images
from app.ui.chat.math.typeset import math_style, typeset_html
from app.ui.chat.message_html import RenderedMessage, message_html
from app.ui.chat.message_layout import WAITS_FOR_MATH, MessageLayout
from app.ui.chat.message_model import (
    BranchRole,
    DelegationRole,
    MessageListModel,
    MessageRole,
    RevisionRole,
)
from app.ui.chat.row_actions import ACTION_WIDTH, LABELS, draw_actions
from app.ui.chat.unfolding import Unfolding
from app.ui.painting import draw_focus_ring
from app.ui.theme import ACCENT, is_dark, roles

__all__ = ["LABELS", "MessageDelegate", "is_dark"]

log = logging.getLogger(__name__)

MAX_COLUMN = 860
SIDE = 24
PAD = 12
HEADER = 22
FOOTER = 22
GAP = 10
CONTINUED = 2
"""How far below its top a row that goes on with the reply above it begins."""
BUBBLE = 0.78
"""The widest a person's bubble is, as a share of the reading column."""
ACTIONS = ("copy", "edit", "regenerate", "delete")
Index = QModelIndex | QPersistentModelIndex
_SizeKey = tuple[tuple[int, int, bool], int, frozenset[str]]
"""What a row's kept size was laid out for: the look, the text's lead, its unfolded cards."""
_NONE: frozenset[str] = frozenset()
YOU = "You"
"""The header of the person's own messages."""

_MATH_ARRIVED = object()

MATH_ROWS_AT_ONCE = 3
"""How many rows whose formulas arrived are laid out again per look (every 40 ms)."""
"""The revision of a layout whose formulas arrived typeset: no row's revision is it, so the
row is laid out again."""


def bubbled(message: Message) -> bool:
    """Whether the message is drawn as a compact bubble (the person's own words), not as a
    document across the reading column."""
    return message.role == "user" and message.agent is None


def bubble_text_width(width: int) -> int:
    """How wide a bubble's text is laid out when a reply's text is ``width`` wide."""
    return min(width, max(120, int((width + 2 * PAD) * BUBBLE) - 2 * PAD))


def _meta(message: Message) -> str:
    """When the message was written and the tokens its model call used (shown muted, on the
    row under the pointer or in focus)."""
    said = []
    if message.timestamp:
        said.append(dt.datetime.fromtimestamp(message.timestamp).strftime("%H:%M"))
    usage = message.usages
    if usage and usage.total_tokens:
        said.append(f"{usage.total_tokens:,} tokens")
    return " · ".join(said)


def _who(message: Message, author: str = "Parley") -> str:
    """The row's header: who wrote the message (``author``: the thread's agent)."""
    if message.agent is not None:
        name = mark_hidden(message.agent)[:80]
        return {"user": f"Delegated to {name}", "tool": "Tool result"}.get(message.role, name)
    return {"user": YOU, "assistant": author, "tool": "Tool result"}.get(
        message.role, message.role.title()
    )


class MessageDelegate(QStyledItemDelegate):
    """Paints messages; emits what the user clicked (a link or a row action)."""

    linkActivated = QtSignal(str, int)
    """``href`` clicked in row ``row``."""
    actionTriggered = QtSignal(str, int)
    """A row action (``copy``, ``edit``, ``regenerate``, ``delete``) on row ``row``."""
    mathTypeset = QtSignal()
    """Formulas typeset in the background arrived: the rows showing them are laid out anew
    (their heights may have changed)."""

    def __init__(self, view: QListView, math: MathImages | None = None) -> None:
        super().__init__(view)
        self._view = view
        self.math = math_images() if math is None else math
        """The typeset formulas (shared by the app's views unless one is given)."""
        self.wait_for_math = False
        """Typeset a row's formulas before laying it out, instead of showing their source
        until they are typeset in the background."""
        self._waiting: dict[MathKey, set[str]] = {}
        self._arrived: dict[str, None] = {}
        """Rows (message ids) whose formulas arrived typeset but are not laid out again yet."""
        """Formulas being typeset in the background → the messages that show them."""
        self._math_timer = QTimer(self)
        self._math_timer.setInterval(40)
        self._math_timer.timeout.connect(self._collect_math)
        self._cache: OrderedDict[tuple[object, ...], MessageLayout] = OrderedDict()
        self._rendered: OrderedDict[
            tuple[object, ...], tuple[object, RenderedMessage, dict[int, MarkdownStream]]
        ] = OrderedDict()
        """Each message's HTML by theme and unfolded cards, with the revision it renders:
        it does not depend on the width, so a row laid out anew at another width (the window
        resized) or after :meth:`forget` is not rendered again."""
        self._heights: dict[int, tuple[_SizeKey, QSize]] = {}
        """Each laid-out revision's row size and what it was laid out for (the look, the
        text's lead, the row's unfolded cards): the view asks every loaded row its size
        whenever one row grows or a card unfolds, so this answer is kept cheap, and a card
        unfolding lays out its own row only."""
        self._expanded: set[str] = set()
        self.caret: Caret | None = None
        """The streaming reply's caret (set by the view), drawn at the newest row's end."""
        self.unfolding: Unfolding | None = None
        """The card row whose height is moving as it unfolds or folds (set by the view)."""
        self.pass_look: tuple[int, int, bool] | None = None
        """:meth:`look`, while the view lays out every row at once (set by the view)."""
        self.thumbs: ThumbnailCache | None = None
        self.behind: set[str] = set()
        """Ids of messages whose text is laid out only in part so far (see :meth:`advance`)."""
        self.author = "Parley"
        """Whose replies the thread shows: the name of its agent."""

    @property
    def expanded(self) -> set[str]:
        """Keys of unfolded cards (``message_id:block``)."""
        return self._expanded

    @expanded.setter
    def expanded(self, keys: set[str]) -> None:
        self._expanded = keys  # each row's kept size says which of its cards it had unfolded

    def unfolded(self, message_id: str) -> frozenset[str]:
        """The keys of the unfolded cards of the message ``message_id``."""
        if not self._expanded:
            return _NONE
        prefix = f"{message_id}:"
        return frozenset(k for k in self._expanded if k.startswith(prefix))

    # Layout --------------------------------------------------------------------------

    def column(self, rect: QRect) -> QRect:
        """The centred column a row's content sits in."""
        width = min(MAX_COLUMN, max(200, rect.width() - 2 * SIDE))
        left = rect.x() + max(SIDE, (rect.width() - width) // 2)
        return QRect(left, rect.y(), width, rect.height())

    def bubble(self, col: QRect, laid: MessageLayout) -> QRect:
        """The bubble of a person's message laid out as ``laid``, in the column ``col``: as
        wide as its text (and its header) needs, at the column's right."""
        bold = QFont(self._view.font())
        bold.setBold(True)
        name = QFontMetrics(bold).horizontalAdvance(YOU)
        width = min(col.width(), ceil(max(laid.natural_width(), name)) + 2 * PAD)
        return QRect(col.right() + 1 - width, col.y(), width, col.height())

    def bubble_at(self, index: Index, rect: QRect) -> QRect:
        """The bubble of the person's message ``index`` drawn at ``rect``."""
        col = self.column(rect)
        return self.bubble(col, self._laid(index, col.width() - 2 * PAD))

    def text_left(self, index: Index, rect: QRect) -> int:
        """Where the text of the row drawn at ``rect`` begins (viewport coordinates)."""
        message: Message | None = index.data(MessageRole)
        if message is None or not bubbled(message):
            return self.column(rect).x() + PAD
        return self.bubble_at(index, rect).x() + PAD

    def _laid(
        self,
        index: Index,
        width: int,
        *,
        advance: bool = False,
        shown: frozenset[str] | None = None,
    ) -> MessageLayout:
        """The row laid out at ``width``, its cards unfolded as they are now (or as ``shown``
        says: the keys of the row's unfolded cards)."""
        message: Message = index.data(MessageRole)
        if bubbled(message):
            width = bubble_text_width(width)
        dark = is_dark(self._view.palette())
        mine = self.unfolded(str(message.message_id)) if shown is None else shown
        run: DelegatedRun | None = index.data(DelegationRole) if message.agent else None
        card = (run.title, run.key in mine) if run is not None and run.first else None
        key = (str(message.message_id), width, dark, mine, card)
        revision = index.data(RevisionRole)
        laid = self._cache.get(key)
        if laid is not None:
            self._cache.move_to_end(key)
            if laid.revision == revision and not (advance and laid.behind):
                return laid
        message_id = key[0]
        html_key = (message_id, dark, mine, card)
        kept = self._rendered.get(html_key) if laid is None else None
        if kept is not None and kept[0] == revision:  # laid out anew at another width
            self._rendered.move_to_end(html_key)
            rendered, streams = kept[1], kept[2]
        else:
            streams = {} if laid is None else laid.streams
            rendered = self._render(message, index, dark, mine, streams, run, card)
            if not rendered.behind:
                self._rendered[html_key] = (revision, rendered, streams)
                if len(self._rendered) > 600:
                    self._rendered.popitem(last=False)
        laid = MessageLayout.build(
            rendered,
            revision,
            lambda part: self._document(part, width, dark, message_id),
            streams,
            laid,
        )
        self._heights.pop(revision, None)
        self._cache[key] = laid
        if laid.behind:
            self.behind.add(key[0])
        else:
            self.behind.discard(key[0])
        if len(self._cache) > 600:
            self._cache.popitem(last=False)
        return laid

    def _render(
        self,
        message: Message,
        index: Index,
        dark: bool,
        mine: frozenset[str],
        streams: dict[int, MarkdownStream],
        run: DelegatedRun | None,
        card: tuple[str, bool] | None,
    ) -> RenderedMessage:
        """The row's HTML, its cards ``mine`` unfolded (and a delegate's card on top)."""
        model = index.model()
        results = model.results if isinstance(model, MessageListModel) else None
        try:
            rendered = message_html(
                message, dark=dark, expanded=mine, results=results, streams=streams
            )
            if run is not None and card is not None:
                head = card_html(run, expanded=card[1], dark=dark)
                rendered = (
                    RenderedMessage(
                        head + rendered.html,
                        rendered.code_blocks,
                        [(len(head) + at, always) for at, always in rendered.breaks],
                        rendered.behind,
                    )
                    if card[1]
                    else RenderedMessage(head)
                )
        except Exception:  # a message that cannot be drawn richly is still shown, as text
            log.exception("could not render message %s", message.message_id)
            rendered = RenderedMessage(f"<pre>{html.escape(message.text())}</pre>")
        return rendered

    def _document(
        self, html_text: str, width: int, dark: bool, message_id: str = ""
    ) -> QTextDocument:
        doc = QTextDocument() if self.thumbs is None else MediaDocument(self.thumbs, dark)
        doc.setDocumentMargin(0)
        doc.setDefaultFont(self._view.font())
        link = self._view.palette().color(QPalette.ColorRole.Link).name()
        doc.setDefaultStyleSheet(
            f"a {{ color: {link}; }} p {{ margin-top: 0; margin-bottom: 6px; }} "
            "th { text-align: left; }"
        )
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        doc.setDefaultTextOption(option)
        if "math:" in html_text:
            style = math_style(
                self._view.font(),
                self._view.palette().color(QPalette.ColorRole.Text),
                self._view.devicePixelRatioF(),
            )
            html_text, pending = typeset_html(
                doc,
                html_text,
                self.math,
                style,
                width=width,
                code_background=code_background(dark),
                wait=self.wait_for_math,
            )
            for math_key in pending:
                self._waiting.setdefault(math_key, set()).add(message_id)
            if pending:
                doc.setProperty(WAITS_FOR_MATH, True)
                if not self._math_timer.isActive():
                    self._math_timer.start()
        if isinstance(doc, MediaDocument):
            doc.set_media_html(html_text)
        else:
            doc.setHtml(html_text)
        doc.setTextWidth(width)
        return doc

    def document(self, index: Index) -> QTextDocument:
        """The row's laid-out rich text, as painted (its text is what the row says)."""
        return self._laid(index, self.text_width()).doc

    def code_block(self, index: Index, n: int) -> str | None:
        """The text of code block ``n`` of the row (for ``copy:N`` links)."""
        laid = self._laid(index, self.text_width())
        return laid.codes[n] if 0 <= n < len(laid.codes) else None

    def advance(self, index: Index) -> None:
        """Lay out more of the row's text, if it is laid out only in part."""
        self._laid(index, self.text_width(), advance=True)

    def resized(self, index: Index) -> bool:
        """Whether the row's latest change changed its height (so the rows need laying out)."""
        return self._laid(index, self.text_width()).resized

    def changed_rect(self, rect: QRect, index: Index) -> QRect:
        """The part of the row drawn at ``rect`` that its latest layout changed (from the
        first part laid out anew to the row's end, footer included)."""
        laid = self._laid(index, self.text_width())
        top = min(rect.bottom(), rect.y() + self.lead(index) + int(laid.changed_top))
        return QRect(rect.x(), top, rect.width(), rect.bottom() - top + 1)

    def text_width(self) -> int:
        """How wide a message's text is laid out in the view as it is now."""
        return self.column(self._view.viewport().rect()).width() - 2 * PAD

    def look(self) -> tuple[int, int, bool]:
        """What a row's size depends on besides its message: the view's width, the text's
        width and whether the theme is dark."""
        view = self._view.viewport().rect()
        return (view.width(), self.column(view).width() - 2 * PAD, is_dark(self._view.palette()))

    def lead(self, index: Index) -> int:
        """How far below the row's top its text begins: under a header (who and when), or
        nearly at once for a row that goes on with the reply above it."""
        model = index.model()
        if isinstance(model, MessageListModel) and model.continues(index.row()):
            return CONTINUED
        return GAP + HEADER

    def folded(self, index: Index) -> bool:
        """Whether the row is not shown: inside a folded delegate card, or only results of
        calls whose cards above show them."""
        message: Message | None = index.data(MessageRole)
        if message is None:
            return False
        model = index.model()
        if (
            message.role == "tool"
            and isinstance(model, MessageListModel)
            and model.merged(index.row())
        ):
            return True
        if message.agent is None:
            return False
        run: DelegatedRun | None = index.data(DelegationRole)
        return run is not None and not run.first and run.key not in self.expanded

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        look = self.pass_look or self.look()
        model = index.model()
        if isinstance(model, MessageListModel):
            row = index.row()
            message, revision = model.message_at(row), model.revision_at(row)
        else:
            message, revision = index.data(MessageRole), None
        hideable = message is not None and (message.agent or message.role == "tool")
        if hideable and self.folded(index):
            return QSize(look[0], 0)
        mine = _NONE if message is None else self.unfolded(str(message.message_id))
        size = self._size(index, look, revision, mine)
        moving = self.unfolding
        if (
            moving is not None
            and moving.moving()
            and message is not None
            and moving.message_id == str(message.message_id)
        ):
            return QSize(size.width(), moving.height(size.height()))
        return size

    def _size(
        self,
        index: Index,
        look: tuple[int, int, bool],
        revision: int | None,
        mine: frozenset[str],
    ) -> QSize:
        """The row's size as laid out now, with its cards ``mine`` unfolded (kept per
        revision)."""
        laid_for = (look, self.lead(index), mine)
        if revision is not None and (kept := self._heights.get(revision)) and kept[0] == laid_for:
            return kept[1]
        laid = self._laid(index, look[1])
        size = QSize(look[0], laid_for[1] + int(laid.height) + FOOTER + GAP)
        if revision is not None:
            if len(self._heights) > 5000:  # old revisions of streamed replies pile up
                self._heights.clear()
            self._heights[revision] = (laid_for, size)
        return size

    def action_rects(
        self, rect: QRect, message: Message, index: Index | None = None
    ) -> dict[str, QRect]:
        """Where each row action of the row ``index`` is drawn (and clicked): at the
        column's right, left of a bubble's versions' switcher."""
        col = self.column(rect)
        x = col.right() - PAD
        if index is not None and bubbled(message) and index.data(BranchRole) is not None:
            x -= SWITCHER_WIDTH + 4
        y = rect.bottom() - GAP - FOOTER + 4
        rects: dict[str, QRect] = {}
        for action in reversed(self.actions_for(message)):
            x -= ACTION_WIDTH
            rects[action] = QRect(x, y, ACTION_WIDTH, FOOTER - 6)
            x -= 2
        return rects

    def action_at(self, index: Index, pos: QPoint) -> str | None:
        """The row action under ``pos`` (viewport coordinates), if any."""
        message: Message | None = index.data(MessageRole)
        if message is None or self.folded(index):
            return None
        rects = self.action_rects(self._view.visualRect(index), message, index)
        return next((action for action, r in rects.items() if r.contains(pos)), None)

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: Index,
    ) -> bool:
        """Hovering over a row action's icon names it."""
        action = self.action_at(index, event.pos()) if index.isValid() else None
        if action is not None:
            QToolTip.showText(event.globalPos(), LABELS[action], view.viewport())
            return True
        return super().helpEvent(event, view, option, index)

    def switcher_rect(self, rect: QRect, index: Index | None = None) -> QRect:
        """Where the row ``index`` drawn at ``rect`` shows its versions' switcher: the
        footer's start, or its end under a bubble (the bubble's edge)."""
        col = self.column(rect)
        middle = rect.bottom() - GAP - FOOTER + 4 + (FOOTER - 6) // 2
        left = col.x() + PAD - 4
        message: Message | None = None if index is None else index.data(MessageRole)
        if message is not None and bubbled(message):
            left = col.right() - PAD + 4 - SWITCHER_WIDTH
        return QRect(left, middle - SWITCHER_HEIGHT // 2, SWITCHER_WIDTH, SWITCHER_HEIGHT)

    def actions_for(self, message: Message) -> tuple[str, ...]:
        """The row actions a message offers."""
        if message.agent is not None:
            return ("copy",)  # a delegate's work is its run's, not the person's to change
        if message.role == "user":
            return ("copy", "edit", "delete")
        if message.role == "assistant":
            return ("copy", "regenerate", "delete")
        return ("copy",)

    # Painting ------------------------------------------------------------------------

    def _streams_into(self, index: Index, message: Message) -> bool:
        caret = self.caret
        return (
            caret is not None
            and caret.active
            and message.role == "assistant"
            and index.row() == index.model().rowCount() - 1
        )

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        message: Message = index.data(MessageRole)
        if message is None or self.folded(index):
            return
        rect = option.rect
        palette: QPalette = option.palette
        state = option.state
        col = self.column(rect)
        moving = self.unfolding
        if moving is not None and moving.message_id == str(message.message_id):
            laid = self._laid(index, col.width() - 2 * PAD, shown=moving.shown)
        else:
            moving = None
            laid = self._laid(index, col.width() - 2 * PAD)
        dark = is_dark(palette)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        box = QRect(col.x(), rect.y() + GAP // 2, col.width(), rect.height() - GAP)
        top = rect.y() + GAP
        body = rect.y() + self.lead(index)
        delegated = message.agent is not None
        head = QRect(col.x() + PAD, top, col.width() - 2 * PAD, HEADER)
        if bubbled(message):
            # the bubble holds the words, as wide as they need; the actions show under it
            box.setBottom(min(box.bottom(), body + int(laid.height) + PAD // 2))
            bubble = self.bubble(col, laid)
            box.setLeft(bubble.left())
            head.setLeft(bubble.left() + PAD)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(roles(dark).card))
            painter.drawRoundedRect(box, 10, 10)
        if delegated:  # a bar down the card's rows shows what belongs to it
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(ACCENT))
            painter.drawRect(QRect(col.x() + 2, box.y() + 4, 3, box.height() - 8))
        if state & QStyle.StateFlag.State_HasFocus:
            draw_focus_ring(painter, palette, box, 10)
        small = QFont(self._view.font())
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        muted = palette.color(QPalette.ColorRole.PlaceholderText)
        if body > top:
            self._draw_header(painter, head, message, palette)
        # body (while the row's height moves, cut where its footer begins)
        if moving is not None:
            painter.setClipRect(
                QRect(rect.x(), rect.y(), rect.width(), rect.height() - GAP - FOOTER)
            )
        left = box.x() + PAD
        painter.translate(QPointF(left, body))
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, palette.color(QPalette.ColorRole.Text))
        shown = -body, self._view.viewport().height() - body
        laid.draw(painter, ctx, shown, _ensure_pictures)
        if self.caret is not None and self._streams_into(index, message):
            self.caret.draw_after(painter, laid, palette.color(QPalette.ColorRole.Text))
        painter.translate(QPointF(-left, -body))
        if moving is not None:
            painter.setClipping(False)
        painter.setFont(small)
        # footer, when hovered or focused: when and what it cost (muted), and the row's actions
        if state & (QStyle.StateFlag.State_MouseOver | QStyle.StateFlag.State_HasFocus):
            actions = self.action_rects(rect, message, index)
            foot = QRect(col.x() + PAD, rect.bottom() - GAP - FOOTER + 4, 0, FOOTER - 6)
            foot.setRight(min((r.left() for r in actions.values()), default=col.right()) - 8)
            if index.data(BranchRole) is not None and not bubbled(message):  # at its start
                foot.setLeft(self.switcher_rect(rect, index).right() + 6)
            align = Qt.AlignmentFlag.AlignRight if bubbled(message) else Qt.AlignmentFlag.AlignLeft
            painter.setPen(muted)
            painter.drawText(foot, int(align | Qt.AlignmentFlag.AlignVCenter), _meta(message))
            draw_actions(painter, actions, palette)
        painter.restore()

    def _draw_header(
        self, painter: QPainter, at: QRect, message: Message, palette: QPalette
    ) -> None:
        """Who wrote the message."""
        header_font = QFont(self._view.font())
        header_font.setBold(True)
        painter.setFont(header_font)
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        painter.drawText(at, left, _who(message, self.author))

    # Clicks --------------------------------------------------------------------------

    def editorEvent(self, event: QEvent, model: object, option: object, index: Index) -> bool:
        if event.type() != QEvent.Type.MouseButtonRelease or not isinstance(event, QMouseEvent):
            return False
        message: Message = index.data(MessageRole)
        rect = self._view.visualRect(index)
        pos = event.position().toPoint()
        for action, r in self.action_rects(rect, message, index).items():
            if r.contains(pos):
                self.actionTriggered.emit(action, index.row())
                return True
        href = self.href_at(index, event.position())
        if href:
            self.linkActivated.emit(href, index.row())
            return True
        return False

    def href_at(self, index: Index, pos: QPointF) -> str:
        """The link under ``pos`` (viewport coordinates) in the row, or ``""``."""
        rect = self._view.visualRect(index)
        col = self.column(rect)
        laid = self._laid(index, col.width() - 2 * PAD)
        local = QPointF(
            pos.x() - self.text_left(index, rect), pos.y() - rect.y() - self.lead(index)
        )
        return laid.anchor_at(local)

    def use_thumbnails(self, thumbs: ThumbnailCache) -> None:
        """Draw stored pictures from ``thumbs`` (decoded when first seen, off the UI thread)."""
        self.thumbs = thumbs
        thumbs.ready.connect(self._thumbnail_ready)
        self.forget()

    def _thumbnail_ready(self, key: str) -> None:
        docs = [
            doc
            for laid in self._cache.values()
            for doc in laid.documents()
            if isinstance(doc, MediaDocument)
        ]
        if any([doc.fill(key) for doc in docs]):
            self._view.viewport().update()

    def warm_up(self) -> None:
        """Lay out one message off-screen (fonts, code blocks, tables), so the first reply's
        first layout does not pay for them."""
        for dark in (False, True):
            rendered = message_html(Message.text_message(WARM_UP_SAMPLE), dark=dark)
            self._document(rendered.html, max(200, self.text_width()), dark).size()

    @property
    def typesetting(self) -> bool:
        """Whether formulas shown are still being typeset in the background."""
        return bool(self._waiting or self._arrived)

    def _collect_math(self) -> None:
        # the formulas typeset since the last look: the rows that show them as source are
        # laid out again when next asked (only their parts that wait for formulas are made
        # anew; a streamed reply's rendering is kept), a few rows a look, those in sight
        # first, so a page of formulas arriving at once never holds the window up
        done = self.math.collect()
        for key in done:
            self._arrived.update(dict.fromkeys(self._waiting.pop(key, set())))
        now = self._next_arrived(MATH_ROWS_AT_ONCE)
        if not self._waiting and not self._arrived:
            self._math_timer.stop()
        if not now:
            return
        model = self._view.model()
        for cache_key, laid in self._cache.items():
            if cache_key[0] in now:
                laid.revision = _MATH_ARRIVED
        for message_id in now:  # those rows' kept heights were the source's
            revision = None
            if (
                isinstance(model, MessageListModel)
                and (row := model.row_of(message_id)) is not None
            ):
                revision = model.revision_at(row)
            if revision is None:
                self._heights.clear()
            else:
                self._heights.pop(revision, None)
        self.mathTypeset.emit()

    def _next_arrived(self, count: int) -> list[str]:
        """Take up to ``count`` rows from those whose formulas arrived, the ones in sight
        first."""
        if not self._arrived:
            return []
        model, viewport = self._view.model(), self._view.viewport().rect()
        top = self._view.indexAt(viewport.topLeft()).row()
        bottom = self._view.indexAt(viewport.bottomLeft()).row()
        if top < 0 or not isinstance(model, MessageListModel):
            seen: list[str] = []
        else:
            last = bottom if bottom >= 0 else model.rowCount() - 1
            ids = (model.message_at(r) for r in range(top, last + 1))
            seen = [str(m.message_id) for m in ids if m and str(m.message_id) in self._arrived]
        taken = [*seen, *(m for m in self._arrived if m not in seen)][:count]
        for message_id in taken:
            del self._arrived[message_id]
        return taken

    def forget(self, message_id: str | None = None) -> None:
        """Drop every cached layout (the width or font changed; each message's HTML, which
        depends on neither, is kept per revision), or only those of the message
        ``message_id``, its HTML included (it is rendered and laid out anew when next asked;
        the other rows keep theirs)."""
        if message_id is not None:
            for key in [key for key in self._cache if key[0] == message_id]:
                del self._cache[key]
            for key in [key for key in self._rendered if key[0] == message_id]:
                del self._rendered[key]
            model = self._view.model()
            row = model.row_of(message_id) if isinstance(model, MessageListModel) else None
            if isinstance(model, MessageListModel) and row is not None:
                revision = model.revision_at(row)
                if revision is not None:
                    self._heights.pop(revision, None)
            self._arrived.pop(message_id, None)
            self.behind.discard(message_id)
            return
        self._cache.clear()
        self._heights.clear()
        self._arrived.clear()  # laid out anew, they will draw what has arrived
        self.behind.clear()


def _ensure_pictures(doc: QTextDocument) -> None:
    if isinstance(doc, MediaDocument):
        doc.ensure()
