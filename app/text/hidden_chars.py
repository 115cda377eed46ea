"""Characters that act instead of showing, made visible.

Text from outside (model replies, tool arguments, MCP servers' descriptions, replies and
errors, thread titles) may hold terminal controls (ESC and C1 start sequences that move the
cursor, hide text or write the clipboard, as OSC 52 does; a carriage return or backspace
overwrites what was printed), bidi controls that reorder what is shown (U+202E) and other
invisible format characters. :func:`escape_hidden` writes each of them as a backslash escape
for the terminal; :func:`mark_hidden` and :func:`json_escape_hidden` make them visible in the
window. Tabs, newlines, letters of any script and emoji (joiners included) stay as they are.
"""

from __future__ import annotations

import re

__all__ = ["escape_hidden", "json_escape_hidden", "mark_hidden"]

_HIDDEN = re.compile(
    # a subdivision flag (England, Scotland, Wales) is spelled with tag characters: keep it
    "(\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f)"
    "|["
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 controls but tab and newline, DEL, C1 controls
    "\u00ad\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff"  # lone surrogates (bytes that were not text)
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
    "]"
)
"""Controls and invisible format characters; the zero-width (non-)joiners U+200C and U+200D
are left alone, as emoji and several scripts are written with them."""


def _backslash(char: str) -> str:
    code = ord(char)
    if char == "\r":
        return "\\r"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _json(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def escape_hidden(text: str) -> str:
    """``text`` fit for a terminal: each control, bidi or invisible format character written
    as Python's ``repr`` writes it (``\\x1b``, ``\\r``, ``\\x9b``, ``\\u202e``,
    ``\\U000e0041``).

    Each character is escaped on its own, so a sequence split over two writes is escaped
    just the same, and escaping twice changes nothing.
    """
    return _HIDDEN.sub(lambda m: m[1] or _backslash(m[0]), text)


def mark_hidden(text: str) -> str:
    """``text`` with each control, bidi or invisible format character shown as its code
    point in brackets, such as ``⟨U+202E⟩``, for labels in the window."""
    return _HIDDEN.sub(lambda m: m[1] or f"⟨U+{ord(m[0]):04X}⟩", text)


def json_escape_hidden(json_text: str) -> str:
    """``json_text`` (as :func:`json.dumps` writes it) with each control, bidi or invisible
    format character written as a JSON ``\\u`` escape: the same JSON value, visibly."""
    return _HIDDEN.sub(lambda m: m[1] or _json(m[0]), json_text)
