"""The machine a benchmark ran on, in one line: cores, CPU model, memory, system, Python."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def _cpuinfo(field: str) -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == field:
            return value.strip()
    return ""


def _memory_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def describe_machine() -> str:
    """One line naming the machine: usable cores, CPU model, memory, system and Python."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpu = _cpuinfo("model name") or platform.processor() or platform.machine() or "unknown CPU"
    memory = _memory_gb()
    parts = [f"{usable} cores", cpu]
    if memory is not None:
        parts.append(f"{memory:.1f} GB RAM")
    parts += [f"{platform.system()} {platform.release()}", f"Python {platform.python_version()}"]
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    if load is not None:
        parts.append(f"load {load:.1f} at start")
    return "Machine: " + ", ".join(parts)
