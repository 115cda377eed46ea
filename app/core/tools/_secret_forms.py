"""The forms a secret commonly takes in text besides itself, so redaction finds them all.

An HTTP client's error quotes a URL with the token percent-encoded, a library puts it through
``json.dumps`` or ``repr``, an ``Authorization: Basic`` header holds it in base64 after
``user:``. :func:`secret_pattern` matches the secret with any of its characters written as an
encoder writes it (URL percent escapes in any case, ``+`` for a space, JSON and Python escapes,
the escapes of its UTF-8 bytes), plus its hex. Base64 depends on what surrounds the secret, so
:func:`base64_cores` gives the middle part its encoding has at each offset, and
:func:`decoded_runs_holding` decodes base64-looking runs and looks inside.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from urllib.parse import quote

__all__ = [
    "anchors",
    "base64_cores",
    "decoded_runs_holding",
    "run_around",
    "secret_pattern",
]

_MIN_CORE = 8
"""Shorter base64 pieces would match unrelated text; such secrets are found by decoding."""

_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")

_QUOTED_BASE64 = frozenset({"%2B", "%2F", "%3D"})
"""Base64 characters as URL encoding writes them."""

_SHORT_ESCAPES = {
    '"': '\\"',
    "'": "\\'",
    "\\": "\\\\",
    "/": "\\/",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}
"""Characters JSON or Python may write as a backslash and one letter."""


_UNESCAPED = re.compile(r"[A-Za-z0-9_.~-]+")
"""Characters that URL encoding, JSON and ``repr`` all leave as they are."""

_BACKSLASH = r"\\{1,8}"
"""The backslash of an escape, doubled when escaped text is escaped again (JSON in JSON)."""


def _hex(number: int, width: int) -> str:
    """A pattern for ``number`` as ``width`` hex digits, in either letter case."""
    digits = format(number, f"0{width}x")
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits)


def _char_forms(char: str) -> str:
    """A pattern for ``char`` as itself or as any common encoder escapes it."""
    if _UNESCAPED.fullmatch(char):
        return re.escape(char)  # no common encoder escapes these
    data = char.encode("utf-8", "surrogatepass")
    code = ord(char)
    forms = [
        re.escape(char),
        "".join("%" + _hex(b, 2) for b in data),  # URL encoding
        "".join(_BACKSLASH + "x" + _hex(b, 2) for b in data),  # repr of the UTF-8 bytes
    ]
    if code < 0x100:
        forms.append(_BACKSLASH + "x" + _hex(code, 2))  # repr / ascii
    if code < 0x10000:
        forms.append(_BACKSLASH + "u" + _hex(code, 4))  # JSON, ascii
    else:
        forms.append(_BACKSLASH + "U" + _hex(code, 8))
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(_BACKSLASH + "u" + _hex(high, 4) + _BACKSLASH + "u" + _hex(low, 4))
    if char in _SHORT_ESCAPES:
        forms.append(_BACKSLASH + re.escape(_SHORT_ESCAPES[char][1:]))
    if char == " ":
        forms.append(r"\+")  # quote_plus
    return "|".join(dict.fromkeys(forms))


def secret_pattern(value: str) -> re.Pattern[str]:
    """A pattern matching ``value`` in every form :mod:`urllib.parse` ``quote``/``quote_plus``
    (any ``safe`` set, any hex case), ``json.dumps`` (with and without ``ensure_ascii``),
    ``repr``/``ascii`` of it or of its UTF-8 bytes give it, or as the hex of its bytes."""
    escaped = "".join(f"(?:{_char_forms(c)})" for c in value)
    raw = value.encode("utf-8", "surrogatepass").hex()
    return re.compile("|".join([escaped, re.escape(raw), re.escape(raw.upper())]))


def anchors(value: str) -> tuple[str, ...]:
    """Pieces of which one is in every text :func:`secret_pattern` matches (so a text without
    any of them needs no search), or ``()`` when there is no such cheap test."""
    plain = max(_UNESCAPED.findall(value), key=len, default="")
    if len(plain) < 3:
        return ()
    raw = value.encode("utf-8", "surrogatepass").hex()
    return (plain, raw, raw.upper())


def base64_cores(value: str) -> set[str]:
    """The parts of base64 text that stand for ``value`` alone, wherever it starts in the
    encoded bytes (``user:secret`` puts it at any offset): the whole groups that hold only
    bytes of ``value``. Pieces too short to tell apart from other text are left out."""
    raw = value.encode("utf-8", "surrogatepass")
    cores: set[str] = set()
    for offset in range(3):
        data = b"\0" * offset + raw
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(data).decode()
            start = 4 if offset else 0
            end = len(text) - (4 if len(data) % 3 else 0)
            # the group holding both the offset bytes and the first bytes of value is skipped
            core = text[start:end]
            if len(core) >= _MIN_CORE:
                # also as it reads in a URL (a basic-auth token in a query string)
                quoted = quote(core, safe="")
                cores |= {core, quoted, _lower_hex(quoted)}
    return cores


def _lower_hex(text: str) -> str:
    """``text`` with its percent escapes in lower-case hex, as some URL encoders write them."""
    return re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), text)


def _decode(run: str) -> list[bytes]:
    """``run`` decoded in both base64 alphabets, from each of its first four characters (text
    glued to its front shifts it)."""
    found = []
    # text of neither alphabet's own characters decodes alike in both
    decoders: list[Callable[[str], bytes]] = [base64.b64decode]
    if "-" in run or "_" in run:
        decoders = [base64.urlsafe_b64decode] + (decoders if "+" in run or "/" in run else [])
    for skip in range(4):
        body = run[skip:].rstrip("=")
        body = body[: len(body) - len(body) % 4] if len(body) % 4 == 1 else body
        padded = body + "=" * (-len(body) % 4)
        for decode in decoders:
            try:
                found.append(decode(padded))
            except (binascii.Error, ValueError):
                continue
    return found


def decoded_runs_holding(text: str, secrets: list[tuple[bytes, str]]) -> list[tuple[int, int, str]]:
    """The spans of base64 runs in ``text`` whose decoded bytes contain one of ``secrets``
    (``(value, ref)`` pairs), each with the ref of the secret found.

    Only runs long enough to hold a secret are decoded; secrets shorter than four bytes are not
    looked for (nearly any run would hold them)."""
    wanted = [(value, ref) for value, ref in secrets if len(value) >= 4]
    if not wanted:
        return []
    shortest = min((len(value) * 4 + 2) // 3 for value, _ in wanted)
    spans = []
    for match in re.finditer(rf"[A-Za-z0-9+/_-]{{{shortest},}}={{0,2}}", text):
        decoded = _decode(match[0])
        for value, ref in wanted:
            if any(value in data for data in decoded):
                spans.append((*match.span(), ref))
                break
    return spans


def run_around(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen ``text[start:end]`` to the whole base64 run it lies in (with trailing padding),
    reading ``%2B``, ``%2F`` and ``%3D`` as the characters they encode."""
    while start > 0:
        if text[start - 1] in _BASE64_CHARS:
            start -= 1
        elif start >= 3 and text[start - 3 : start].upper() in _QUOTED_BASE64:
            start -= 3
        else:
            break
    while end < len(text):
        if text[end] in _BASE64_CHARS or text[end] == "=":
            end += 1
        elif text[end : end + 3].upper() in _QUOTED_BASE64:
            end += 3
        else:
            break
    return start, end
