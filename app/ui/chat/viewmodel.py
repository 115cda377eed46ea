"""``ChatViewModel``: what the chat view shows for the open thread, fed by the event bus.

It holds the :class:`MessageListModel`, pages older messages in on request, coalesces a
streaming reply's updates to one repaint per frame, and turns the user's intents (send, stop,
regenerate, edit, answer) into calls of the thread and run services it is handed. Widgets
never call the services themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.errors import ParleyError
from app.core.state import ContentBlock
from app.core.tools import ApprovalAnswer
from app.services.bus import EventBus
from app.services.events import (
    ApprovalNeeded,
    BudgetUpdated,
    MessageAdded,
    MessageRemoved,
    MessageStreamed,
    Problem,
    Retrying,
    RunStatusChanged,
    WorkspaceEvent,
)
from app.services.problems import problem_of
from app.services.runs import RunService
from app.services.settings.store import SettingsStore
from app.services.threads import ThreadService
from app.ui.chat.message_model import MessageListModel
from app.ui.tasks import spawn

__all__ = ["ChatViewModel"]

PAGE = 100
FRAME_MS = 33


class ChatViewModel(QObject):
    """The open thread; see the module docstring."""

    threadOpened = Signal(str)
    """The thread now shown (its id)."""
    statusChanged = Signal(str)
    """The open thread's run status: running, idle, waiting, stopped, failed."""
    problem = Signal(object)
    """A :class:`Problem` to show."""
    approvalNeeded = Signal(object)
    """An :class:`ApprovalNeeded` for the open thread."""
    budgetChanged = Signal(object)
    """A :class:`BudgetUpdated` for the open thread."""
    notice = Signal(str)
    """A passing note for the status line (e.g. a provider retry)."""
    replyFinished = Signal(str)
    """A reply in the open thread finished; the text is its first words (for announcing)."""
    branchesChanged = Signal()
    """Which shown messages have other versions changed (the switchers are placed again)."""
    branchShown = Signal(str)
    """Another version was switched to: the id of its first message, now loaded."""

    def __init__(
        self,
        threads: ThreadService,
        runs: RunService,
        settings: SettingsStore,
        events: EventBus,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.threads = threads
        self.runs = runs
        self.settings = settings
        self.model = MessageListModel(self)
        self.thread_id: str | None = None
        self._oldest: int | None = None
        self._has_more = False
        self._loading_older = False
        self._pending: dict[str, MessageStreamed] = {}
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FRAME_MS)
        self._flush_timer.timeout.connect(self._flush)
        self._statuses: dict[str, str] = {}
        self._parents: dict[str, str | int | None] = {}
        """The message each shown version follows, by the version's first message id."""
        self._unsubscribe = events.subscribe(self._on_event)

    def close(self) -> None:
        """Stop listening to the event bus."""
        self._unsubscribe()
        self._flush_timer.stop()

    async def thread_model(self) -> str | None:
        """The spec of the model the open thread talks to (the default model when no thread
        is open); ``None`` when the thread cannot be read."""
        thread_id = self.thread_id
        if thread_id is None:
            return self.settings.current.default_model
        try:
            thread = await self.threads.get(thread_id)
        except ParleyError:
            return None
        return thread.model or self.settings.current.default_model

    # Opening and paging --------------------------------------------------------------

    async def open_thread(self, thread_id: str) -> None:
        """Show the newest page of ``thread_id``."""
        self.thread_id = thread_id
        self._pending.clear()
        page = await self.threads.read_messages(thread_id, limit=PAGE)
        if self.thread_id != thread_id:
            return  # the user moved on while it loaded
        self.model.reset(page.messages)
        self._oldest, self._has_more = page.first_position, page.has_more
        await self.refresh_branches()
        self.threadOpened.emit(thread_id)
        self.statusChanged.emit(self.status())
        for approval in await self.runs.pending_approvals(thread_id):
            if self.thread_id == thread_id and not self.runs.is_running(thread_id):
                self.approvalNeeded.emit(approval)

    def clear(self) -> None:
        """Show no thread."""
        self.thread_id = None
        self.model.reset([])
        self.model.set_branches({})

    def can_load_older(self) -> bool:
        """Whether older messages wait in the store."""
        return self._has_more and not self._loading_older

    async def load_older(self) -> int:
        """Prepend the next older page; return how many rows came in."""
        if not self.can_load_older() or self.thread_id is None:
            return 0
        thread_id = self.thread_id
        self._loading_older = True
        try:
            page = await self.threads.read_messages(thread_id, before=self._oldest, limit=PAGE)
        finally:
            self._loading_older = False
        if self.thread_id != thread_id:
            return 0
        before = self.model.rowCount()
        self.model.prepend(page.messages)
        self._oldest, self._has_more = page.first_position, page.has_more
        return self.model.rowCount() - before

    def status(self) -> str:
        """The open thread's run status."""
        if self.thread_id is None:
            return "idle"
        if self.runs.is_running(self.thread_id):
            return "running"
        return self._statuses.get(self.thread_id, "idle")

    # Intents -------------------------------------------------------------------------

    async def send(
        self, text: str, blocks: Sequence[ContentBlock] = (), notes: Sequence[str] = ()
    ) -> bool:
        """Send ``text`` (and attached ``blocks``) to the open thread; False (and a problem
        shown) when refused."""
        if self.thread_id is None:
            thread = await self.threads.create()
            await self.open_thread(thread.id)
        assert self.thread_id is not None
        return await self._attempt(self.runs.send(self.thread_id, text, blocks, notes=notes))

    async def regenerate(self) -> bool:
        """Answer the last user message again."""
        if self.thread_id is None:
            return False
        return await self._attempt(self.runs.regenerate(self.thread_id))

    async def edit_and_resend(self, message_id: str, text: str) -> bool:
        """Send ``text`` in place of message ``message_id`` and all after it, in the same
        thread: the path it replaces stays as another version of that message."""
        if self.thread_id is None or not text.strip():
            return False
        return await self._attempt(self.runs.send(self.thread_id, text, edit=message_id))

    async def refresh_branches(self) -> None:
        """Read which shown messages are one version of several (the switchers' numbers)."""
        thread_id = self.thread_id
        if thread_id is None:
            return
        try:
            tree = await self.threads.branches(thread_id)
        except ParleyError:
            tree = []
        if self.thread_id != thread_id:
            return
        shown = [b for b in tree if b.shown and b.count > 1]
        self._parents = {str(b.message_id): b.parent_id for b in shown}
        self.model.set_branches({str(b.message_id): (b.index, b.count) for b in shown})
        self.branchesChanged.emit()

    async def switch_branch(self, message_id: str, index: int) -> bool:
        """Show version ``index`` (from 1) of the shown message ``message_id`` and everything
        after it; the thread remembers it. ``branchShown`` names the version's first message
        once it is loaded."""
        thread_id = self.thread_id
        if thread_id is None:
            return False
        try:
            switched = await self.threads.switch_branch(thread_id, message_id, index)
        except ParleyError as exc:
            self.problem.emit(problem_of(exc.kind or "invalid", str(exc), thread_id))
            return False
        if not switched or self.thread_id != thread_id:
            return switched
        parent = self._parents.get(message_id)
        await self.open_thread(thread_id)
        # the version now shown after the same message
        target = next((k for k, p in self._parents.items() if p == parent), None)
        while target is not None and self.model.row_of(target) is None and self.can_load_older():
            if not await self.load_older():
                break
        if target is not None and self.model.row_of(target) is not None:
            self.branchShown.emit(target)
        return True

    async def step_branch(self, message_id: str, step: int) -> bool:
        """Show the previous (``step`` -1) or next (+1) version of the shown message."""
        row = self.model.row_of(message_id)
        version = None if row is None else self.model.branch_at(row)
        if version is None:
            return False
        shown, count = version
        if not 1 <= shown + step <= count:
            return False
        return await self.switch_branch(message_id, shown + step)

    async def answer(self, thread_id: str, answers: Mapping[str, ApprovalAnswer]) -> bool:
        """Continue ``thread_id`` with approval answers, by interrupt id."""
        return await self._attempt(self.runs.answer(thread_id, answers))

    async def delete_message(self, message_id: str) -> bool:
        """Remove a message from the open thread."""
        if self.thread_id is None:
            return False
        return await self._attempt(self.threads.delete_message(self.thread_id, message_id))

    def stop(self) -> bool:
        """Stop the open thread's reply."""
        return self.thread_id is not None and self.runs.stop(self.thread_id)

    async def _attempt(self, starting: Any) -> bool:
        try:
            await starting
        except ParleyError as exc:
            self.problem.emit(problem_of(exc.kind or "invalid", str(exc), self.thread_id))
            return False
        return True

    # Events --------------------------------------------------------------------------

    def _on_event(self, event: WorkspaceEvent) -> None:
        thread_id = getattr(event, "thread_id", None)
        if isinstance(event, RunStatusChanged):
            self._statuses[event.thread_id] = event.status
            if event.thread_id == self.thread_id:
                if event.status != "running":
                    self._flush()
                    if event.status == "failed":
                        # a failed run (a conflict with another writer included) may have
                        # shown what it did not save: the page is read again; any other end
                        # left the rows the run reported, which are what it saved
                        spawn(self._reconcile(event.thread_id))
                    last = self.model.message_at(self.model.rowCount() - 1)
                    if last is not None and last.role == "assistant":
                        self.replyFinished.emit(last.text()[:200])
                    spawn(self.refresh_branches())  # an answer given again is a version
                self.statusChanged.emit(event.status)
            return
        if isinstance(event, Problem) and (thread_id in (None, self.thread_id)):
            self.problem.emit(event)
            return
        if thread_id != self.thread_id or thread_id is None:
            return
        if isinstance(event, MessageStreamed):
            if self.model.row_of(event.message_id) is None:
                # a new reply's row appears with its first chunk, while it is still short to
                # lay out; later chunks are shown a frame at a time
                self._pending.pop(event.message_id, None)
                self.model.upsert(event.message)
                return
            self._pending[event.message_id] = event
            if not self._flush_timer.isActive():
                self._flush_timer.start()
        elif isinstance(event, MessageAdded):
            self._pending.pop(str(event.message.message_id), None)
            self.model.upsert(event.message)
        elif isinstance(event, MessageRemoved):
            self._pending.pop(str(event.message_id), None)
            self.model.remove(event.message_id)
        elif isinstance(event, ApprovalNeeded):
            self.approvalNeeded.emit(event)
        elif isinstance(event, BudgetUpdated):
            self.budgetChanged.emit(event)
        elif isinstance(event, Retrying):
            self.notice.emit(
                f"{event.provider} is busy; trying again in {event.delay:.0f} s "
                f"(attempt {event.attempt + 1})"
            )

    async def _reconcile(self, thread_id: str) -> None:
        """After a failed run, make the newest rows exactly what the store holds."""
        page = await self.threads.read_messages(thread_id, limit=PAGE)
        if self.thread_id != thread_id or self.runs.is_running(thread_id):
            return
        shown = self.model.messages()[-len(page.messages) :] if page.messages else []
        if [m.message_id for m in shown] != [m.message_id for m in page.messages] or (
            len(page.messages) == 0 and self.model.rowCount()
        ):
            self.model.reset(page.messages)
            self._oldest, self._has_more = page.first_position, page.has_more
        else:
            for old, new in zip(shown, page.messages, strict=True):
                if old != new:
                    self.model.upsert(new)

    def _flush(self) -> None:
        pending, self._pending = self._pending, {}
        for streamed in pending.values():
            self.model.upsert(streamed.message)
