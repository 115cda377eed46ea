"""``WindowCompare``: what Compare… (and Ctrl+Shift+Enter) does in the window. It asks which
models to compare (:class:`CompareModelsDialog`), shows their answers side by side in the
:class:`CompareView` in place of the chat while they stream, and once every model has ended
offers **Continue with this one**, which keeps that answer as the one the thread shows (the
others stay versions of it) and shows the thread again, as **Back to the thread** does with
the first answer shown. The thread is read again only then: drawing its long answers while
the columns are on screen would hold the window up. The comparison itself is the compare service's
(:class:`~app.services.compare.CompareService`), as ``parley compare`` runs it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from PySide6.QtWidgets import QWidget

from app.core.errors import ParleyError
from app.services.compare import CompareService, Comparison
from app.services.models.choices import ModelChoice
from app.services.settings.store import SettingsStore
from app.services.threads import ThreadService
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.compare.picker import CompareModelsDialog
from app.ui.compare.view import CompareView
from app.ui.composer import ComposerPanel
from app.ui.dialogs import ask
from app.ui.notifier import Notifier
from app.ui.window_part import ThreadPart

__all__ = ["WindowCompare"]


class WindowCompare(ThreadPart):
    """Compare… in the window; see the module docstring."""

    def __init__(
        self,
        compare: CompareService,
        choices: Callable[[], Awaitable[list[ModelChoice]]],
        threads: ThreadService,
        settings: SettingsStore,
        chat_vm: ChatViewModel,
        notifier: Notifier,
        window: QWidget,
        *,
        composer: ComposerPanel,
        view: CompareView,
        chat: QWidget,
        open_thread: Callable[[str], Awaitable[None]],
    ) -> None:
        super().__init__(chat_vm, notifier, window)
        self._compare = compare
        self._choices = choices
        self._threads = threads
        self._settings = settings
        self._composer = composer
        self.view = view
        self._chat = chat
        self._open_thread = open_thread
        self.picker: CompareModelsDialog | None = None
        """The model picker while it is open."""
        self.comparison: Comparison | None = None
        """The comparison shown, once every model has ended."""
        self.running = False
        view.hide()
        view.continueRequested.connect(self._keep_later)
        view.closeRequested.connect(self._back_later)
        view.stopRequested.connect(self.stop)
        self._stop = asyncio.Event()
        chat_vm.threadOpened.connect(self._thread_opened)

    async def start(self, text: str) -> None:
        """Ask which models to compare ``text`` on, then ask them all and show the answers."""
        if self.running:
            self.notifier.show("Models are being compared now; wait for them to finish.")
            return
        if not text.strip():
            self.notifier.show("Write the message first, then choose the models to compare.")
            return
        if self.chat_vm.thread_id is not None and self.chat_vm.status() == "running":
            self.notifier.show("This thread is still answering; wait for it or stop it first.")
            return
        specs = await self._pick()
        if not specs:
            return
        self.running = True
        self._stop = asyncio.Event()
        self._composer.accept_sent()
        self._composer.set_hint(f"{len(specs)} models are answering side by side…")
        self.view.begin(text, specs)
        self._show(True)
        try:
            self.comparison = await self._compare.compare(
                text,
                specs,
                thread_id=self.chat_vm.thread_id,
                on_change=self.view.update_column,
                stop=self._stop,
            )
        except ParleyError as exc:
            self._show(False)
            self._composer.edit.setPlainText(text)  # nothing typed is lost
            self.notifier.show(str(exc), level="error")
            return
        finally:
            self.running = False
            self._composer.set_hint("")
        self.view.finish(self.comparison.columns)
        if self.comparison.note:
            self.notifier.show(self.comparison.note, level="warning")

    def stop(self) -> None:
        """End every answer where it is: what came is kept, marked stopped."""
        if self.running:
            self._stop.set()

    async def keep(self, index: int) -> None:
        """Keep column ``index``'s answer as the one the thread shows and go back to it."""
        comparison = self.comparison
        if comparison is None:
            return
        try:
            await self._compare.keep(comparison, index)
        except ParleyError as exc:
            self.notifier.show(str(exc), level="error")
            return
        await self._open_thread(comparison.thread_id)
        self.leave()

    def leave(self) -> None:
        """Back to the thread."""
        if not self.running:
            self._show(False)

    async def back(self) -> None:
        """Back to the thread, which shows the first answer (or the one kept)."""
        if self.comparison is not None and not self.running:
            await self._open_thread(self.comparison.thread_id)
        self.leave()

    def _back_later(self) -> None:
        from app.ui.tasks import spawn

        spawn(self.back())

    def _thread_opened(self, thread_id: str) -> None:
        """Another thread opened: its messages are shown, not the comparison."""
        if self.comparison is not None and self.comparison.thread_id != thread_id:
            self.leave()

    def _keep_later(self, index: int) -> None:
        from app.ui.tasks import spawn

        spawn(self.keep(index))

    def _show(self, comparing: bool) -> None:
        self._chat.setVisible(not comparing)
        self.view.setVisible(comparing)

    async def _pick(self) -> list[str]:
        """The models chosen (none when the picker was cancelled)."""
        current = self._settings.current.default_model
        if self.chat_vm.thread_id is not None:
            try:
                thread = await self._threads.get(self.chat_vm.thread_id)
                current = thread.model or current
            except ParleyError:
                pass
        choices = await self._choices()
        if all(c.spec != current for c in choices):
            choices.insert(0, ModelChoice(current, current, "This thread's model"))
        self.picker = CompareModelsDialog(self.over(), choices, ticked=[current])
        try:
            accepted = await ask(self.picker)
            return self.picker.chosen() if accepted else []
        finally:
            self.picker.deleteLater()
            self.picker = None
