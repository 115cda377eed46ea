"""``ChatView``: the virtualised message list with auto-follow, "jump to latest", older pages
loaded as the user scrolls up, and every row action reachable by mouse, menu and keyboard."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QContextMenuEvent,
    QDesktopServices,
    QGuiApplication,
    QHelpEvent,
    QKeyEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QMenu,
    QMessageBox,
    QToolButton,
    QToolTip,
    QWidget,
)

from app.core.state import AnnotationRef, Message
from app.text.hidden_chars import mark_hidden
from app.ui.chat.branch_switcher import BranchSwitcher, Switchers
from app.ui.chat.caret import Caret
from app.ui.chat.delegate import LABELS, MessageDelegate
from app.ui.chat.links import (
    CopyCode,
    MailLink,
    MediaAction,
    OpenSource,
    Remedy,
    ShowMemories,
    Toggle,
    WebLink,
    href_of,
    parse_link,
)
from app.ui.chat.message_html import citations, own_link
from app.ui.chat.message_model import DelegationRole
from app.ui.chat.unfolding import Unfolding
from app.ui.chat.viewmodel import FRAME_MS, ChatViewModel
from app.ui.dialogs import ask
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.services.knowledge.opening import CitedFile

__all__ = ["ChatView"]


class ChatView(QListView):
    """Shows the open thread's messages (object name ``chatView``)."""

    editRequested = Signal(str, str)
    """The user wants to edit message ``id`` whose text is given."""
    remedyRequested = Signal(str, str)
    """An error's remedy was chosen: action and target (e.g. ``set_key``, ``openai/api-key``)."""
    menuFilling = Signal(QMenu, Message, int)
    """A message's menu is being made: whoever listens may add entries (e.g. View/Play/Save
    for its attachments); the menu, the message and its row."""
    memoriesRequested = Signal(Message)
    """The reply's memory chip was clicked: show the memories it used and held back."""

    def __init__(
        self,
        vm: ChatViewModel,
        parent: QWidget | None = None,
        *,
        cited_file: Callable[[str], CitedFile | None],
    ) -> None:
        super().__init__(parent)
        self.vm = vm
        self._switchers = Switchers(self.viewport(), self._switch)
        """The versions' switchers, one per row in sight that has other versions."""
        self._cited_file = cited_file
        """What a citation's ``file://`` address would open, and why to ask first (the
        knowledge service's :meth:`~app.services.knowledge.KnowledgeService.cited_file`)."""
        self.setObjectName("chatView")
        self.setAccessibleName("Messages")
        self.setAccessibleDescription(
            "The conversation. Up and Down move between messages; the menu key opens a "
            "message's actions."
        )
        self.setModel(vm.model)
        self.delegate = MessageDelegate(self)
        self.setItemDelegate(self.delegate)
        self.caret = Caret(self.viewport())
        """The blinking bar at the end of a streaming reply (one timer, only while it streams)."""
        self.delegate.caret = self.caret
        self.unfolding = Unfolding(self)
        """A tool card's or a thinking section's row moving to its new height."""
        self.delegate.unfolding = self.unfolding
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setUniformItemSizes(False)
        self.setMouseTracking(True)
        self.setFrameShape(QListView.Shape.NoFrame)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.verticalScrollBar().setSingleStep(24)
        self.follow = True
        """Whether the view keeps the newest message in sight."""

        self.jump = QToolButton(self.viewport())
        self.jump.setObjectName("jumpToLatestButton")
        self.jump.setText("↓ Jump to latest")
        self.jump.setAccessibleName("Jump to latest message")
        self.jump.setCursor(Qt.CursorShape.PointingHandCursor)
        self.jump.clicked.connect(self.jump_to_latest)
        self.jump.hide()

        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range)
        self._user_scrolling = False
        self._laid_width = -1
        self._catch_up = QTimer(self)
        self._catch_up.setSingleShot(True)
        self._catch_up.setInterval(FRAME_MS * 3 // 2)
        self._catch_up.timeout.connect(self._lay_out_more)
        vm.model.rowsInserted.connect(self._on_rows)
        vm.model.modelReset.connect(self._on_reset)
        vm.model.rowsRemoved.connect(self._place_switchers_soon)
        vm.branchesChanged.connect(self._place_switchers_soon)
        vm.branchShown.connect(self._on_branch_shown)
        vm.statusChanged.connect(self._on_status)
        self.delegate.linkActivated.connect(self._on_link)
        self.delegate.actionTriggered.connect(self._on_action)
        self.delegate.mathTypeset.connect(self._on_math)

    def _on_status(self, status: str) -> None:
        if status == "running":
            self.caret.start()
        else:
            self.caret.stop()

    # Following the newest message ----------------------------------------------------

    def _on_reset(self) -> None:
        self.delegate.forget()
        self.follow = True
        self.jump.hide()
        QTimer.singleShot(0, self.scrollToBottom)

    def _on_rows(self, _parent: QModelIndex, first: int, _last: int) -> None:
        if first == 0 and self.model().rowCount() > _last + 1:
            return  # an older page came in above: _load_older keeps the position
        if self.follow:
            QTimer.singleShot(0, self.scrollToBottom)

    def dataChanged(
        self,
        top: QModelIndex | QPersistentModelIndex,
        bottom: QModelIndex | QPersistentModelIndex,
        roles: Sequence[int] = (),
    ) -> None:
        # A streaming reply grew. When its height is unchanged, paint again only the part of
        # it that was laid out again (its open tail), not every row in sight; otherwise lay
        # the rows out again (which asks every loaded row its height) and follow the reply.
        rows = range(top.row(), bottom.row() + 1)
        indexes = [self.model().index(row, 0) for row in rows]
        if not any([self.delegate.resized(i) for i in indexes]):
            for index in indexes:
                self.viewport().update(self.delegate.changed_rect(self.visualRect(index), index))
        else:
            super().dataChanged(top, bottom, list(roles))
            self.scheduleDelayedItemsLayout()
            if self.follow:
                QTimer.singleShot(0, self.scrollToBottom)
        if self.delegate.behind:
            self._catch_up.start()  # (again): while updates come, each lays out a part

    def doItemsLayout(self) -> None:
        # every loaded row is asked its size: work out once what the sizes depend on
        self.delegate.pass_look = self.delegate.look()
        try:
            super().doItemsLayout()
        finally:
            self.delegate.pass_look = None

    def _on_math(self) -> None:
        # formulas arrived typeset: the rows showing them have new layouts (and heights)
        self.scheduleDelayedItemsLayout()
        self.viewport().update()
        if self.follow:
            QTimer.singleShot(0, self.scrollToBottom)

    def _lay_out_more(self) -> None:
        # a reply grew faster than one update lays out, and no update came for a frame and a
        # half (it is done, or paused): lay out its next part
        model = self.vm.model
        for message_id in list(self.delegate.behind):
            row = model.row_of(message_id)
            if row is None:
                self.delegate.behind.discard(message_id)
                continue
            index = model.index(row)
            self.delegate.advance(index)
            self.dataChanged(index, index)

    # The versions' switchers ---------------------------------------------------------

    def _place_switchers_soon(self) -> None:
        QTimer.singleShot(0, self._place_switchers)

    def _place_switchers(self) -> None:
        """Put a switcher on each row in sight whose message has other versions."""
        model, viewport = self.vm.model, self.viewport().rect()
        spots = []
        top = max(0, self.indexAt(viewport.topLeft()).row())
        bottom = self.indexAt(viewport.bottomLeft()).row()
        for row in range(top, model.rowCount() if bottom < 0 else bottom + 1):
            version, message = model.branch_at(row), model.message_at(row)
            rect = self.visualRect(index := model.index(row))
            if (
                version
                and message
                and rect.intersects(viewport)
                and not self.delegate.folded(index)
            ):
                spots.append(
                    (str(message.message_id), version, self.delegate.switcher_rect(rect, index))
                )
        self._switchers.place(spots)

    def switchers(self) -> list[BranchSwitcher]:
        """The versions' switchers shown now, top to bottom."""
        return self._switchers.shown()

    def _switch(self, message_id: str, index: int) -> None:
        spawn(self.vm.switch_branch(message_id, index))

    def _on_branch_shown(self, message_id: str) -> None:
        """Another version was switched to: keep it focused and in sight."""
        row = self.vm.model.row_of(message_id)
        if row is None:
            return
        self.follow = False
        index = self.model().index(row, 0)
        self.setCurrentIndex(index)
        # once the rows are laid out again
        QTimer.singleShot(
            0, lambda: self.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        )

    def updateGeometries(self) -> None:
        super().updateGeometries()
        self._place_switchers()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self._place_switchers()

    def _on_range(self, _low: int, high: int) -> None:
        if self.follow:
            self.verticalScrollBar().setValue(high)

    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        at_bottom = value >= bar.maximum() - 8
        if at_bottom != self.follow and not (self.follow and bar.maximum() == 0):
            self.follow = at_bottom
        self.jump.setVisible(not self.follow)
        self._place_jump()
        if value <= 40 and self.vm.can_load_older():
            spawn(self._load_older())

    async def _load_older(self) -> None:
        bar = self.verticalScrollBar()
        before_max, before_value = bar.maximum(), bar.value()
        added = await self.vm.load_older()
        if added:
            self.doItemsLayout()
            bar.setValue(before_value + bar.maximum() - before_max)

    def jump_to_latest(self) -> None:
        """Scroll to the newest message and follow new ones again."""
        self.follow = True
        self.jump.hide()
        self.scrollToBottom()

    def wheelEvent(self, event: object) -> None:
        super().wheelEvent(event)  # type: ignore[arg-type]

    def resizeEvent(self, event: object) -> None:
        # layouts are kept per width: drop them only when the text's width changes, not when
        # only the height does or a scroll bar appears beside a column that keeps its width
        width = self.delegate.text_width()
        if width != self._laid_width:
            self.delegate.forget()
            self._laid_width = width
        super().resizeEvent(event)  # type: ignore[arg-type]
        self._place_jump()
        if self.follow:
            QTimer.singleShot(0, self.scrollToBottom)

    def _place_jump(self) -> None:
        size = self.jump.sizeHint()
        vp = self.viewport().rect()
        self.jump.setGeometry(
            vp.right() - size.width() - 16, vp.bottom() - size.height() - 12, *size.toTuple()
        )

    # Links and actions ---------------------------------------------------------------

    def _on_link(self, href: str, row: int) -> None:
        intent = parse_link(href)
        match intent:
            case WebLink(url) | MailLink(url):
                QDesktopServices.openUrl(QUrl(url))
                return
            case None | MediaAction():
                return  # an attachment's action is the attachments' to carry out
        message = self.message_at_row(row)
        card = self.model().index(row, 0).data(DelegationRole)
        key = card.key if card is not None and card.first else None
        if message is None or not own_link(message, intent, key):
            return  # only the intents Parley put on this row do anything
        match intent:
            case CopyCode(n):
                text = self.delegate.code_block(self.model().index(row, 0), n)
                if text is not None:
                    QGuiApplication.clipboard().setText(text)
                    self.vm.notice.emit("Copied the code.")
            case Toggle(folded):
                self._toggle(row, message, folded, key)
            case Remedy("retry"):
                spawn(self.vm.regenerate())
            case Remedy(action, target):
                self.remedyRequested.emit(action, target)
            case ShowMemories():
                self.memoriesRequested.emit(message)
            case OpenSource(n):
                ref = self._citation(row, n)
                if ref is not None and ref.url:
                    self._open_source(ref.url)
                elif ref is not None:
                    self.vm.notice.emit("This source has no address to open.")

    def _toggle(self, row: int, message: Message, folded: str, run: str | None) -> None:
        """Fold or unfold the card ``folded`` of ``message`` (in ``row``); a card of the
        row's own (not the delegate's run, ``run``, whose rows appear and go with it) moves
        to its new height."""
        message_id = str(message.message_id)
        mine = self.delegate.unfolded(message_id)
        height = self.visualRect(self.model().index(row, 0)).height()
        self.delegate.expanded ^= {folded}
        if folded != run:
            self.unfolding.start(message_id, height, mine if folded in mine else None)
        else:
            self.unfolding.stop()
        self.scheduleDelayedItemsLayout()
        self.viewport().update()

    def _open_source(self, url: str) -> None:
        """Open a citation: a web page in the browser; a file only when it is inside a
        knowledge folder, of a kind indexed and not a program, else after a question."""
        if isinstance(parse_link(url), WebLink):
            QDesktopServices.openUrl(QUrl(url))
            return
        if not url.lower().startswith("file:"):
            self.vm.notice.emit(
                "This source's address is not a web page or a file; it opens nothing."
            )
            return
        cited = self._cited_file(url)
        if cited is None:
            self.vm.notice.emit("This source is not a file on this computer.")
        elif cited.missing:
            self.vm.notice.emit(f"{mark_hidden(str(cited.path))} is not there any more.")
        elif cited.doubt is None:
            QDesktopServices.openUrl(QUrl(cited.url))
        else:
            spawn(self._ask_to_open(cited))

    async def _ask_to_open(self, cited: CitedFile) -> None:
        """Ask before opening a cited file that is not plainly a knowledge folder's document
        (No is the default and what Esc answers)."""
        box = QMessageBox(self)
        box.setObjectName("openCitedFileBox")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Open a cited file")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"Open {mark_hidden(str(cited.path))}? {cited.doubt}")
        box.setStandardButtons(QMessageBox.StandardButton.Open | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setEscapeButton(QMessageBox.StandardButton.No)
        await ask(box)
        chosen = box.clickedButton() is box.button(QMessageBox.StandardButton.Open)
        box.deleteLater()
        if chosen:
            QDesktopServices.openUrl(QUrl(cited.url))

    def _citation(self, row: int, n: int) -> AnnotationRef | None:
        """Citation ``n`` (from 1) of the message in ``row``."""
        message = self.message_at_row(row)
        refs = citations(message) if message is not None else []
        return refs[n - 1] if 0 < n <= len(refs) else None

    def viewportEvent(self, event: QEvent) -> bool:
        """Hovering over a source chip shows the passage it cites."""
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            index = self.indexAt(event.pos())
            href = self.delegate.href_at(index, QPointF(event.pos())) if index.isValid() else ""
            intent = parse_link(href)
            if isinstance(intent, OpenSource):
                ref = self._citation(index.row(), intent.index)
                if ref is not None:
                    QToolTip.showText(event.globalPos(), _passage_tip(ref), self.viewport())
                    return True
            QToolTip.hideText()
        return super().viewportEvent(event)

    def message_at_row(self, row: int) -> Message | None:
        """The message shown in ``row``."""
        return self.vm.model.message_at(row)

    def _on_action(self, action: str, row: int) -> None:
        message = self.message_at_row(row)
        if message is None:
            return
        if action == "copy":
            QGuiApplication.clipboard().setText(message.text())
            self.vm.notice.emit("Copied the message.")
        elif action == "edit":
            self.editRequested.emit(str(message.message_id), message.text())
        elif action == "regenerate":
            spawn(self.vm.regenerate())
        elif action == "delete":
            spawn(self.vm.delete_message(str(message.message_id)))

    def _menu_for(self, row: int) -> QMenu | None:
        message = self.message_at_row(row)
        if message is None:
            return None
        menu = QMenu(self)
        for action in self.delegate.actions_for(message):
            menu.addAction(LABELS[action], partial(self._on_action, action, row))
        self.menuFilling.emit(menu, message, row)
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        index = self.indexAt(event.pos())
        if not index.isValid():
            index = self.currentIndex()
        menu = self._menu_for(index.row()) if index.isValid() else None
        if menu is not None:
            menu.popup(event.globalPos())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        index = self.currentIndex()
        if event.matches(QKeySequence.StandardKey.Copy) and index.isValid():
            self._on_action("copy", index.row())
            return
        card = index.data(DelegationRole) if index.isValid() else None
        toggles = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if card is not None and card.first and event.key() in toggles:
            self._on_link(href_of(Toggle(card.key)), index.row())  # fold or unfold the card
            return
        steps = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: 1}
        if (
            event.modifiers() == Qt.KeyboardModifier.AltModifier
            and event.key() in steps
            and index.isValid()
        ):
            message = self.message_at_row(index.row())
            if message is not None:  # another version of the focused message
                spawn(self.vm.step_branch(str(message.message_id), steps[Qt.Key(event.key())]))
            return
        if event.key() == Qt.Key.Key_Menu and index.isValid():
            menu = self._menu_for(index.row())
            if menu is not None:
                menu.popup(self.viewport().mapToGlobal(self.visualRect(index).center()))
            return
        super().keyPressEvent(event)

    def moveCursor(
        self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        """Move as the list does, over the rows of folded delegate cards."""
        current = self.currentIndex()
        index = super().moveCursor(action, modifiers)
        step = -1 if current.isValid() and index.row() < current.row() else 1
        while index.isValid() and self.delegate.folded(index):
            index = self.model().index(index.row() + step, 0)
        return index if index.isValid() else current

    def mouseMoveEvent(self, event: object) -> None:
        super().mouseMoveEvent(event)  # type: ignore[arg-type]
        pos = event.position()  # type: ignore[attr-defined]
        index = self.indexAt(QPoint(int(pos.x()), int(pos.y())))
        over_link = index.isValid() and bool(self.delegate.href_at(index, pos))
        self.viewport().setCursor(
            Qt.CursorShape.PointingHandCursor if over_link else Qt.CursorShape.ArrowCursor
        )


def _passage_tip(ref: AnnotationRef) -> str:
    """A citation's tooltip: its title, then the passage's start, as plain text."""
    title = html.escape(ref.title or ref.url or "source")
    passage = html.escape(ref.snippet or "")
    return f"<b>{title}</b><br/>{passage}" if passage else f"<b>{title}</b>"
