"""A saved web page or an HTML document read as Markdown: its headings kept (``#`` to
``######``), links as their words, code in fences (so a ``# comment`` in it is not taken for
a heading), no images, scripts or styles, nothing fetched.

The bytes are decoded as the page declares (its byte-order mark, else its ``<meta charset>``),
else as any text file is (:func:`app.media._text.decode`). html2text walks the page without
building a tree, so a page however deeply nested cannot exhaust the stack; lists and quotes
nested deeper than :data:`MAX_NESTING` are read as the level above, since each level indents
every line under it and thousands of them would make the text grow with their square.
"""

from __future__ import annotations

import codecs
import re
from html import unescape

import html2text

from app.media._text import decode
from app.media._util import Job

__all__ = ["MAX_NESTING", "page_markdown"]

MAX_NESTING = 8
"""Lists and quotes nested deeper than this are read as if they were at this depth."""

_NESTING = frozenset({"ul", "ol", "blockquote"})
_HEAD = 4096
_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_BLANK_RUNS = re.compile(r"\n{3,}")
_ESCAPED_START = re.compile(r"^(#{1,6} +(?:\d+)?)\\([.+-])", re.MULTILINE)
"""A heading's start that html2text escaped as if it could begin a list (``## 2\\. Title``)."""
_LATIN1 = frozenset({"latin-1", "iso8859-1", "ascii"})
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def page_markdown(data: bytes, name: str, job: Job) -> tuple[str, list[str]]:
    """The page's text as Markdown, and notes on how its bytes were read. The page's
    ``<title>`` starts the text as its first heading when no heading says the same."""
    job.progress(0.4, "decoding")
    html, notes = _decoded(data, name)
    job.progress(0.6, "reading the page")
    found = _TITLE.search(html, 0, 200_000)
    title = " ".join(unescape(found.group(1)).split()) if found else ""
    text = _BLANK_RUNS.sub("\n\n", _converter().handle(html)).strip()
    text = _ESCAPED_START.sub(r"\1\2", text)
    headings = {" ".join(h.split()) for h in _HEADING.findall(text)}
    if title and title not in headings:
        first, _, rest = text.partition("\n")
        if first.strip() == title:  # a title outside a <head> is read as the body's start
            text = rest.strip()
        text = f"# {title}\n\n{text}" if text else ""
    return text, notes


def _decoded(data: bytes, name: str) -> tuple[str, list[str]]:
    """The page's characters: in the encoding its ``<meta>`` declares when that reads it
    without a fault (a byte-order mark wins), else as text is read."""
    if not data.startswith(_BOMS):
        declared = _META_CHARSET.search(data, 0, _HEAD)
        if declared is not None:
            try:
                encoding = codecs.lookup(declared.group(1).decode("ascii")).name
            except (LookupError, UnicodeDecodeError):
                encoding = ""
            if encoding in _LATIN1:
                encoding = "cp1252"  # what browsers read a page that says Latin-1 in
            if encoding and not encoding.startswith(("utf-16", "utf-32")):
                try:
                    return data.decode(encoding), []
                except UnicodeDecodeError:
                    pass
    text, notes = decode(data, name)
    return text.lstrip("\ufeff"), notes


def _converter() -> html2text.HTML2Text:
    converter = html2text.HTML2Text()
    converter.body_width = 0
    converter.ignore_images = True
    converter.ignore_links = True
    converter.unicode_snob = True
    converter.backquote_code_style = True  # fenced: a shell comment in it is no heading
    depth = 0
    skipped = 0

    def nesting(_: object, tag: str, __: object, start: bool) -> bool | None:
        nonlocal depth, skipped
        if tag not in _NESTING:
            return None
        if start:
            if depth >= MAX_NESTING:
                skipped += 1
                return True
            depth += 1
        elif skipped:
            skipped -= 1
            return True
        elif depth:
            depth -= 1
        return None

    converter.tag_callback = nesting  # type: ignore[assignment]  # declared as None only
    return converter
