"""``AttachmentTray``: the attachments waiting to be sent, shown as chips in its own
``attachmentBar`` (:attr:`AttachmentTray.bar`), which the window hands to the composer to place.

Files come from a drop, a paste or the file dialog (:meth:`AttachmentTray.add`); each gets a
chip at once, and is read one after another off the event loop through the
:class:`~app.services.attachments.AttachmentService` it is handed. A file that cannot be
attached loses its chip and gets one line (its name and the reason) under the chips; the others
attach all the same. Cancelling a file stores nothing of it. Before sending, the tray says
which attachments the thread's model will not see.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.core.state import ContentBlock, DocumentBlock, ImageBlock, VideoBlock
from app.ui.a11y import announce
from app.ui.attachments.chip import CHIP_SHEET, THUMB, AttachmentChip
from app.ui.attachments.thumbs import decode_image
from app.ui.tasks import spawn
from app.ui.theme import ACCENT, LIGHT

CHIPS_AT_ONCE = 4
"""How many chips one turn of the event loop makes (about 1 ms each)."""

if TYPE_CHECKING:
    from app.media import IngestProgress, IngestResult, Source
    from app.services.attachments.service import AttachmentService

__all__ = ["AttachmentTray"]


@dataclass
class _Pending:
    source: Source
    chip: AttachmentChip
    task: asyncio.Task[IngestResult] | None = None


def summary(attached: int, problems: list[str]) -> str:
    """What a screen reader says when a drop, paste or pick has been read."""
    done = f"{attached} file{'s' if attached != 1 else ''} attached"
    return ". ".join([done, *problems]) + "."


class AttachmentTray(QObject):
    """Pending attachments of the composer; see the module docstring."""

    changed = Signal()
    """Chips were added, attached, removed or cleared."""

    def __init__(
        self,
        service: AttachmentService,
        model_spec: Callable[[], Awaitable[str | None]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._spec = model_spec
        self.bar = QWidget()
        """The chips, the files that could not be attached and what the model will not see;
        hidden while empty. Whoever lays the window out places it (the composer does)."""
        self.bar.setObjectName("attachmentBar")
        self.bar.setAccessibleName("Attachments")
        self.bar.hide()
        self.chips: list[AttachmentChip] = []
        self._pending: dict[AttachmentChip, _Pending] = {}
        self._unshown: list[list[Source]] = []
        """Per drop, the files whose chips are not made yet."""
        self._batches: set[asyncio.Task[None]] = set()
        self.problems: list[str] = []
        """One line per file of the latest drop, paste or pick that could not be attached."""
        self.fit_notes: list[str] = []
        """What the thread's model will not see of the attachments, said before sending."""

        self._build(self.bar)
        self._update()

    def _build(self, bar: QWidget) -> None:
        bar.setStyleSheet(CHIP_SHEET % {"accent": ACCENT})
        content = QWidget(bar)
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self._row = QHBoxLayout()
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(8)
        self._row.addStretch(1)
        column.addLayout(self._row)
        problems = QHBoxLayout()
        self.problem_label = QLabel("", content)
        self.problem_label.setObjectName("attachmentProblems")
        self.problem_label.setWordWrap(True)
        self.problem_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.dismiss = QToolButton(content)
        self.dismiss.setObjectName("dismissAttachmentProblems")
        self.dismiss.setText("Dismiss")
        self.dismiss.setAccessibleName("Dismiss the attachment problems")
        self.dismiss.clicked.connect(self.clear_problems)
        problems.addWidget(self.problem_label, 1)
        problems.addWidget(self.dismiss, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(problems)
        self.fit_label = QLabel("", content)
        self.fit_label.setObjectName("attachmentFit")
        self.fit_label.setWordWrap(True)
        column.addWidget(self.fit_label)
        layout = QHBoxLayout(bar)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(content)

    # Adding and removing -------------------------------------------------------------

    def add(self, sources: Sequence[Source]) -> asyncio.Task[None] | None:
        """Attach ``sources``: a chip each now, read in the background; returns the task."""
        if not sources:
            return None
        from app.media.ingest import source_name  # the ingest stack loads on first use

        self.clear_problems()
        items = [self._pend(source, source_name(source)) for source in sources[:CHIPS_AT_ONCE]]
        later = list(sources[CHIPS_AT_ONCE:])
        self._unshown.append(later)
        self._update()
        task = spawn(self._read(items, later))
        self._batches.add(task)
        task.add_done_callback(self._batches.discard)
        return task

    def add_blocks(self, name: str, blocks: Sequence[ContentBlock]) -> None:
        """Attach blocks already read (e.g. an MCP server's resource): a chip each, named
        ``name``, ready to send."""
        self.clear_problems()
        for block in blocks:
            self._chip(name).set_block(block, None)
        self._update()
        announce(self.bar, summary(len(blocks), []))
        spawn(self.refresh_fit())

    def _pend(self, source: Source, name: str) -> _Pending:
        item = _Pending(source, self._chip(name))
        self._pending[item.chip] = item
        return item

    async def _show_later(self, items: list[_Pending], later: list[Source]) -> None:
        # the chips past the first few are made a few per turn of the loop, so that dropping
        # many files at once never holds the window for the time of making every chip
        from app.media.ingest import source_name

        while later:
            await asyncio.sleep(0)
            batch, later[:] = later[:CHIPS_AT_ONCE], later[CHIPS_AT_ONCE:]
            items += [self._pend(source, source_name(source)) for source in batch]
            self._update()

    def _chip(self, name: str) -> AttachmentChip:
        chip = AttachmentChip(name, self.bar)
        chip.removeRequested.connect(partial(self.remove, chip))
        self._row.insertWidget(self._row.count() - 1, chip)
        self.chips.append(chip)
        return chip

    def remove(self, chip: AttachmentChip) -> None:
        """Remove an attachment, or cancel reading it (nothing of it is kept)."""
        item = self._pending.pop(chip, None)
        if item is not None and item.task is not None:
            item.task.cancel()
        if chip in self.chips:
            index = self.chips.index(chip)
            self.chips.remove(chip)
            if chip.hasFocus() and self.chips:
                self.chips[min(index, len(self.chips) - 1)].setFocus()
            chip.hide()
            chip.deleteLater()
        self._update()
        spawn(self.refresh_fit())

    def warm_up(self) -> None:
        """Build, style, lay out and draw one chip off-screen, then drop it.

        The first chips ever shown pay Qt's first-use costs (matching the bar's style sheet,
        the badge's bold font, layouts, the first paint of a rounded border): paid here, once,
        while the window is idle, instead of by all chips of the first drop at once."""
        self.bar.ensurePolished()
        chip = AttachmentChip("warm-up.png", self.bar)
        chip.set_progress(0.5, "reading")
        image = QImage(THUMB, QImage.Format.Format_RGB32)
        image.fill(QColor(LIGHT.placeholder))
        chip.set_thumbnail(image)
        chip.adjustSize()
        chip.grab()
        chip.deleteLater()

    def clear(self) -> None:
        """Forget every attachment (after sending)."""
        for later in self._unshown:
            later.clear()
        for chip in list(self.chips):
            self.remove(chip)
        self.clear_problems()

    def close(self) -> None:
        """Stop reading (the window closes); what was not read in full is not kept."""
        for task in list(self._batches):
            task.cancel()

    def clear_problems(self) -> None:
        """Hide the lines about files that could not be attached."""
        self.problems = []
        self._update()

    # State ---------------------------------------------------------------------------

    def has_chips(self) -> bool:
        """Whether anything is attached (or being read)."""
        return bool(self.chips)

    @property
    def busy(self) -> bool:
        """Whether a file is still being read."""
        return any(self._unshown) or any(chip.busy for chip in self.chips)

    def blocks(self) -> list[ContentBlock]:
        """The attached blocks, in the order their chips show."""
        return [chip.block for chip in self.chips if chip.block is not None]

    async def refresh_fit(self) -> None:
        """Say which attachments the open thread's model will not see."""
        blocks = self.blocks()
        spec = await self._spec() if blocks else None
        notes = await self._service.left_out(blocks, spec) if spec else []
        self.fit_notes = [n.replace(" was left out: ", " will be left out: ") for n in notes]
        self._update()

    # Reading -------------------------------------------------------------------------

    async def _read(self, items: list[_Pending], later: list[Source]) -> None:
        try:
            await self._show_later(items, later)
        finally:
            self._unshown.remove(later)
        problems: list[str] = []
        attached = 0
        for item in items:
            if self._pending.get(item.chip) is not item:
                continue  # removed while waiting
            task = asyncio.ensure_future(
                self._service.ingest(item.source, partial(self._progress, item.chip))
            )
            item.task = task
            try:
                result = await task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    task.cancel()
                    raise
                continue  # this file was cancelled by its chip
            self._pending.pop(item.chip, None)
            block = result.block
            if block is None:
                problems.append(result.message)
                self.remove(item.chip)
                continue
            thumbnail = await self._thumbnail(block)
            if item.chip in self.chips:
                item.chip.set_block(block, thumbnail)
                attached += 1
                self.changed.emit()
        if problems:
            self.problems = self.problems + problems
        self._update()
        announce(self.bar, summary(attached, problems))
        await self.refresh_fit()

    def _progress(self, chip: AttachmentChip, progress: IngestProgress) -> None:
        if chip in self.chips:
            chip.set_progress(progress.fraction, progress.stage)

    async def _thumbnail(self, block: ContentBlock) -> QImage | None:
        ref = None
        if isinstance(block, ImageBlock):
            ref = block.thumbnail or block.media
        elif isinstance(block, VideoBlock):
            ref = block.thumbnail
        elif isinstance(block, DocumentBlock):
            ref = block.preview
        data = await self._service.media(ref) if ref is not None else None
        return None if data is None else await asyncio.to_thread(decode_image, data)

    def _update(self) -> None:
        self.problem_label.setText("\n".join(self.problems))
        self.problem_label.setVisible(bool(self.problems))
        self.dismiss.setVisible(bool(self.problems))
        self.fit_label.setText("\n".join(self.fit_notes))
        self.fit_label.setVisible(bool(self.fit_notes) and bool(self.chips))
        self.bar.setVisible(bool(self.chips or self.problems))
        self.changed.emit()
