"""Writing an export (a thread, an agent) to a file the user named: never over a file that is
there unless asked (``--force``), and whole or not at all."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TextIO

__all__ = ["refuse_existing", "save_export"]


def refuse_existing(target: Path, force: bool, err: TextIO) -> bool:
    """Whether ``target`` is there and not to be replaced (said on ``err``)."""
    if target.exists() and not force:
        err.write(f"parley: {target} already exists; nothing was written (--force replaces it)\n")
        return True
    return False


async def save_export(target: Path, data: bytes, done: str, err: TextIO) -> int:
    """Write ``data`` to ``target`` whole (off the loop) and say ``done``; the exit code."""
    try:
        await asyncio.to_thread(_write, target, data)
    except OSError as exc:
        err.write(f"parley: could not write {target}: {exc.strerror or exc}; nothing was written\n")
        return 2
    err.write(f"{done} to {target}\n")
    return 0


def _write(target: Path, data: bytes) -> None:
    part = target.with_name(f".{target.name}.part")
    try:
        part.write_bytes(data)
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)
