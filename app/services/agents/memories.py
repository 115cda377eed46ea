"""An agent's memories in its agent file, only when it is exported with them (``parley agents
export --with-memory``): each memory's text, pinned, local only and when it was made — never
its thread, nor whose it is (they are the file's agent's). An import reads them as strictly as
a memory file (:func:`~app.services.memory.files.read_memories`) and adds them with the agent
after a yes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.core.errors import UserError
from app.services.memory.files import FileMemory, read_memories

__all__ = ["MAX_AGENT_MEMORIES", "agent_memories", "memory_entries", "shared_memories"]

MAX_AGENT_MEMORIES = 200
"""The most memories an agent file carries."""

_MEMORY_FILE = "This is not a memory file Parley can read: "


def memory_entries(memories: Sequence[FileMemory]) -> list[dict[str, Any]]:
    """``memories`` as an agent file holds them."""
    return [
        {"text": m.text, "pinned": m.pinned, "local_only": m.local_only, "made_at": m.made_at}
        for m in memories
    ]


def agent_memories(items: Any) -> tuple[FileMemory, ...]:
    """The memories an agent file's ``"memories"`` holds; :class:`UserError` with one
    sentence naming what and where when one cannot be a memory, or names an agent or a
    thread (an agent file's memories are its agent's, from no thread here)."""
    try:
        read = read_memories(items, MAX_AGENT_MEMORIES)
    except UserError as exc:
        why = str(exc).removeprefix(_MEMORY_FILE).rstrip(".")
        raise UserError(
            f"The file's memories cannot be read: {why}; nothing was imported."
        ) from None
    for n, memory in enumerate(read, 1):
        if memory.agent is not None or memory.thread_id is not None:
            raise UserError(
                f"The file's memory {n} names an agent or a thread; an agent file's memories "
                "are its own agent's, so nothing was imported."
            )
    return tuple(read)


def shared_memories(
    memories: Sequence[FileMemory], notes: list[str], secret_in: Callable[[str], str | None]
) -> list[FileMemory]:
    """The memories an agent file may carry (at most :data:`MAX_AGENT_MEMORIES`; none local
    only, none in which ``secret_in`` finds what looks like a key); a note in ``notes`` for
    those left out."""
    local = [m for m in memories if m.local_only]
    if local:
        notes.append(
            f"{len(local)} local-only memor{'y is' if len(local) == 1 else 'ies are'} left "
            "out: they never leave this computer (parley memory export writes them to a "
            "file of your own)."
        )
    keys = [m for m in memories if not m.local_only and secret_in(m.text) is not None]
    if keys:
        notes.append(
            f"{len(keys)} memor{'y' if len(keys) == 1 else 'ies'} holding what looks like a "
            "key left out: keys belong in the keyring."
        )
    shared = [m for m in memories if not m.local_only and m not in keys]
    if len(shared) > MAX_AGENT_MEMORIES:
        notes.append(
            f"Only the first {MAX_AGENT_MEMORIES} memories (pinned first, then the newest) "
            f"are carried; {len(shared) - MAX_AGENT_MEMORIES} are left out."
        )
    return shared[:MAX_AGENT_MEMORIES]
