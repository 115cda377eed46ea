"""Memories: what a person let Parley remember across threads, every one shown, sourced and
theirs (:class:`MemoryService`), and which of them go before a model call
(:func:`~app.services.memory.choice.pick`, put there by :class:`MemoryHook`), and the
``remember`` tool an agent proposes one with (:data:`REMEMBER_TOOL`)."""

from app.services.memory.choice import MAX_MEMORY_TOKENS, RELATED, MemoryChoice, memory_tokens
from app.services.memory.files import MAX_FILE_BYTES, MAX_FILE_MEMORIES
from app.services.memory.service import MemoryImport, MemoryService
from app.services.memory.use import NOTES_HEADING, MemoryHook, runs_elsewhere
from app.store import MAX_MEMORY_CHARS
from app.store import MemoryRecord as Memory
from app.tools.memory import REMEMBER_TOOL, remembered_text

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_FILE_MEMORIES",
    "MAX_MEMORY_CHARS",
    "MAX_MEMORY_TOKENS",
    "NOTES_HEADING",
    "RELATED",
    "REMEMBER_TOOL",
    "Memory",
    "MemoryChoice",
    "MemoryHook",
    "MemoryImport",
    "MemoryService",
    "memory_tokens",
    "remembered_text",
    "runs_elsewhere",
]
