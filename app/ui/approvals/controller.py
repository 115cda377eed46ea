"""``ApprovalController``: keeps a pending approval safe in the window.

When the open thread's run pauses for approval, or a waiting thread is opened (also after a
restart: the pause is read from the store), the approval dialog opens, window-modal and
awaited, so other threads keep streaming. The controller is the window's
:class:`~app.core.tools.ApprovalHandler`: the engine's :func:`~app.core.tools.answer_requests`
asks it and binds its decisions to the calls that were shown, and that typed answer resumes
the run; closing the dialog or the window decides nothing (:class:`DecisionPostponed`) and
leaves a banner with Review…. A pause asking only whether to keep memories an agent proposes
(``remember``) is asked in the thread instead, on the :class:`MemoryKeepCard` under the
messages, one memory at a time. A thread whose run was cut off gets a banner with Resume and
Discard.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from app.core.errors import ParleyError
from app.core.tools import ApprovalDecision, ApprovalRequest, DecisionPostponed, answer_requests
from app.services.events import ApprovalNeeded
from app.services.memory import REMEMBER_TOOL
from app.services.models.service import ModelService
from app.services.runs import RunService
from app.services.threads import ThreadService
from app.ui.approvals.banner import RunBanner
from app.ui.approvals.dialog import ToolApprovalDialog
from app.ui.approvals.memory_card import MemoryKeepCard
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.dialogs import ask
from app.ui.notifier import Notifier
from app.ui.tasks import spawn

__all__ = ["ApprovalController"]


class ApprovalController(QObject):
    """Asks for the open thread's approvals in dialogs over ``window`` (a proposed memory on
    :attr:`keep_card`) and keeps the run banner; the window places :attr:`banner` and
    :attr:`keep_card` and calls :meth:`dismiss` when it closes.

    ``runs`` says what is pending and resumes or discards a cut-off run, ``threads`` names the
    thread in the dialog, ``models`` describes the tools asked for and ``agent_name`` names a
    thread's stored agent (``None`` for the built-in one), whose rule the dialog offers."""

    def __init__(
        self,
        runs: RunService,
        threads: ThreadService,
        models: ModelService,
        chat_vm: ChatViewModel,
        notifier: Notifier,
        window: QWidget,
        agent_name: Callable[[str], str | None] = lambda _agent_id: None,
    ) -> None:
        super().__init__(window)
        self._agent_name = agent_name
        self._notifier = notifier
        self.runs = runs
        self.threads = threads
        self.models = models
        self.chat_vm = chat_vm
        self.banner = RunBanner(window)
        self.keep_card = MemoryKeepCard(window)
        self.dialog: ToolApprovalDialog | None = None
        self.api_dialogs: list[ToolApprovalDialog] = []
        """The dialogs asking about calls made through the API, open now."""
        self._current: ApprovalNeeded | None = None
        self._asking: set[str] = set()
        self._lock = asyncio.Lock()
        self._closed = False
        # bound methods, not lambdas: a connection then holds no strong reference to self
        self.chat_vm.approvalNeeded.connect(self._on_approval)
        self.chat_vm.threadOpened.connect(self._on_opened)
        self.chat_vm.statusChanged.connect(self._status)

    def _on_approval(self, approval: ApprovalNeeded) -> None:
        spawn(self.ask(approval))

    def _on_opened(self, thread_id: str) -> None:
        if self._current is not None and self._current.thread_id != thread_id:
            self.keep_card.dismiss()  # another thread's memory waits; asked when it is open
        spawn(self._opened(thread_id))

    # Approvals -----------------------------------------------------------------------

    async def ask(self, approval: ApprovalNeeded) -> None:
        """Open the dialog for ``approval`` (once at a time) and answer with its decisions."""
        if approval.interrupt_id in self._asking or self._closed:
            return
        self._asking.add(approval.interrupt_id)
        try:
            async with self._lock:
                if not await self._still_pending(approval):
                    return
                await self._ask_now(approval)
        finally:
            self._asking.discard(approval.interrupt_id)

    async def _still_pending(self, approval: ApprovalNeeded) -> bool:
        if self._closed or self.chat_vm.thread_id != approval.thread_id:
            return False
        # answered meanwhile (here, in another window, from the terminal): a run started since
        return self.runs.is_waiting(approval.thread_id, approval.interrupt_id)

    async def _ask_now(self, approval: ApprovalNeeded) -> None:
        self._current = approval
        try:
            answer = await answer_requests(self, approval.requests)
        except DecisionPostponed:
            self._show_waiting(approval)
            return
        finally:
            self._current = None
        if not await self.chat_vm.answer(approval.thread_id, {approval.interrupt_id: answer}):
            self._show_waiting(approval)

    async def decide(self, requests: Sequence[ApprovalRequest]) -> list[ApprovalDecision]:
        """Ask about ``requests`` (the pause being asked about) in a window-modal dialog and
        return its decisions; raise :class:`DecisionPostponed` when it is closed undecided or
        the window closes."""
        if requests and all(r.tool == REMEMBER_TOOL for r in requests):
            return await self._keep_memories(requests)
        thread_id = self._current.thread_id if self._current else None
        title, own_agent = "", None
        if thread_id is not None:
            try:
                thread = await self.threads.get(thread_id)
                title, own_agent = thread.title, self._agent_name(thread.agent_id)
            except ParleyError:
                pass
        tools = {r.tool: self.models.offered_tool(r.tool) for r in requests}
        parent = self.parent()
        assert isinstance(parent, QWidget)
        dialog = ToolApprovalDialog(
            parent,
            list(requests),
            thread_title=title,
            tools=tools,
            own_agent=own_agent,
        )
        self.dialog = dialog
        self.banner.clear("waiting")
        try:
            await ask(dialog)
        finally:
            # the finished dialog stays a hidden child of the window: deleting it here
            # (deleteLater) crashed Qt's timer dispatch later on in long test runs
            self.dialog = None
            window = self.parent()
            if not self._closed and isinstance(window, QWidget):
                window.activateWindow()  # the keyboard goes back to the thread
        if dialog.decisions is None or self._closed:
            raise DecisionPostponed
        return list(dialog.decisions)

    async def decide_api(
        self, agent: str, key: str, requests: Sequence[ApprovalRequest]
    ) -> list[ApprovalDecision]:
        """Ask about the calls ``agent``, run through the API by the key ``key``, wants to
        make, in a window-modal dialog titled with who asked; raise
        :class:`DecisionPostponed` when it is closed undecided (or the window closes). The
        dialog closes when the asker stops waiting (the request's time ran out)."""
        if self._closed:
            raise DecisionPostponed
        what = (
            f"wants to {requests[0].tool}" if len(requests) == 1 else
            f"wants to run {len(requests)} tools"
        )  # fmt: skip
        parent = self.parent()
        assert isinstance(parent, QWidget)
        dialog = ToolApprovalDialog(
            parent,
            list(requests),
            thread_title="Asked through the API",
            tools={r.tool: self.models.offered_tool(r.tool) for r in requests},
            own_agent=agent,
            title=f"{agent}, asked through the API by key {key or 'unknown'}, {what}",
        )
        self.api_dialogs.append(dialog)
        try:
            await ask(dialog)
        finally:
            self.api_dialogs.remove(dialog)
            if dialog.decisions is None:
                dialog.dismiss()
        if dialog.decisions is None or self._closed:
            raise DecisionPostponed
        return list(dialog.decisions)

    async def _keep_memories(self, requests: Sequence[ApprovalRequest]) -> list[ApprovalDecision]:
        """Ask on the card whether to keep each proposed memory, one after another."""
        self.banner.clear("waiting")
        decisions = []
        for request in requests:
            decision = await self.keep_card.ask(request)
            if decision is None or self._closed:
                raise DecisionPostponed
            decisions.append(decision)
        return decisions

    def _show_waiting(self, approval: ApprovalNeeded) -> None:
        if self._closed or self.chat_vm.thread_id != approval.thread_id:
            return
        if self.runs.is_running(approval.thread_id):
            return  # answered elsewhere (another window, the terminal) and running again
        names = ", ".join(sorted({r.tool for r in approval.requests}))
        self.banner.show_run(
            "waiting",
            f"This thread waits for your decision on {names}. Nothing runs until you decide.",
            [("reviewApprovalButton", "Review…", lambda: spawn(self.ask(approval)))],
        )

    def dismiss(self) -> None:
        """The window is closing: close the dialog without deciding anything."""
        self._closed = True
        self.keep_card.dismiss()
        for dialog in [self.dialog, *self.api_dialogs]:
            if dialog is not None:
                dialog.dismiss()

    # Cut-off runs --------------------------------------------------------------------

    async def _opened(self, thread_id: str) -> None:
        self.banner.clear()
        if await self.runs.is_cut_off(thread_id) and self.chat_vm.thread_id == thread_id:
            self.banner.show_run(
                "cut_off",
                "This thread's last run was cut off: Parley or the computer stopped while it "
                "was running. Resume continues where it stopped (finished calls are not run "
                "again); Discard leaves it as it is.",
                [
                    ("resumeRunButton", "Resume", lambda: spawn(self.resume(thread_id))),
                    ("discardRunButton", "Discard", lambda: spawn(self.discard(thread_id))),
                ],
            )

    async def resume(self, thread_id: str) -> None:
        """Continue the cut-off run of ``thread_id``."""
        self.banner.clear("cut_off")
        try:
            await self.runs.resume_cut_off(thread_id)
        except ParleyError as exc:
            self._notifier.show(str(exc), level="error")

    async def discard(self, thread_id: str) -> None:
        """End the cut-off run of ``thread_id`` without running more."""
        self.banner.clear("cut_off")
        try:
            await self.runs.discard_cut_off(thread_id)
        except ParleyError as exc:
            self._notifier.show(str(exc), level="error")
            return
        self._notifier.show("The cut-off run was discarded.", timeout_ms=4000)

    def _status(self, status: str) -> None:
        if status == "running":
            self.banner.clear()
            self.keep_card.dismiss()
            if self.dialog is not None:
                # the thread was answered elsewhere: this question is moot
                self.dialog.dismiss()
