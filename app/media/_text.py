"""Text, Markdown, code, CSV and JSON: decoded with their detected encoding."""

from __future__ import annotations

import codecs
import json
import mimetypes
from typing import TYPE_CHECKING

from app.media._draft import MAIN, Blob, Draft
from app.media._util import Job, excerpt_of
from app.media.errors import IngestError

if TYPE_CHECKING:
    from app.core.state.message_block import DocumentBlock, MediaRef

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_PREFERRED = "cp1252"
_TEXT_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".json": "application/json",
    ".py": "text/x-python",
    ".toml": "application/toml",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
}


def decode(data: bytes, name: str) -> tuple[str, list[str]]:
    """``data`` as text, and notes on how it was read when it was not clean UTF-8.

    UTF-8 with a few broken bytes stays UTF-8 (the bytes show as U+FFFD, and a note says how
    many); text with no UTF-8 in it at all is read in the encoding charset-normalizer finds.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), []
            except UnicodeDecodeError:
                break
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    loose = data.decode("utf-8", errors="replace")
    bad = loose.count("\ufffd")
    multibyte = len(loose) - len(loose.encode("ascii", errors="ignore")) - bad
    if multibyte >= bad:
        return loose, [f"{name}: {bad} bytes that are not valid UTF-8 show as �"]
    from charset_normalizer import from_bytes  # only for text that is not UTF-8

    matches = list(from_bytes(data))
    if not matches:
        raise IngestError(name, "it looks like text, but its encoding could not be recognised")
    best = matches[0]
    # Western European text fits several single-byte code pages almost equally well; the one
    # that most such files are really in wins a near tie.
    for match in matches:
        if _PREFERRED in match.could_be_from_charset and match.chaos <= best.chaos + 0.1:
            return data.decode(_PREFERRED, errors="replace"), [_read_as(name, _PREFERRED)]
    return str(best), [_read_as(name, best.encoding)]


def _read_as(name: str, encoding: str) -> str:
    return f"{name}: read as {encoding.replace('_', '-')} text (it is not UTF-8)"


def _mime(name: str, text: str) -> str:
    dot = name.rfind(".")
    ext = name[dot:].lower() if dot >= 0 else ""
    mime = _TEXT_TYPES.get(ext) or mimetypes.guess_type(f"x{ext}")[0] or "text/plain"
    if mime == "application/json":
        try:
            json.loads(text)
        except ValueError:
            return "text/plain"
    if not (mime.startswith("text/") or mime in _TEXT_TYPES.values()):
        return "text/plain"  # text content under a binary type's name
    return mime


def extract_text(data: bytes, name: str, job: Job) -> Draft:
    """Read a text file into a document block holding its text."""
    job.progress(0.5, "decoding")
    text, notes = decode(data, name)
    text = text.lstrip("\ufeff")
    mime = _mime(name, text)

    def build(refs: dict[str, MediaRef]) -> DocumentBlock:
        from app.core.state.message_block import DocumentBlock

        return DocumentBlock(media=refs[MAIN], text=text, excerpt=excerpt_of(text), title=name)

    return Draft({MAIN: Blob(data, mime, name)}, build, notes, text=text)
