"""``PendingSend``: a message sent while the open thread's run has not ended yet.

Enter (or Send) while a run is still going, e.g. just after its answer appeared and while the
run is still finishing, does not drop the message: the text stays in the box, the hint beside
it says it will go, and it is sent as soon as the run ends. When the run ends by waiting for
the user's decision (an approval, a budget pause), it is not sent, since sending would set that
decision aside; the hint says so and the text stays in the box.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from app.ui.composer import ComposerPanel

__all__ = ["HELD", "NOT_SENT_WAITING", "PendingSend"]

HELD = "Your message goes out as soon as this answer has finished."
NOT_SENT_WAITING = "Not sent: this thread is waiting for your decision; send it once you decide."


class PendingSend(QObject):
    """Holds one message for the open thread until its run ends, then calls ``send``."""

    def __init__(
        self, composer: ComposerPanel, send: Callable[[], object], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._composer = composer
        self._send = send
        self.thread_id: str | None = None
        """The thread the held message is for (``None``: nothing is held)."""

    def hold(self, thread_id: str) -> None:
        """Keep the composer's message for ``thread_id`` until its run ends."""
        self.thread_id = thread_id
        self._composer.set_hint(HELD)

    def thread_opened(self, thread_id: str) -> None:
        """Another thread was opened: the message stays in the box, unsent."""
        if self.thread_id is not None and thread_id != self.thread_id:
            self.thread_id = None
            self._composer.set_hint("")

    def status_changed(self, thread_id: str | None, status: str) -> None:
        """The open thread's run status changed: send the held message once it has ended."""
        if self.thread_id is None or thread_id != self.thread_id:
            return
        if status == "running":
            self._composer.set_hint(HELD)
            return
        self.thread_id = None
        if status == "waiting":
            self._composer.set_hint(NOT_SENT_WAITING)
        elif self._composer.text().strip() or self._composer.attached():
            self._send()
