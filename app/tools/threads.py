"""``search_threads``: the user's own past conversations, through the store's full-text index.

The tools layer cannot reach the store; the service passes in a search function, e.g.
``lambda text, limit: store.search(text, limit=limit)``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from app.core.tools import Tool, ToolError, tool

__all__ = ["MAX_THREAD_HITS", "ThreadHit", "ThreadSearch", "search_threads_tool"]

MAX_THREAD_HITS = 20
"""At most this many matching messages are returned."""


class ThreadHit(Protocol):
    """One matching message, as the store's search returns it."""

    @property
    def thread_id(self) -> str:
        """The thread the message is in."""
        ...

    @property
    def thread_title(self) -> str:
        """That thread's title."""
        ...

    @property
    def role(self) -> str:
        """Who wrote the message: user, assistant or tool."""
        ...

    @property
    def snippet(self) -> str:
        """The words around the match, the matched ones marked."""
        ...


ThreadSearch = Callable[[str, int], Awaitable[Sequence[ThreadHit]]]
"""``search(text, limit)``: the best matches for ``text`` over every thread, best first."""


def search_threads_tool(search: ThreadSearch) -> Tool[..., Any]:
    """Build ``search_threads`` over ``search``."""

    @tool(permissions=("threads:read",), timeout=15)
    async def search_threads(text: str, limit: int = 10) -> str:
        """Search the user's earlier conversations for words; shows each matching message.

        Args:
            text: The words to look for; every word must occur.
            limit: How many matches to return (1 to 20).
        """
        if not text.strip():
            raise ToolError("the search text is empty; give the words to look for")
        limit = max(1, min(limit, MAX_THREAD_HITS))
        hits = await search(text, limit)
        if not hits:
            return f"No earlier message contains {text!r}."
        lines = [f"{len(hits)} messages match {text!r}:"]
        for hit in hits[:limit]:
            title = hit.thread_title or "(untitled)"
            lines.append(f"- in {title!r} (thread {hit.thread_id}), {hit.role}: {hit.snippet}")
        return "\n".join(lines)

    return search_threads
