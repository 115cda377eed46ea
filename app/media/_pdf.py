"""PDFs, read with PDFium (pypdfium2): text per page, page count, a first-page preview."""

from __future__ import annotations

import io
import threading

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from app.core.state.message_block import DocumentBlock, MediaRef
from app.media._draft import MAIN, Blob, Draft
from app.media._limits import PdfLimits
from app.media._util import Job, excerpt_of
from app.media.errors import IngestError

_LOCK = threading.Lock()
"""PDFium is not thread-safe: one document is worked on at a time."""


def _title(doc: pdfium.PdfDocument) -> str | None:
    try:
        title = doc.get_metadata_dict(skip_empty=True).get("Title")
    except (pdfium.PdfiumError, ValueError, UnicodeDecodeError):
        return None
    return title.strip() or None if isinstance(title, str) else None


def _page_text(doc: pdfium.PdfDocument, index: int) -> str:
    page = doc[index]
    try:
        textpage = page.get_textpage()
        try:
            return str(textpage.get_text_bounded()).replace("\r\n", "\n").strip()
        finally:
            textpage.close()
    finally:
        page.close()


def _preview(doc: pdfium.PdfDocument, side: int) -> Blob | None:
    page = doc[0]
    try:
        width, height = page.get_size()
        if width <= 0 or height <= 0:
            return None
        bitmap = page.render(scale=side / max(width, height))
        try:
            image = bitmap.to_pil()
            out = io.BytesIO()
            image.convert("RGB").save(out, "JPEG", quality=85)
            return Blob(out.getvalue(), "image/jpeg")
        finally:
            bitmap.close()
    except pdfium.PdfiumError:
        return None
    finally:
        page.close()


def extract_pdf(data: bytes, name: str, limits: PdfLimits, job: Job) -> Draft:
    """Read a PDF's text page by page (checking for cancellation between pages)."""
    with _LOCK:
        try:
            doc = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            if getattr(exc, "err_code", None) == pdfium_c.FPDF_ERR_PASSWORD:
                raise IngestError(
                    name, "it is a password-protected PDF; remove the password and attach it again"
                ) from None
            raise IngestError(name, "it is not a readable PDF: the file is damaged") from None
        try:
            count = len(doc)
            if count == 0:
                raise IngestError(name, "it is a PDF with no pages")
            title = _title(doc)
            texts: list[str] = []
            read = min(count, limits.max_pages)
            for index in range(read):
                job.progress(0.3 + 0.6 * index / read, f"page {index + 1} of {count}")
                try:
                    texts.append(_page_text(doc, index))
                except pdfium.PdfiumError:
                    texts.append("")
            preview = _preview(doc, limits.preview_side)
        finally:
            doc.close()
    text = "\f".join(texts)
    notes = []
    if read < count:
        notes.append(f"{name}: only the text of the first {read} of {count} pages was read")
    if not text.strip():
        notes.append(f"{name}: the PDF has no text layer (scanned pages?); models see no text")
    blobs = {MAIN: Blob(data, "application/pdf", name)}
    if preview is not None:
        blobs["preview"] = preview

    def build(refs: dict[str, MediaRef]) -> DocumentBlock:
        return DocumentBlock(
            media=refs[MAIN],
            text=text if text.strip() else None,
            pages=list(range(1, count + 1)),
            excerpt=excerpt_of(text) or None,
            title=title or name,
            preview=refs.get("preview"),
        )

    return Draft(blobs, build, notes, text=text)
