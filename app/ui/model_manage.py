"""Manage models (from the model picker): the models on this computer with the disk space
each takes, and Remove, which asks first, naming the model and the space it frees. The
bundled model is listed but cannot be removed; a file added from disk is forgotten and left
where it is. Threads that used a removed model keep every message and say, when next sent,
that the model is not downloaded."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.models.catalogue import InstalledModel, ModelLibrary
from app.services.models.downloads import ModelDownloads, bundled_model_bytes
from app.services.models.speech import SpeechModels
from app.text.sizes import rough_size
from app.ui.dialogs import ask
from app.ui.file_dialogs import chosen_paths, file_dialog
from app.ui.notifier import Notifier
from app.ui.tasks import spawn

__all__ = [
    "ManageModels",
    "ModelRow",
    "add_gguf",
    "manage_models",
    "model_rows",
]

BUNDLED_TITLE = "SmolLM2 135M (bundled)"
SPEECH_PREFIX = "speech:"
"""Before a speech model's name in a row, so it is never taken for a chat model's."""
SPEECH_KINDS = {"whisper": "speech to text", "voice": "read-aloud voice"}


@dataclass(frozen=True)
class ModelRow:
    """One model on this computer: its name, what it says, and whether it can be removed."""

    name: str
    title: str
    text: str
    removable: bool
    frees: int
    """Bytes of disk space removing it gives back (0 for a file added from disk)."""
    path: str = ""


def model_rows(library: ModelLibrary) -> list[ModelRow]:
    """The bundled model, then the downloaded and added ones (reads the disk: run off the loop)."""
    rows = []
    bundled = bundled_model_bytes()
    if bundled is not None:
        size = rough_size(bundled)
        rows.append(
            ModelRow("", BUNDLED_TITLE, f"{BUNDLED_TITLE} — {size}, part of Parley", False, 0)
        )
    titles = {e.name: e.title for e in library.catalogue}
    for m in library.installed():
        title = titles.get(m.name, m.name)
        rows.append(_row(m, title))
    return rows


def speech_rows(speech: SpeechModels) -> list[ModelRow]:
    """The installed speech models (Whisper models and voices), each saying what it is for
    (reads the disk: run off the loop)."""
    rows = []
    for listing in speech.listing():
        model = listing.installed
        if model is None:
            continue
        title = (
            f"{listing.entry.title if listing.entry else model.name} ({SPEECH_KINDS[model.kind]})"
        )
        size = rough_size(model.size_bytes)
        if model.source == "local":
            text, frees = f"{title} — {size}, added from disk", 0
        else:
            text, frees = f"{title} — {size}, downloaded", model.size_bytes
        rows.append(ModelRow(SPEECH_PREFIX + model.name, title, text, True, frees, model.path))
    return rows


def _row(model: InstalledModel, title: str) -> ModelRow:
    size = rough_size(model.size_bytes)
    if model.source == "local":
        text = f"{title} — {size}, added from disk"
        return ModelRow(model.name, title, text, True, 0, model.path)
    missing = "" if Path(model.path).is_file() else " (file missing)"
    text = f"{title} — {size}, downloaded{missing}"
    return ModelRow(model.name, title, text, True, model.size_bytes, model.path)


def confirmation(row: ModelRow) -> str:
    """What the Remove question says about ``row``."""
    if row.frees:
        return (
            f"This deletes its file and frees {rough_size(row.frees)} of disk space. Threads "
            "that use it keep their messages; you can download it again or choose another "
            "model for them."
        )
    return (
        "Parley forgets it; the file itself stays where it is, so no disk space is freed. "
        "Threads that use it keep their messages."
    )


class ManageModels(QDialog):
    """The Manage models dialog (object name ``manageModels``)."""

    removed = Signal(str)
    """A model was removed (its name): the picker lists the models again."""

    def __init__(
        self,
        downloads: ModelDownloads,
        notifier: Notifier,
        parent: QWidget,
        speech: SpeechModels | None = None,
    ) -> None:
        super().__init__(parent)
        self.notifier = notifier
        self.library = downloads.library
        self.speech = speech
        self.setObjectName("manageModels")
        self.setWindowTitle("Manage models")
        self.setMinimumWidth(520)
        intro = QLabel(
            "Models on this computer, speech models among them. The bundled model is part of "
            "Parley and cannot be removed.",
            self,
        )
        intro.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setObjectName("installedModels")
        self.list.setAccessibleName("Models on this computer")
        self.list.setSpacing(3)
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.currentItemChanged.connect(self._selected)
        self.remove_button = QPushButton("Remove…", self)
        self.remove_button.setObjectName("removeModelButton")
        self.remove_button.setAccessibleName("Remove the selected model")
        self.remove_button.setEnabled(False)
        self.remove_button.clicked.connect(lambda: spawn(self.remove_selected()))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.remove_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.setSpacing(12)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.rows: list[ModelRow] = []
        self.confirm: QMessageBox | None = None

    async def load(self) -> None:
        """List the models (reading the model list off the loop)."""
        try:
            self.rows = await asyncio.to_thread(model_rows, self.library)
            if self.speech is not None:
                self.rows += await asyncio.to_thread(speech_rows, self.speech)
        except ParleyError as exc:
            self.notifier.show(str(exc), level="error")
            self.rows = []
        self.list.clear()
        for row in self.rows:
            item = QListWidgetItem(row.text, self.list)
            item.setData(Qt.ItemDataRole.UserRole, row.name)
            item.setToolTip(row.path)
            if not row.removable:
                item.setToolTip("Part of Parley; it cannot be removed.")
        self._selected()

    def selected(self) -> ModelRow | None:
        """The row chosen in the list."""
        index = self.list.currentRow()
        return self.rows[index] if 0 <= index < len(self.rows) else None

    def _selected(self, *_args: object) -> None:
        row = self.selected()
        self.remove_button.setEnabled(row is not None and row.removable)

    async def remove_selected(self) -> None:
        """Ask, then remove the chosen model and say so (:attr:`removed`)."""
        row = self.selected()
        if row is None or not row.removable:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Remove model",
            f"Remove {row.title}?",
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("confirmRemoveModel")
        box.setInformativeText(confirmation(row))
        box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.confirm = box
        await ask(box)
        self.confirm = None
        if box.buttonRole(box.clickedButton()) != QMessageBox.ButtonRole.DestructiveRole:
            return
        try:
            if row.name.startswith(SPEECH_PREFIX) and self.speech is not None:
                await asyncio.to_thread(self.speech.remove, row.name.removeprefix(SPEECH_PREFIX))
            else:
                await asyncio.to_thread(self.library.remove, row.name)
        except (OSError, ParleyError) as exc:
            self.notifier.show(f"Could not remove {row.title}: {exc}", level="error")
            return
        freed = f"; {rough_size(row.frees)} of disk space freed" if row.frees else ""
        self.notifier.show(f"Removed {row.title}{freed}.", timeout_ms=6000)
        await self.load()
        self.removed.emit(row.name)


async def manage_models(dialog: ManageModels) -> None:
    """Open the Manage models dialog and wait until it is closed."""
    await dialog.load()
    await ask(dialog)
    dialog.deleteLater()


def _add(library: ModelLibrary, path: str) -> tuple[InstalledModel, bool]:
    """The model for the GGUF file at ``path``: the one already listed, or a new entry."""
    wanted = Path(path).expanduser().resolve()
    for model in library.installed():
        if Path(model.path) == wanted:
            return model, False
    return library.add(wanted), True


async def add_gguf(
    parent: QWidget,
    downloads: ModelDownloads,
    notifier: Notifier,
    choose: Callable[[str], Awaitable[None]],
) -> None:
    """Ask for a GGUF file on disk, add it to the models (once: a file already there is just
    chosen again) and ``choose`` its spec for the thread."""
    dialog = file_dialog(parent, "Add a model file", "addModelFile")
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    dialog.setNameFilters(["GGUF models (*.gguf)", "All files (*)"])
    chosen = await chosen_paths(dialog)
    dialog.deleteLater()
    if not chosen:
        return
    library = downloads.library
    try:
        model, new = await asyncio.to_thread(_add, library, chosen[0])
    except (OSError, ParleyError) as exc:
        notifier.show(str(exc), level="error")
        return
    await choose(model.spec)
    if not new:
        notifier.show(
            f"{model.name} is already in your models; this thread now talks to it.",
            timeout_ms=4000,
        )
