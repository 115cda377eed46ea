"""``ModelPicking``: what the header's model picker asks for, carried out for the open thread:
talk to another model, download one from the catalogue, add a model file from disk, manage
the models on this computer. After each the picker lists the models again and shows the
thread's model."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.core.errors import ParleyError
from app.services.models.downloads import ModelDownloads
from app.services.models.service import ModelService
from app.services.models.speech import SpeechModels
from app.services.settings.store import SettingsStore
from app.services.threads import ThreadService
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.header import Header
from app.ui.model_download import DownloadBar
from app.ui.model_manage import ManageModels, add_gguf, manage_models
from app.ui.notifier import Notifier
from app.ui.tasks import spawn
from app.ui.window_part import WindowPart

__all__ = ["ModelPicking"]


class ModelPicking(WindowPart):
    """Carries out the picker's requests: the choices come from ``models``, the thread's
    model is kept by ``threads`` (the default one by ``settings``), the catalogue and the
    model files are ``catalogue``'s; dialogs open over ``window``."""

    modelChanged = Signal(str)
    """The open thread now talks to this model (its spec)."""

    def __init__(
        self,
        chat_vm: ChatViewModel,
        header: Header,
        downloads: DownloadBar,
        notifier: Notifier,
        window: QWidget,
        *,
        models: ModelService,
        threads: ThreadService,
        settings: SettingsStore,
        catalogue: ModelDownloads,
        speech: SpeechModels | None = None,
    ) -> None:
        super().__init__(window)
        self.models = models
        self.threads = threads
        self.settings = settings
        self.catalogue = catalogue
        self.speech = speech
        self.chat_vm = chat_vm
        self.header = header
        self.downloads = downloads
        self.notifier = notifier

    async def refresh(self) -> None:
        """List the models the picker offers."""
        choices = await self.models.choices()
        current = None
        if self.chat_vm.thread_id:
            thread = await self.threads.get(self.chat_vm.thread_id)
            current = thread.model
        self.header.set_choices(choices, current or self.settings.current.default_model)

    async def choose(self, spec: str) -> None:
        """The open thread talks to ``spec`` from now on."""
        if self.chat_vm.thread_id is None:
            return
        try:
            await self.threads.set_model(self.chat_vm.thread_id, spec)
        except ParleyError as exc:
            self.notifier.show(str(exc), level="error")
            return
        self.notifier.show(f"This thread now talks to {spec}.", timeout_ms=3000)
        self.modelChanged.emit(spec)

    def download(self, name: str) -> None:
        """Download the catalogue model ``name`` in the download bar."""
        self.downloads.start(name)
        spawn(self.refresh())  # the picker goes back to the thread's model

    async def downloaded(self, spec: str, title: str) -> None:
        """A download finished: the open thread talks to it."""
        await self.refresh()
        thread = self.chat_vm.thread_id
        if thread is not None:
            await self.threads.set_model(thread, spec)
            self.header.show_model(spec)
        self.notifier.show(f"Downloaded {title}; this thread now talks to it.", timeout_ms=6000)

    async def manage(self) -> None:
        """Open Manage models and wait until it is closed."""
        dialog = ManageModels(self.catalogue, self.notifier, self.over(), self.speech)
        dialog.removed.connect(self._removed)
        await manage_models(dialog)
        await self.refresh()  # the picker goes back to the thread's model

    def _removed(self, _name: str) -> None:
        spawn(self.refresh())

    async def add_file(self) -> None:
        """Add a model file from disk and choose it for the open thread."""
        await add_gguf(self.over(), self.catalogue, self.notifier, self.choose)
        await self.refresh()

    def open_picker(self) -> None:
        """Ctrl+M: open the picker's list."""
        self.header.picker.setFocus()
        self.header.picker.showPopup()
