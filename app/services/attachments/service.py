"""The window's door to attachments: ingest files into the store, read stored media back, and
say before sending what a thread's model will not see.

Widgets never touch the store: they call :class:`AttachmentService` (``workspace.attachments``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from app.core.errors import ParleyError
from app.core.models.fit import left_out
from app.core.models.protocol import ChatModel, ModelInfo
from app.core.state import AudioBlock, ContentBlock, MediaRef
from app.store import Store

if TYPE_CHECKING:
    import os

    from app.media import IngestLimits, IngestProgress, IngestResult, Source, VideoFrames
    from app.services.attachments.compose import Attachments

__all__ = ["AttachmentService", "Transcriber"]

ModelFor = Callable[[str], Awaitable[ChatModel]]


class Heard(Protocol):
    """What a recording said."""

    @property
    def text(self) -> str:
        """Its words ("" when no speech was heard)."""


class Transcriber(Protocol):
    """What turns an attached recording into its words, on this computer."""

    async def can_transcribe(self) -> bool:
        """Whether a recording can be transcribed now."""

    async def transcribe(self, source: bytes) -> Heard:
        """The words of the recording ``source`` (its bytes)."""


class AttachmentService:
    """Ingests files for one workspace and reads their stored media back.

    ``model_for`` builds (or returns the cached) model for a spec, so :meth:`left_out` can ask
    what that model takes as input. A video gets its thumbnail from the frame source the
    window hands :meth:`use_video_frames` (decoding is Qt Multimedia's, which only the window
    loads).
    """

    def __init__(
        self,
        store: Store,
        model_for: ModelFor,
        limits: IngestLimits | None = None,
        *,
        transcriber: Transcriber | None = None,
    ) -> None:
        self._store = store
        self._model_for = model_for
        self._limits = limits
        self._frames: VideoFrames | None = None
        self._transcriber = transcriber

    def use_video_frames(self, frames: VideoFrames | None) -> None:
        """Decode videos' thumbnails with ``frames`` from now on (``None``: attach videos
        without one)."""
        self._frames = frames

    @property
    def limits(self) -> IngestLimits:
        """The size and shape limits files are checked against."""
        if self._limits is None:
            from app.media import IngestLimits

            self._limits = IngestLimits()
        return self._limits

    async def ingest(
        self, source: Source, on_progress: Callable[[IngestProgress], None] | None = None
    ) -> IngestResult:
        """Read, check and store one file (off the event loop); one block or one reason.

        Cancelling the awaiting task stops the read and stores nothing of that file."""
        # the readers (images, PDFs, documents, media) load with the first file
        from app.media import Ingestor

        ingestor = Ingestor(self._store.store_media, self.limits, self._frames)
        result = await ingestor.ingest(source, on_progress)
        if not isinstance(result.block, AudioBlock):
            return result
        if on_progress is not None:
            from app.media import IngestProgress

            on_progress(IngestProgress(0, 1, result.name, 1.0, "transcribing"))
        block, notes = await self._transcribed(result.block, result.name)
        return replace(result, block=block, notes=(*result.notes, *notes))

    async def attach(
        self,
        sources: Sequence[Source | os.PathLike[str]],
        *,
        on_progress: Callable[[IngestProgress], None] | None = None,
    ) -> Attachments:
        """Turn files into content blocks, their bytes kept once in the store's media; a
        problem line for each file that cannot be attached (the others still are)."""
        from app.services.attachments.compose import attach

        got = await attach(
            self._store.store_media, sources, on_progress=on_progress, frames=self._frames
        )
        for i, block in enumerate(got.blocks):
            if isinstance(block, AudioBlock):
                got.blocks[i], notes = await self._transcribed(block, block.media.filename)
                got.notes.extend(notes)
        return got

    async def _transcribed(
        self, block: AudioBlock, name: str | None
    ) -> tuple[AudioBlock, tuple[str, ...]]:
        """``block`` with its transcript, made on this computer when a Whisper model is
        installed (else as it is); a note when the recording could not be transcribed."""
        if block.transcript or self._transcriber is None:
            return block, ()
        if not await self._transcriber.can_transcribe():
            return block, ()
        data = await self.media(block.media)
        if data is None:
            return block, ()
        try:
            heard = await self._transcriber.transcribe(data)
        except ParleyError as exc:
            return block, (f"{name or 'The recording'} was not transcribed: {exc}",)
        if not heard.text:
            return block, (f"{name or 'The recording'}: no speech was heard in it.",)
        return block.model_copy(update={"transcript": heard.text}), ()

    async def media(self, ref: MediaRef | None) -> bytes | None:
        """The stored bytes ``ref`` points at, or ``None`` when they are not in the store."""
        key = None if ref is None else ref.file_id or ref.sha256
        if not key:
            return None
        blob = await self._store.get_media(key)
        return None if blob is None else blob.data

    async def model_info(self, spec: str) -> ModelInfo | None:
        """What the model behind ``spec`` takes, or ``None`` when it cannot be built now."""
        try:
            model = await self._model_for(spec)
        except (ParleyError, OSError):
            return None
        return model.info

    async def left_out(self, blocks: Sequence[ContentBlock], spec: str) -> list[str]:
        """One sentence per block the model ``spec`` will not see, said before sending."""
        if not blocks:
            return []
        info = await self.model_info(spec)
        return [] if info is None else left_out(blocks, info)

    async def save_media(self, ref: MediaRef | None, path: str) -> None:
        """Write the stored bytes of ``ref`` to ``path``; raises ``OSError`` or ``LookupError``."""
        data = await self.media(ref)
        if data is None:
            raise LookupError("the file is no longer in Parley's store")
        await asyncio.to_thread(_write, path, data)


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
