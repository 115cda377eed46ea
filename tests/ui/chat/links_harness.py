"""What the chat's link tests share: a recorder of the addresses the window hands the system
to open, and the point of a row where a link is."""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, QPointF, QUrl, Slot

from app.ui.chat.view import ChatView


class OpenedUrls(QObject):
    """Records the addresses the window hands the system to open (install its ``open`` with
    ``QDesktopServices.setUrlHandler``); ``urls`` as text, ``given`` as Qt gave them."""

    def __init__(self) -> None:
        super().__init__()
        self.given: list[QUrl] = []
        self.urls: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.given.append(url)
        self.urls.append(url.toString())


def href_spot(chat: ChatView, row: int, href: str, step: int = 3) -> QPoint:
    """A point of ``row`` where the link ``href`` is (``StopIteration`` when none is)."""
    index = chat.vm.model.index(row, 0)
    rect = chat.visualRect(index)
    return next(
        QPoint(x, y)
        for y in range(rect.top(), rect.bottom(), step)
        for x in range(rect.left(), rect.right(), step)
        if chat.delegate.href_at(index, QPointF(x, y)) == href
    )
