"""Text crossing the terminal: arguments that may hold bytes that are not UTF-8, and what
others wrote (a model, a server) made safe to print."""

from __future__ import annotations

from app.text.hidden_chars import escape_hidden

__all__ = ["as_text", "printable"]


def printable(text: str, encoding: str | None) -> str:
    """``text`` with controls, bidi and invisible characters escaped (``\\x1b``, ``\\u202e``),
    so what a model or server sends cannot move the cursor, rewrite the clipboard or reorder
    a line, and what the output's encoding cannot write (characters a terminal's narrower
    encoding lacks) as ``?``."""
    text = escape_hidden(text)
    codec = encoding or "utf-8"
    try:
        return text.encode(codec, "replace").decode(codec)
    except LookupError:
        return text.encode("utf-8", "replace").decode("utf-8")


def as_text(value: str) -> str:
    """``value`` with bytes that were not UTF-8 (kept by Python as lone surrogates) turned
    into U+FFFD, so it can be stored and shown."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
