"""Word documents (.docx): paragraphs and tables as text, read from the document's XML with
the standard library as python-docx reads them (its text rules, without lxml beneath it)."""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Iterator
from xml.etree import ElementTree as ET
from xml.parsers.expat import ExpatError, ParserCreate

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


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_MAIN_REL = "/officeDocument"
_CORE_REL = "/metadata/core-properties"
_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_RUN_TEXT = {f"{_W}tab": "\t", f"{_W}ptab": "\t", f"{_W}cr": "\n", f"{_W}noBreakHyphen": "-"}


def _targets(zf: zipfile.ZipFile) -> dict[str, str]:
    """The package's relationships, by type's last part: the main document and its properties."""
    root = ET.fromstring(zf.read("_rels/.rels"))
    found: dict[str, str] = {}
    for rel in root.iter(_RELS):
        kind, target = rel.get("Type", ""), rel.get("Target", "")
        for suffix in (_MAIN_REL, _CORE_REL):
            if kind.endswith(suffix) and suffix not in found:
                found[suffix] = posixpath.normpath(target.lstrip("/"))
    return found


def _run_text(run: ET.Element) -> str:
    """A ``w:r``'s text: its texts, tabs, line breaks (a page or column break is none) and
    non-breaking hyphens."""
    out = []
    for child in run:
        if child.tag == f"{_W}t":
            out.append(child.text or "")
        elif child.tag == f"{_W}br":
            out.append("\n" if child.get(f"{_W}type", "textWrapping") == "textWrapping" else "")
        else:
            out.append(_RUN_TEXT.get(child.tag, ""))
    return "".join(out)


def _paragraph_text(paragraph: ET.Element) -> str:
    """A ``w:p``'s text: its runs and its hyperlinks' runs."""
    out = []
    for child in paragraph:
        if child.tag == f"{_W}r":
            out.append(_run_text(child))
        elif child.tag == f"{_W}hyperlink":
            out.extend(_run_text(run) for run in child.iterfind(f"{_W}r"))
    return "".join(out)


def _property(element: ET.Element, parent: str, name: str) -> str | None:
    """``w:val`` of ``parent/name`` under ``element`` (``w:tcPr/w:gridSpan``), or None."""
    found = element.find(f"{_W}{parent}/{_W}{name}")
    return None if found is None else found.get(f"{_W}val", "")


def _table_rows(table: ET.Element) -> Iterator[str]:
    """Each row's cells separated by tabs: a cell spanning columns once per column, a cell
    continuing a vertical merge as the cell it continues."""
    above: dict[int, tuple[str, int]] = {}
    for row in table.iterfind(f"{_W}tr"):
        offset = int(_property(row, "trPr", "gridBefore") or 0)
        here: dict[int, tuple[str, int]] = {}
        cells: list[str] = []
        for cell in row.iterfind(f"{_W}tc"):
            span = int(_property(cell, "tcPr", "gridSpan") or 1)
            if _property(cell, "tcPr", "vMerge") in ("", "continue"):
                text, shown = above.get(offset, ("", span))
            else:
                text = "\n".join(_paragraph_text(p) for p in cell.iterfind(f"{_W}p"))
                shown = span
            here[offset] = (text, shown)
            cells.extend([text] * shown)
            offset += span
        above = here
        yield "\t".join(cells)


def _read(data: bytes) -> tuple[list[str], str]:
    """The document's lines (its paragraphs, then each table after an empty line) and title."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        targets = _targets(zf)
        body = ET.fromstring(zf.read(targets[_MAIN_REL])).find(f"{_W}body")
        if body is None:
            raise ValueError("no document body")
        lines = [_paragraph_text(p) for p in body.iterfind(f"{_W}p")]
        for table in body.iterfind(f"{_W}tbl"):
            lines.append("")
            lines.extend(_table_rows(table))
        title = ""
        if _CORE_REL in targets and targets[_CORE_REL] in zf.namelist():
            found = ET.fromstring(zf.read(targets[_CORE_REL])).find(_TITLE)
            title = (found.text or "") if found is not None else ""
    return lines, title


def extract_docx(data: bytes, name: str, limits: DocxLimits, job: Job) -> Draft:
    """Read a .docx: its paragraphs, then its tables (cells separated by tabs)."""
    _check_unpacked(data, name, limits)
    job.progress(0.4, "reading the document")
    try:
        lines, title = _read(data)
    except (KeyError, ValueError, zipfile.BadZipFile, OSError, ET.ParseError):
        raise IngestError(name, _DAMAGED) from None
    job.check()
    title = title.strip() or name
    text = "\n".join(lines).strip()

    def build(refs: dict[str, MediaRef]) -> DocumentBlock:
        return DocumentBlock(
            media=refs[MAIN], text=text, excerpt=excerpt_of(text) or None, title=title
        )

    return Draft({MAIN: Blob(data, DOCX_MIME, name)}, build, text=text)
