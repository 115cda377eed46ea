"""``write_file``'s approval preview: a unified diff of the file as it is and as it would be."""

from __future__ import annotations

import difflib
import os
import stat

from app.core.tools import ApprovalPreview

__all__ = ["MAX_DIFF_INPUT", "write_preview"]

MAX_DIFF_INPUT = 1_000_000
"""A current file larger than this is not diffed; the preview says so instead."""


def _current(fd: int | None) -> str | None:
    """The opened file's text (closing it); ``None`` for no file. Raises ``ValueError`` if it
    is not text."""
    if fd is None:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("it is not a regular file")
        if st.st_size > MAX_DIFF_INPUT:
            raise ValueError(f"it is {st.st_size} bytes, too large to compare")
        data = os.pread(fd, MAX_DIFF_INPUT, 0)
    finally:
        os.close(fd)
    if b"\x00" in data[:8192]:
        raise ValueError("it is a binary file")
    return data.decode("utf-8", errors="replace")


def write_preview(current_fd: int | None, shown: str, content: str) -> ApprovalPreview:
    """A unified diff from the file being replaced (opened as ``current_fd``, which this
    closes; ``None`` for a new file) to ``content``."""
    try:
        current = _current(current_fd)
    except ValueError as exc:
        return ApprovalPreview(
            format="text",
            title=shown,
            text=f"{shown} will be replaced; {exc}, so no diff is shown.",
        )
    if current == content:
        return ApprovalPreview(
            format="text", title=shown, text=f"{shown} already has this content."
        )
    before = "/dev/null" if current is None else f"a/{shown}"
    lines = difflib.unified_diff(
        (current or "").splitlines(keepends=True),
        content.splitlines(keepends=True),
        fromfile=before,
        tofile=f"b/{shown}",
    )
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return ApprovalPreview(format="diff", title=shown, text=text)
