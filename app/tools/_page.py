"""A web page reduced to readable text: html2text's Markdown, with the page's title."""

from __future__ import annotations

import re
from html import unescape

import html2text

__all__ = ["page_text"]

_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_BLANK_RUNS = re.compile(r"\n{3,}")


def page_text(html: str, url: str = "") -> tuple[str, str]:
    """Return the page's title and its text as Markdown (links kept, made absolute against
    ``url``; images, scripts and styles left out)."""
    found = _TITLE.search(html, 0, 200_000)
    title = " ".join(unescape(found.group(1)).split()) if found else ""
    converter = html2text.HTML2Text(baseurl=url)
    converter.body_width = 0
    converter.ignore_images = True
    converter.unicode_snob = True
    text = converter.handle(html)
    return title, _BLANK_RUNS.sub("\n\n", text).strip()
