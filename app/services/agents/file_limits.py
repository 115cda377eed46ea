"""What an agent file may be, known without loading its reader (:mod:`.files`, whose models
load when a file is first written or read): its largest size and the error a bad one raises."""

from __future__ import annotations

from app.core.errors import UserError

__all__ = ["MAX_FILE_BYTES", "AgentFileError"]

MAX_FILE_BYTES = 256 * 1024
"""The largest agent file read: instructions at their longest fit several times over."""


class AgentFileError(UserError):
    """An agent file that cannot be read; the message says why in one sentence."""
