"""Sizes as people read them."""

from __future__ import annotations

__all__ = ["human_size"]


def human_size(size: int) -> str:
    """``size`` bytes as a short phrase: ``"512 bytes"``, ``"3.4 MB"``, ``"2.0 GB"``."""
    if size < 1000:
        return f"{size} bytes"
    value = float(size)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if value < 1000 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")
