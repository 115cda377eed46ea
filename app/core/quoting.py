"""Quoting text that came from outside (an export, a server) inside a sentence for the user."""

from __future__ import annotations

__all__ = ["quoted"]


def quoted(text: str, width: int = 120) -> str:
    """``text`` on one line in quotes, unprintable characters as ``?``; longer than ``width``,
    its middle is cut (the end of a path or URL says the most)."""
    line = "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))
    if len(line) > width:
        line = line[: width // 2 - 1] + "…" + line[-(width // 2) :]
    return f"'{line}'"
