"""Sizes as people read them, in one unit system: decimal (1 kB = 1000 bytes).

:func:`human_size` is the one for every size; :func:`rough_size` rounds a model file or a
memory need to whole megabytes (or tenths of a gigabyte), the precision a download is judged
by."""

from __future__ import annotations

__all__ = ["human_size", "rough_size"]


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


def rough_size(size: int) -> str:
    """``size`` bytes rounded for a model or a memory need: ``"398 MB"``, ``"1.2 GB"``."""
    return f"{size / 1e9:.1f} GB" if size >= 1_000_000_000 else f"{round(size / 1_000_000)} MB"
