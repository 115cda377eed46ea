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
    for unit in ("kB", "MB", "GB"):
        value /= 1000
        if round(value, 1) < 1000:  # 999,999 bytes read "1.0 MB", never "1000.0 kB"
            return f"{value:.1f} {unit}"
    return f"{value / 1000:.1f} TB"


def rough_size(size: int) -> str:
    """``size`` bytes rounded for a model or a memory need: ``"398 MB"``, ``"1.2 GB"``."""
    megabytes = round(size / 1_000_000)
    return f"{megabytes} MB" if megabytes < 1000 else f"{size / 1e9:.1f} GB"
