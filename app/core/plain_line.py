"""A line of Markdown as a person reads it: the words without the marks around them.

Used where a message's first line stands for it in a list (a branch of the thread's tree), so
``Take the ferry to **Bygdøy**`` reads as ``Take the ferry to Bygdøy``. Marks inside words
(``read_file``, ``2*3``) are kept."""

from __future__ import annotations

import re

__all__ = ["plain_line"]

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_]+?)(?<=\S)\1(?![\w*])")
_LEAD = re.compile(r"^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+)+")


def plain_line(line: str) -> str:
    """``line`` without Markdown's links, code ticks, emphasis and leading marks."""
    line = _LEAD.sub("", line)
    line = _LINK.sub(r"\1", line)
    line = _CODE.sub(r"\1", line)
    line = _STRONG.sub(r"\2", line)
    return _EMPHASIS.sub(r"\2", line)
