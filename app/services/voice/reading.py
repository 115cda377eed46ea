"""What a reply sounds like read aloud: code blocks and formulas are announced, not spelled
out; a link reads as its text; Markdown's marks are dropped; the rest is split in sentences."""

from __future__ import annotations

import re

__all__ = ["readable", "sentences"]

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]", re.DOTALL)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$|\\\(.+?\\\)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_BARE_URL = re.compile(r"https?://\S+")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_MARKS = re.compile(r"(\*\*|__|\*|_|~~|^#{1,6}\s+|^>\s?|^\s*[-*+]\s+)", re.MULTILINE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def readable(text: str) -> str:
    """``text`` (Markdown) as it should be spoken."""
    text = _FENCE.sub("\nA code block.\n", text)
    text = _DISPLAY_MATH.sub("\nA formula.\n", text)
    text = _INLINE_MATH.sub(" a formula ", text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _BARE_URL.sub("a link", text)
    text = _INLINE_CODE.sub(lambda m: m.group(1), text)
    text = _MARKS.sub("", text)
    lines = [line.strip() for line in text.splitlines()]
    joined = " ".join(line if line[-1:] in ".!?:;," else f"{line}." for line in lines if line)
    return re.sub(r"\s+", " ", joined).strip()


def sentences(text: str) -> list[str]:
    """``text``'s sentences, each to be spoken as soon as it is complete."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]
