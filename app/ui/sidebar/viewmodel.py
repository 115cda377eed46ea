"""``ThreadsViewModel``: the sidebar's state — threads or search hits, and undoable deletes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.errors import ParleyError
from app.services.agents import BUILTIN_AGENT_ID
from app.services.bus import EventBus
from app.services.events import AgentsChanged, ThreadsChanged, WorkspaceEvent
from app.services.problems import problem_of
from app.services.threads import ThreadService, ThreadSummary
from app.text.hidden_chars import mark_hidden
from app.ui.sidebar.model import ThreadListModel, row_of_hit, row_of_summary
from app.ui.tasks import spawn

__all__ = ["UNDO_MS", "ThreadsViewModel"]

UNDO_MS = 8000
"""How long a deleted thread can be brought back."""


class ThreadsViewModel(QObject):
    """Threads for the sidebar; see the module docstring."""

    problem = Signal(object)
    deletePending = Signal(str, str)
    """A thread (id, title) was deleted and can be undone until the bar goes."""
    deleteSettled = Signal()
    """No deletion is waiting for Undo any more."""
    refreshed = Signal()

    def __init__(
        self,
        threads: ThreadService,
        events: EventBus,
        parent: QObject | None = None,
        *,
        agent_names: Callable[[str], str] | None = None,
        scheduled: Callable[[], Awaitable[set[str]]] | None = None,
    ) -> None:
        super().__init__(parent)
        self.threads = threads
        self._agent_names = agent_names
        self._scheduled = scheduled
        """The threads scheduled runs wrote into (marked in the list)."""
        self.model = ThreadListModel(self)
        self.model.renameRequested.connect(lambda tid, title: spawn(self.rename(tid, title)))
        self.query = ""
        self._pending_delete: str | None = None
        self._undo_timer = QTimer(self)
        self._undo_timer.setSingleShot(True)
        self._undo_timer.setInterval(UNDO_MS)
        self._undo_timer.timeout.connect(lambda: spawn(self.commit_delete()))
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(120)
        self._refresh_timer.timeout.connect(lambda: spawn(self.refresh()))
        self._unsubscribe = events.subscribe(self._on_event)

    def close(self) -> None:
        """Stop listening to the event bus (a pending delete still waits for
        :meth:`commit_delete`)."""
        self._unsubscribe()
        self._refresh_timer.stop()

    def _on_event(self, event: WorkspaceEvent) -> None:
        changed = isinstance(event, ThreadsChanged | AgentsChanged)
        if changed and not self._refresh_timer.isActive():
            self._refresh_timer.start()

    async def refresh(self) -> None:
        """Load the threads (or the search hits, while searching). A read covers every change
        announced before it starts: a part that changed a thread and then refreshes the list
        (a new or imported thread) does not have it read again on the change's announcement."""
        self._refresh_timer.stop()
        query = self.query
        if query.strip():
            hits = await self.threads.search(query)
            if query == self.query:
                seen: set[str] = set()
                rows = []
                for hit in hits:  # one row per thread: its best hit
                    if hit.thread_id not in seen:
                        seen.add(hit.thread_id)
                        rows.append(row_of_hit(hit))
                self.model.set_rows(rows)
        else:
            summaries = await self.threads.list_all()
            scheduled = await self._scheduled() if self._scheduled is not None else set()
            if not self.query.strip():
                self.model.set_rows(
                    [
                        row_of_summary(s, self._agent_of(s), s.thread.id in scheduled)
                        for s in summaries
                    ]
                )
        self.refreshed.emit()

    def _agent_of(self, summary: ThreadSummary) -> str:
        """The name of the summary's agent, or nothing for Parley."""
        if self._agent_names is None or summary.thread.agent_id == BUILTIN_AGENT_ID:
            return ""
        return mark_hidden(self._agent_names(summary.thread.agent_id))

    async def search(self, text: str) -> None:
        """Show the threads whose messages match ``text`` (all threads when blank)."""
        self.query = text
        await self.refresh()

    async def rename(self, thread_id: str, title: str) -> None:
        """Rename a thread."""
        try:
            await self.threads.rename(thread_id, title)
        except ParleyError as exc:
            self.problem.emit(problem_of("invalid", str(exc)))
            await self.refresh()

    async def delete(self, thread_id: str, title: str) -> None:
        """Hide the thread now; delete it for good when the Undo time runs out."""
        if self._pending_delete is not None:
            await self.commit_delete()
        self._pending_delete = thread_id
        self.model.set_hidden({thread_id})
        self.deletePending.emit(thread_id, title)
        self._undo_timer.start()

    def undo_delete(self) -> str | None:
        """Bring back the thread whose deletion waits; return its id."""
        thread_id, self._pending_delete = self._pending_delete, None
        self._undo_timer.stop()
        self.model.set_hidden(set())
        self.deleteSettled.emit()
        return thread_id

    async def commit_delete(self) -> None:
        """Delete the waiting thread for good (when Undo was not used, or at quit)."""
        thread_id, self._pending_delete = self._pending_delete, None
        self._undo_timer.stop()
        if thread_id is not None:
            try:
                await self.threads.delete(thread_id)
            except ParleyError as exc:
                self.problem.emit(problem_of("storage", str(exc)))
            self.model.set_hidden(set())
        self.deleteSettled.emit()
