"""Word documents (.docx), read with python-docx: paragraphs and tables as text."""

from __future__ import annotations

import io
import zipfile
from xml.parsers.expat import ExpatError, ParserCreate

import docx
from docx.opc.exceptions import OpcError

from app.core.state.message_block import DocumentBlock, MediaRef
from app.media._draft import MAIN, Blob, Draft
from app.media._limits import DocxLimits
from app.media._sniff import DOCX_MIME
from app.media._util import Job, excerpt_of, human_size
from app.media.errors import IngestError

_DAMAGED = "it is not a readable Word document: the file is damaged"


_CHUNK = 1 << 16
_DOCUMENT = "word/document.xml"


def _bomb(name: str, what: str) -> IngestError:
    return IngestError(name, f"it is a Word document {what} (a zip bomb?)")


def _check_unpacked(data: bytes, name: str, limits: DocxLimits) -> None:
    """Unpack every part once, counting bytes (declared and actual) and XML elements,
    keeping nothing: refuse the document before python-docx holds it in memory."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
            total = sum(info.file_size for info in infos)
            if total > limits.max_unpacked:
                raise _bomb(
                    name,
                    f"that unpacks to {human_size(total)}, over the "
                    f"{human_size(limits.max_unpacked)} limit",
                )
            counted = _Counted(name, limits)
            for info in infos:
                counted.part(zf, info)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, ExpatError, RuntimeError):
        raise IngestError(name, _DAMAGED) from None


class _Counted:
    """The bytes and XML elements unpacked so far, checked against the limits."""

    def __init__(self, name: str, limits: DocxLimits) -> None:
        self.name = name
        self.limits = limits
        self.unpacked = 0
        self.elements = 0

    def _element(self, _tag: str, _attributes: object) -> None:
        self.elements += 1
        if self.elements > self.limits.max_elements:
            raise _bomb(
                self.name, f"whose parts hold over {self.limits.max_elements:,} XML elements"
            )

    def part(self, zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
        """Unpack one part (reading an XML one through a parser that keeps nothing)."""
        parser = None
        if info.filename.endswith((".xml", ".rels")):
            parser = ParserCreate()
            parser.StartElementHandler = self._element
        size = 0
        limit = self.limits.max_document_xml if info.filename == _DOCUMENT else None
        with zf.open(info) as member:
            while chunk := member.read(_CHUNK):
                size += len(chunk)
                self.unpacked += len(chunk)
                if self.unpacked > self.limits.max_unpacked:
                    raise _bomb(
                        self.name,
                        f"that unpacks to over {human_size(self.limits.max_unpacked)}",
                    )
                if limit is not None and size > limit:
                    raise _bomb(
                        self.name, f"whose text ({_DOCUMENT}) unpacks to over {human_size(limit)}"
                    )
                if parser is not None:
                    parser.Parse(chunk, False)
        if parser is not None:
            parser.Parse(b"", True)


def extract_docx(data: bytes, name: str, limits: DocxLimits, job: Job) -> Draft:
    """Read a .docx: its paragraphs, then its tables (cells separated by tabs)."""
    _check_unpacked(data, name, limits)
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
