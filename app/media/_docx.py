"""Word documents (.docx), read with python-docx: paragraphs and tables as text."""

from __future__ import annotations

import io
import zipfile

import docx
from docx.opc.exceptions import OpcError

from app.core.state.message_block import DocumentBlock, MediaRef
from app.media._draft import MAIN, Blob, Draft
from app.media._limits import DocxLimits
from app.media._sniff import DOCX_MIME
from app.media._util import Job, excerpt_of, human_size
from app.media.errors import IngestError

_DAMAGED = "it is not a readable Word document: the file is damaged"


def _check_unpacked(data: bytes, name: str, limit: int) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            total = sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise IngestError(name, _DAMAGED) from None
    if total > limit:
        raise IngestError(
            name,
            f"it is a Word document that unpacks to {human_size(total)}, over the "
            f"{human_size(limit)} limit (a zip bomb?)",
        )


def extract_docx(data: bytes, name: str, limits: DocxLimits, job: Job) -> Draft:
    """Read a .docx: its paragraphs, then its tables (cells separated by tabs)."""
    _check_unpacked(data, name, limits.max_unpacked)
    job.progress(0.4, "reading the document")
    try:
        document = docx.Document(io.BytesIO(data))
        lines = [p.text for p in document.paragraphs]
        for table in document.tables:
            job.check()
            lines.append("")
            lines.extend("\t".join(cell.text for cell in row.cells) for row in table.rows)
        title = (document.core_properties.title or "").strip() or name
    except (OpcError, KeyError, ValueError, zipfile.BadZipFile, OSError, SyntaxError):
        raise IngestError(name, _DAMAGED) from None
    text = "\n".join(lines).strip()

    def build(refs: dict[str, MediaRef]) -> DocumentBlock:
        return DocumentBlock(
            media=refs[MAIN], text=text, excerpt=excerpt_of(text) or None, title=title
        )

    return Draft({MAIN: Blob(data, DOCX_MIME, name)}, build)
