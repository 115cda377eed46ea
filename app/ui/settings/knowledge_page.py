"""Settings > Knowledge: the folders Parley indexes for search and citations, how each
stands (files, size, last sync, files it could not read and why), indexing progress with
Cancel, adding, reindexing and removing a folder, and which search is in use (words, or words
and meaning with the embedding model chosen here).

The page is given the knowledge service and the event bus's subscribe call, nothing more.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.bus import Listener
from app.services.events import KnowledgeChanged, KnowledgeProgress, WorkspaceEvent
from app.services.knowledge import FolderRecord, KnowledgeService
from app.services.knowledge.embedders import DOWNLOAD, EmbeddingChoice
from app.text.sizes import human_size
from app.ui.file_dialogs import ask_folder
from app.ui.settings._labels import error_label, heading, hint
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["KnowledgePage", "folder_status"]

Subscribe = Callable[[Listener], Callable[[], None]]


def folder_status(folder: FolderRecord, meaning: bool = False) -> str:
    """One line on how a folder stands: files, size, passages (with ``meaning``, how many
    have their vector), last sync, unreadable files."""
    synced = (
        "synced " + datetime.datetime.fromtimestamp(folder.last_sync).strftime("%Y-%m-%d %H:%M")
        if folder.last_sync
        else "not fully indexed yet"
    )
    files = "1 file" if folder.files == 1 else f"{folder.files:,} files"
    passages = f"{folder.passages:,} passages"
    if meaning and folder.vectors < folder.passages:
        passages += f" ({folder.vectors:,} with meaning so far)"
    line = f"{files}, {human_size(folder.bytes)}, {passages} · {synced}"
    if folder.skipped:
        line += f" · {len(folder.skipped)} could not be read"
    return line


class KnowledgePage(SettingsPage):
    """Knowledge folders: list with status, the selected folder's unreadable files, progress
    with Cancel, Add folder…, Reindex and Remove."""

    TITLE = "Knowledge"
    OBJECT_NAME = "knowledgeSettingsPage"

    def __init__(
        self,
        knowledge: KnowledgeService,
        subscribe: Subscribe,
        parent: QWidget | None = None,
        *,
        agent_name: Callable[[str], str] = lambda agent_id: agent_id,
    ) -> None:
        super().__init__(parent)
        self.knowledge = knowledge
        self._agent_name = agent_name
        self._records: list[FolderRecord] = []
        self._build_list()
        self._build_progress()
        self._lay_out()
        self._show(knowledge.known)
        if knowledge.problem:
            self._say(f"The index is kept for this session only: {knowledge.problem}")
        self._announced = 0
        """How many changes of the folders the event bus announced."""
        self._covered = 0
        """How many of those the latest read started after, and so shows."""
        unsubscribe = subscribe(self._on_event)
        self.destroyed.connect(lambda *_: unsubscribe())

    def _build_list(self) -> None:
        self._title = heading("Knowledge folders", self)
        self._intro = hint(
            "Parley indexes the documents in these folders (PDF, Word, Markdown, text and "
            "code) and keeps the index up to date while it runs. Answers that use them list "
            "their sources; click one to open the file. With an embedding model passages are "
            "also found by meaning; giving each its vector takes time, once (seconds a "
            "passage with the bundled stand-in).",
            self,
        )
        self.search_mode = QLabel(self.knowledge.search_mode(), self)
        self.search_mode.setObjectName("knowledgeSearchMode")
        self.search_mode.setWordWrap(True)
        self.search_mode.setTextFormat(Qt.TextFormat.PlainText)
        self.embedding = QComboBox(self)
        self.embedding.setObjectName("knowledgeEmbeddingModel")
        self.embedding.setAccessibleName("Embedding model for search by meaning")
        self.embedding.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.embedding.activated.connect(lambda _: spawn(self.choose_embedding()))
        self.folders = QListWidget(self)
        self.folders.setObjectName("knowledgeFolders")
        self.folders.setAccessibleName("Knowledge folders")
        self.folders.setSpacing(3)
        self.folders.setWordWrap(True)
        self.folders.currentRowChanged.connect(self._selected)
        self.empty = hint("No knowledge folder yet. Add one to let models search it.", self)
        self.problems = QLabel("", self)
        self.problems.setObjectName("knowledgeProblems")
        self.problems.setWordWrap(True)
        self.problems.setTextFormat(Qt.TextFormat.PlainText)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.add_button = QPushButton("Add folder…", self)
        self.add_button.setObjectName("addKnowledgeFolderButton")
        self.add_button.setAccessibleName("Add a knowledge folder")
        self.add_button.clicked.connect(lambda: spawn(self.choose_folder()))
        self.reindex_button = QPushButton("Reindex", self)
        self.reindex_button.setObjectName("reindexKnowledgeButton")
        self.reindex_button.setAccessibleName("Index the selected folder again")
        self.reindex_button.clicked.connect(lambda: spawn(self.reindex_selected()))
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setObjectName("removeKnowledgeFolderButton")
        self.remove_button.setAccessibleName("Remove the selected knowledge folder")
        self.remove_button.clicked.connect(lambda: spawn(self.remove_selected()))

    def _build_progress(self) -> None:
        self.progress_text = QLabel("", self)
        self.progress_text.setObjectName("knowledgeProgressText")
        self.progress_text.setTextFormat(Qt.TextFormat.PlainText)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("knowledgeProgress")
        self.progress.setAccessibleName("Indexing progress")
        self.progress.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("cancelKnowledgeButton")
        self.cancel_button.setAccessibleName("Stop indexing")
        self.cancel_button.clicked.connect(self._cancel)
        self._downloading: asyncio.Task[object] | None = None
        self.error = error_label(self)
        self._set_indexing(False)

    def _lay_out(self) -> None:
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        for button in (self.add_button, self.reindex_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        running = QHBoxLayout()
        running.setSpacing(8)
        running.addWidget(self.progress, 1)
        running.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)  # as every page: the dialog gives the room
        layout.setSpacing(8)
        meaning = QHBoxLayout()
        meaning.setSpacing(8)
        meaning.addWidget(QLabel("Meaning:", self))
        meaning.addWidget(self.embedding)
        meaning.addStretch(1)
        layout.addWidget(self._title)
        layout.addWidget(self._intro)
        layout.addWidget(self.search_mode)
        layout.addLayout(meaning)
        layout.addWidget(self.folders, 1)
        layout.addWidget(self.empty, 1, Qt.AlignmentFlag.AlignTop)  # the slack, when no list
        layout.addWidget(self.problems)
        layout.addLayout(buttons)
        layout.addSpacing(8)
        layout.addWidget(self.progress_text)
        layout.addLayout(running)
        layout.addWidget(self.error)

    # Showing -------------------------------------------------------------------------

    async def load(self) -> None:
        """Show the folders as they stand now, and which search is in use."""
        self._covered = self._announced
        try:
            self._show(await self.knowledge.folders())
        except (OSError, ParleyError) as exc:
            self._say(f"Could not read the knowledge folders: {exc}")
        self.search_mode.setText(self.knowledge.search_mode())
        self.search_mode.setToolTip(self.knowledge.vector_note or "")
        choices = await asyncio.to_thread(self.knowledge.embedding_choices)
        current = self.knowledge.embedding_spec
        if current and current not in [c.spec for c in choices]:
            choices.append(EmbeddingChoice(current, f"{current.removeprefix('gguf:')} (missing)"))
        self.embedding.blockSignals(True)
        self.embedding.clear()
        for choice in choices:
            self.embedding.addItem(choice.title, choice.spec)
        self.embedding.setCurrentIndex(max(0, self.embedding.findData(current)))
        self.embedding.blockSignals(False)
        self.embedding.setEnabled(self.knowledge.choose_embedding is not None)

    def _show(self, records: list[FolderRecord]) -> None:
        current = self.folders.currentRow()
        keep = self._records[current].path if 0 <= current < len(self._records) else None
        self._records = list(records)
        self.folders.blockSignals(True)
        self.folders.clear()
        meaning = self.knowledge.embedder is not None
        for record in records:
            who = f"  (agent {self._agent_name(record.agent)})" if record.agent else ""
            status = folder_status(record, meaning)
            item = QListWidgetItem(f"{record.path}{who}\n{status}", self.folders)
            item.setToolTip(record.path)
            if record.path == keep:
                self.folders.setCurrentItem(item)
        if self.folders.currentRow() < 0 and records:
            self.folders.setCurrentRow(0)
        self.folders.blockSignals(False)
        self.empty.setVisible(not records)
        self.folders.setVisible(bool(records))
        self._selected(self.folders.currentRow())

    def _selected(self, row: int) -> None:
        record = self._records[row] if 0 <= row < len(self._records) else None
        self.reindex_button.setEnabled(record is not None)
        self.remove_button.setEnabled(record is not None)
        if record is None or not record.skipped:
            self.problems.setText("")
            self.problems.hide()
            return
        shown = [f"{s.rel}: {s.reason}" for s in record.skipped[:12]]
        more = len(record.skipped) - len(shown)
        lines = ["Not indexed:", *shown, *([f"… and {more} more"] if more > 0 else [])]
        self.problems.setText("\n".join(lines))
        self.problems.show()

    def _on_event(self, event: WorkspaceEvent) -> None:
        if isinstance(event, KnowledgeChanged):
            self._announced += 1
            spawn(self._follow(self._announced))
        elif isinstance(event, KnowledgeProgress):
            self._progress(event)

    async def _follow(self, change: int) -> None:
        """Show announced change ``change``, unless a read started since shows it already:
        the page's own change (a folder added or removed here) is read once, after it."""
        if self._covered < change:
            await self.load()

    def _progress(self, event: KnowledgeProgress) -> None:
        if event.state == "indexing" and event.passages_total:
            self._set_indexing(True)
            self.progress.setRange(0, event.passages_total)
            self.progress.setValue(event.passages_done)
            self.progress_text.setText(
                f"Indexing {event.folder}: the meaning of {event.passages_done:,} of "
                f"{event.passages_total:,} passages"
            )
            return
        if event.state == "indexing":
            self._set_indexing(True)
            self.progress.setRange(0, max(event.bytes_total, 1))
            self.progress.setValue(event.bytes_done)
            self.progress_text.setText(
                f"Indexing {event.folder}: {event.files_done:,} of {event.files_total:,} files, "
                f"{human_size(event.bytes_done)} of {human_size(event.bytes_total)}"
                + (f" — {event.current}" if event.current else "")
            )
            return
        self._set_indexing(False)
        if event.state == "failed":
            self._say(event.error or f"Indexing {event.folder} failed.")
        elif event.state == "cancelled":
            self.progress_text.setText(f"Stopped indexing {event.folder}; what was read is kept.")
            self.progress_text.show()

    def _set_indexing(self, on: bool) -> None:
        self.progress.setVisible(on)
        self.cancel_button.setVisible(on)
        self.progress_text.setVisible(on)

    def _say(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    # Acting --------------------------------------------------------------------------

    async def choose_folder(self) -> None:
        """Ask for a folder with the folder dialog and add it."""
        folder = await ask_folder(self, "Add a knowledge folder", "knowledgeFolderDialog")
        if folder is not None:
            await self.add_folder(folder)

    async def add_folder(self, folder: str) -> None:
        """Add ``folder`` (indexed in the background); a refusal is said on the page."""
        try:
            path = await self.knowledge.add_folder(folder)
        except (OSError, ParleyError) as exc:
            self._say(f"Could not add {folder}: {exc}")
            return
        self._say("")
        await self.load()
        rows = [n for n, r in enumerate(self._records) if r.path == path]
        if rows:
            self.folders.setCurrentRow(rows[0])

    async def choose_embedding(self) -> None:
        """Use the embedding model picked in the list (saved in the settings; one to download
        is downloaded first, with progress and Cancel); the folders are then synced, which
        gives their passages vectors."""
        spec = self.embedding.currentData()
        title = self.embedding.currentText().split(":")[0]
        save = self.knowledge.choose_embedding
        if save is None or not isinstance(spec, str) or spec == self.knowledge.embedding_spec:
            return
        if self._downloading is not None:
            return
        fetching = spec.startswith(DOWNLOAD)
        self._say("")
        try:
            if fetching:
                self._downloading = asyncio.ensure_future(save(spec, self._downloaded(title)))
                self._downloaded(title)(0, None)
                await self._downloading
            else:
                await save(spec, None)
        except asyncio.CancelledError:
            if self._downloading is None or not self._downloading.cancelled():
                raise
            self._say(f"Stopped downloading {title}; what came is kept for the next try.")
        except (OSError, ParleyError) as exc:
            self._say(f"Could not use that model: {exc}")
        finally:
            if fetching:
                self._downloading = None
                self._set_indexing(False)
        await self.load()

    def _downloaded(self, title: str) -> Callable[[int, int | None], None]:
        def show(done: int, total: int | None) -> None:
            self._set_indexing(True)
            self.progress.setRange(0, total or 0)
            self.progress.setValue(done if total else 0)
            of = f" of {human_size(total)}" if total else ""
            self.progress_text.setText(f"Downloading {title}: {human_size(done)}{of}")

        return show

    def _cancel(self) -> None:
        if self._downloading is not None:
            self._downloading.cancel()
        else:
            self.knowledge.cancel()

    async def reindex_selected(self) -> None:
        """Bring the selected folder up to date now."""
        row = self.folders.currentRow()
        if 0 <= row < len(self._records):
            try:
                await self.knowledge.reindex(self._records[row].path)
            except (OSError, ParleyError) as exc:
                self._say(str(exc))

    async def remove_selected(self) -> None:
        """Forget the selected folder (its files are not touched)."""
        row = self.folders.currentRow()
        if not 0 <= row < len(self._records):
            return
        try:
            await self.knowledge.remove_folder(self._records[row].path)
        except (OSError, ParleyError) as exc:
            self._say(f"Could not remove {self._records[row].path}: {exc}")
            return
        self._say("")
        await self.load()
