"""Word zip bombs: real .docx files whose text part is highly repetitive XML, so a file of a
few dozen kilobytes unpacks (under the declared-size limit) into millions of elements or a
hundred megabytes of runs."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable

from tests.media.corpus import word

_DOCUMENT = "word/document.xml"
_HEAD = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    b"<w:body>"
)
_TAIL = b"</w:body></w:document>"


def _with_part(part: str, body: Iterable[bytes]) -> bytes:
    """A real Word document with ``part`` replaced by the pieces of ``body``, deflated hard
    (written piece by piece, so building it takes little memory)."""
    original = zipfile.ZipFile(io.BytesIO(word(["A real first paragraph."])))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as bomb:
        for info in original.infolist():
            if info.filename != part:
                bomb.writestr(info.filename, original.read(info))
                continue
            with bomb.open(info.filename, "w", force_zip64=True) as member:
                for piece in body:
                    member.write(piece)
    return out.getvalue()


def _repeated(head: bytes, piece: bytes, times: int, tail: bytes) -> Iterable[bytes]:
    yield head
    block = piece * max(1, 1_000_000 // len(piece))
    whole, left = divmod(times, max(1, 1_000_000 // len(piece)))
    for _ in range(whole):
        yield block
    yield piece * left
    yield tail


def many_elements(paragraphs: int = 1_200_000) -> bytes:
    """A .docx whose text is ``paragraphs`` one-letter paragraphs (four elements each)."""
    return _with_part(
        _DOCUMENT, _repeated(_HEAD, b"<w:p><w:r><w:t>a</w:t></w:r></w:p>", paragraphs, _TAIL)
    )


def huge_runs(runs: int = 150, size: int = 1_000_000) -> bytes:
    """A .docx whose text is ``runs`` runs of ``size`` letters each."""
    run = b"<w:p><w:r><w:t>" + b"a" * size + b"</w:t></w:r></w:p>"
    return _with_part(_DOCUMENT, _repeated(_HEAD, run, runs, _TAIL))


def many_styles(styles: int = 1_500_000) -> bytes:
    """A .docx whose styles part (read by python-docx along with the text) holds ``styles``
    empty elements."""
    head = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        b'<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    )
    return _with_part("word/styles.xml", _repeated(head, b"<w:b/>", styles, b"</w:styles>"))
