"""Turning dropped, pasted or named files into content blocks, off the event loop.

The window and the terminal use the same door::

    ingestor = Ingestor(store.store_media)
    results = await ingestor.ingest_all([Path("photo.jpg"), BytesSource(png, "pasted.png")])
    blocks = [r.block for r in results if r.block is not None]
    problems = [r.message for r in results if r.error]

Each file gives one :class:`IngestResult`: a block whose media are in the store, or an error
sentence naming the file. Nothing is stored for a file until it has been read and checked in
full, so a bad file adds nothing; the other files of a batch attach all the same.
"""

from __future__ import annotations

import importlib
import io
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from app.media._draft import MAIN, Blob, Draft
from app.media._limits import DocxLimits, ImageLimits, PdfLimits
from app.media._opened import Lease, OpenedFile
from app.media._read import check_size, read_descriptor, read_file
from app.media._util import Job
from app.media.errors import Cancelled, IngestError

if TYPE_CHECKING:  # the blocks load when a file is attached, not when a document is read
    from app.core.state.message_block import ContentBlock, DataBlock, MediaRef

__all__ = [
    "BytesSource",
    "DocumentText",
    "IngestLimits",
    "IngestProgress",
    "IngestResult",
    "Ingestor",
    "OpenedFile",
    "Source",
    "StoreMedia",
    "VideoFrames",
    "document_text",
    "load_readers",
]

log = logging.getLogger(__name__)

StoreMedia = Callable[[bytes, str], Awaitable[str]]
"""Stores bytes with their MIME type, content-addressed, and returns their SHA-256 hex digest
(e.g. ``Store.store_media``)."""

VideoFrames = Callable[[bytes, str, float], Awaitable[bytes | None]]
"""Decodes a video's frame at about the given second (the file's bytes and name given) and
returns it as a JPEG thumbnail, or ``None`` when no frame can be decoded. The window's media
decoder is one; without one a video attaches with no thumbnail."""


@dataclass(frozen=True)
class BytesSource:
    """Bytes that are not a file yet (a pasted image, a download) and the name to show."""

    data: bytes
    name: str


Source = str | os.PathLike[str] | BytesSource | OpenedFile
"""A path to a file, bytes with a name, or a file already opened (read through its descriptor)."""


@dataclass(frozen=True)
class IngestLimits:
    """What Parley accepts as an attachment. ``max_bytes`` applies to every file."""

    max_bytes: int = 256 * 1000 * 1000
    max_text_chars: int = 2_000_000
    """A document's text is cut here (about 500,000 tokens, more than any model reads)."""
    image: ImageLimits = field(default_factory=ImageLimits)
    pdf: PdfLimits = field(default_factory=PdfLimits)
    docx: DocxLimits = field(default_factory=DocxLimits)


@dataclass(frozen=True)
class IngestProgress:
    """How far one file of a batch has got. ``fraction`` is of that file (0..1)."""

    index: int
    total: int
    name: str
    fraction: float
    stage: str


@dataclass(frozen=True)
class IngestResult:
    """The outcome for one file: ``block`` when it attached, else ``error`` (the reason).

    ``notes`` are things worth knowing about a file that did attach (e.g. the encoding it was
    read in, or that a PDF has no text layer).
    """

    name: str
    block: ContentBlock | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        """The line to show for a file that could not be attached: ``"<name>: <reason>"``."""
        return f"{self.name}: {self.error}" if self.error else ""


_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""How an OLE compound file starts: an encrypted .docx is one."""

ProgressCallback = Callable[[IngestProgress], None]


def source_name(source: Source | Lease) -> str:
    """The name a source is shown by: the file's name, or the bytes' (or opened file's) given
    name."""
    if isinstance(source, BytesSource | OpenedFile | Lease):
        return source.name
    path = Path(source)
    return path.name or str(path)


def extract(source: Source | Lease, limits: IngestLimits, job: Job) -> Draft:
    """Read and check one source completely (in a worker thread); store nothing. A
    :class:`Lease` is closed once read."""
    draft = _extract(source, limits, job)
    build = draft.build
    limit = limits.max_text_chars
    if draft.text is not None and len(draft.text) > limit:
        draft.notes.append(
            f"{source_name(source)}: only the first {limit:,} characters of its "
            f"{len(draft.text):,} are kept as text"
        )
        draft.text = draft.text[:limit]

    def capped(refs: dict[str, MediaRef]) -> ContentBlock:
        from app.core.state.message_block import DocumentBlock

        block = build(refs)
        if isinstance(block, DocumentBlock) and block.text and len(block.text) > limit:
            block.text = block.text[:limit]
        return block

    draft.build = capped
    return draft


def load_readers() -> None:
    """Load every reader and its decoders (Pillow, pdfium, python-docx, mutagen,
    charset-normalizer, html2text). Slow (~250 ms): call it in a worker thread, never on the
    event loop."""
    for reader in ("_av", "_docx", "_html", "_image", "_pdf", "_sniff", "_text"):
        importlib.import_module(f"app.media.{reader}")
    importlib.import_module("charset_normalizer")  # _text loads it for text that is not UTF-8
    # Reading the first file of a kind also sets its decoder up (Pillow's format plugins,
    # pdfium, the text sniffers), partly while holding the GIL: read a tiny sample
    # of each kind now, so the first drop does not stall the window on it.
    for name, data in _samples():
        try:
            extract(BytesSource(data, name), IngestLimits(), Job())
        except Exception:  # a warm-up only: the real read says what is wrong
            continue


def _samples() -> list[tuple[str, bytes]]:
    import wave

    import pypdfium2 as pdfium
    from PIL import Image

    out = []
    for kind in ("JPEG", "PNG"):
        buffer = io.BytesIO()
        Image.new("RGB", (8, 8), "gray").save(buffer, kind)
        out.append((f"sample.{kind.lower()}", buffer.getvalue()))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(bytes(1600))
    out.append(("sample.wav", buffer.getvalue()))
    pdf = pdfium.PdfDocument.new()
    pdf.new_page(100, 100)
    buffer = io.BytesIO()
    pdf.save(buffer)
    pdf.close()
    out.append(("sample.pdf", buffer.getvalue()))
    out.append(("sample.md", b"# Sample\n\nA line of text.\n"))
    return out


def _extract(source: Source | Lease, limits: IngestLimits, job: Job) -> Draft:
    # The readers load here, in the worker thread, the first time a file of their kind is
    # read (or earlier through load_readers in a worker): never on the event loop; a folder
    # of Markdown never loads the PDF reader.
    from app.media._sniff import claimed, data_mime, family_of

    name = source_name(source)
    if isinstance(source, BytesSource):
        data = source.data
        check_size(name, len(data), limits.max_bytes)
    elif isinstance(source, OpenedFile):
        data = read_descriptor(source.file.fileno(), name, limits.max_bytes, job)
    elif isinstance(source, Lease):
        try:
            data = read_descriptor(source.take(), name, limits.max_bytes, job)
        finally:
            source.close()
    else:
        data = read_file(Path(source), limits.max_bytes, job)
    job.progress(0.3, "recognising")
    family = family_of(data)
    claim = claimed(name)
    if family in ("text", "data") and claim is not None:
        if claim[0] == "docx" and data.startswith(_OLE):
            raise IngestError(
                name,
                "it is a password-protected Word document; remove the password and attach it again",
            )
        raise IngestError(name, f"it is named like {claim[1]}, but its content is not one")
    match family:
        case "image":
            from app.media._image import extract_image

            return extract_image(data, name, limits.image, job)
        case "pdf":
            from app.media._pdf import extract_pdf

            return extract_pdf(data, name, limits.pdf, job)
        case "docx":
            from app.media._docx import extract_docx

            return extract_docx(data, name, limits.docx, job)
        case "av":
            from app.media._av import extract_av

            return extract_av(data, name, job)
        case "text":
            from app.media._text import extract_text

            return extract_text(data, name, job)
    mime = data_mime(data)

    def build(refs: dict[str, MediaRef]) -> DataBlock:
        from app.core.state.message_block import DataBlock

        return DataBlock(mime_type=mime, media=refs[MAIN])

    return Draft({MAIN: Blob(data, mime, name)}, build)


@dataclass(frozen=True)
class DocumentText:
    """The text of a document, read without storing anything: ``pages`` holds a PDF's text
    page by page (``text`` is them joined by form feeds); ``markdown`` says headings are
    Markdown's."""

    text: str
    pages: list[str] | None = None
    markdown: bool = False
    notes: tuple[str, ...] = ()


_MARKDOWN_NAMES = (".md", ".markdown", ".mdown", ".mkd")
_HTML_NAMES = (".html", ".htm", ".xhtml")


def document_text(
    data: bytes, name: str, limits: IngestLimits | None = None, job: Job | None = None
) -> DocumentText:
    """Read the text of a document's bytes as an attachment's is read (PDF, Word, Markdown,
    code, text; a web page as Markdown), in a worker thread. Raises :class:`IngestError` with
    the reason for a damaged, encrypted or empty file, and for one that holds no text (an
    image, a sound, other data; a page only its scripts would fill)."""
    limits = limits or IngestLimits()
    job = job or Job()
    if name.lower().endswith(_HTML_NAMES):
        page = _page_text(data, name, limits, job)
        if page is not None:
            return page
    draft = extract(BytesSource(data, name), limits, job)
    if draft.text is None:  # no block is built: only the text is wanted
        raise IngestError(name, "it holds no text Parley can read (an image, a sound or data)")
    text = draft.text
    is_pdf = draft.blobs[MAIN].mime_type == "application/pdf"
    return DocumentText(
        text,
        text.split("\f") if is_pdf else None,
        name.lower().endswith(_MARKDOWN_NAMES),
        tuple(draft.notes),
    )


def _page_text(data: bytes, name: str, limits: IngestLimits, job: Job) -> DocumentText | None:
    """A web page's text as Markdown, or ``None`` when its bytes are not text at all (then
    it is read as any file is, and its reason said)."""
    from app.media._html import page_markdown
    from app.media._sniff import family_of

    check_size(name, len(data), limits.max_bytes)
    if family_of(data) != "text":
        return None
    text, notes = page_markdown(data, name, job)
    if not text:
        raise IngestError(
            name, "the page holds no text: only markup, or a page its scripts would fill in"
        )
    limit = limits.max_text_chars
    if len(text) > limit:
        notes.append(
            f"{name}: only the first {limit:,} characters of its {len(text):,} are kept as text"
        )
        text = text[:limit]
    return DocumentText(text, None, True, tuple(notes))


class Ingestor:
    """Attaches files: reads each in a worker thread, stores its media through
    ``store_media``, and returns one :class:`IngestResult` per file.

    Cancel the awaiting task to stop: the worker stops at its next check (between chunks
    read, PDF pages, decoded frames) and nothing of that file is stored.
    """

    def __init__(
        self,
        store_media: StoreMedia,
        limits: IngestLimits | None = None,
        frames: VideoFrames | None = None,
    ) -> None:
        self._store_media = store_media
        self.limits = limits or IngestLimits()
        self._frames = frames

    async def ingest(
        self,
        source: Source,
        on_progress: ProgressCallback | None = None,
        *,
        index: int = 0,
        total: int = 1,
    ) -> IngestResult:
        """Attach one source. Raises ``asyncio.CancelledError`` only when cancelled."""
        import asyncio  # here: the document reader's child imports this module, not asyncio

        name = source_name(source)
        loop = asyncio.get_running_loop()
        job = Job()

        def emit(fraction: float, stage: str) -> None:
            if on_progress is not None and not job.cancel_event.is_set():
                on_progress(IngestProgress(index, total, name, fraction, stage))

        def report(fraction: float, stage: str) -> None:
            loop.call_soon_threadsafe(emit, fraction, stage)

        job.report = report
        emit(0.0, "queued")
        # the worker reads its own copy of an opened file's descriptor, so the caller may
        # close the file as soon as this returns, even when it was cancelled
        work = Lease(source) if isinstance(source, OpenedFile) else source
        try:
            draft = await asyncio.to_thread(extract, work, self.limits, job)
            if draft.frame_at is not None and self._frames is not None:
                emit(0.7, "making a thumbnail")
                await self._thumbnail(draft, name, self._frames)
            refs = await self._store(draft, name)
            block = draft.build(refs)
        except asyncio.CancelledError:
            job.cancel_event.set()
            if isinstance(work, Lease):
                work.abandon()
            raise
        except Cancelled:  # pragma: no cover - only raised after the task was cancelled
            raise asyncio.CancelledError from None
        except IngestError as exc:
            emit(1.0, "failed")
            return IngestResult(name, error=exc.reason)
        except MemoryError:
            emit(1.0, "failed")
            return IngestResult(name, error="there was not enough memory to read it")
        except Exception as exc:  # a decoder's bug must not take the other files down
            log.info("could not attach %s", name, exc_info=True)
            emit(1.0, "failed")
            return IngestResult(name, error=f"it could not be read ({type(exc).__name__})")
        emit(1.0, "done")
        return IngestResult(name, block=block, notes=tuple(draft.notes))

    async def ingest_all(
        self, sources: Iterable[Source], on_progress: ProgressCallback | None = None
    ) -> list[IngestResult]:
        """Attach several sources one after another, one result each, in order."""
        items = list(sources)
        results = []
        for index, source in enumerate(items):
            results.append(await self.ingest(source, on_progress, index=index, total=len(items)))
        return results

    async def _thumbnail(self, draft: Draft, name: str, frames: VideoFrames) -> None:
        """Add a video's thumbnail from the frame source; a note when it decodes none."""
        at = draft.frame_at or 0.0
        try:
            jpeg = await frames(draft.blobs[MAIN].data, name, at)
        except Exception:  # the decoder's failure costs the thumbnail, not the file
            log.info("no thumbnail for %s", name, exc_info=True)
            jpeg = None
        if jpeg:
            draft.blobs["thumbnail"] = Blob(jpeg, "image/jpeg")
        else:
            draft.notes.append(f"{name}: no frame could be decoded for a thumbnail")

    async def _store(self, draft: Draft, name: str) -> dict[str, MediaRef]:
        from app.core.state.message_block import MediaRef

        refs: dict[str, MediaRef] = {}
        for role, blob in draft.blobs.items():
            try:
                sha = await self._store_media(blob.data, blob.mime_type)
            except Exception as exc:  # the store's own errors say what went wrong
                raise IngestError(name, f"it could not be stored ({exc})") from None
            refs[role] = MediaRef(
                kind="file_id",
                file_id=sha,
                sha256=sha,
                mime_type=blob.mime_type,
                filename=blob.filename or (name if role == MAIN else None),
                size_bytes=len(blob.data),
            )
        return refs
