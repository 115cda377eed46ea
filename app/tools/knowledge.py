"""``search_knowledge``: the passages of the user's knowledge folders that match a question.

The tools layer cannot reach the index; the service passes in a search function returning
source dictionaries (see :data:`KnowledgeSearch`), handed the run that asks, so it searches
the folders of the agent asking (a delegate's own, not those of the agent that asked it). The
result is JSON: each passage with its number, file, page or heading, ``file://`` address and
text, which the answer cites.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from app.core.graph.context import RunContext
from app.core.tools import Runtime, Tool, ToolError, tool

__all__ = ["KNOWLEDGE_TOOL", "MAX_KNOWLEDGE_HITS", "KnowledgeSearch", "search_knowledge_tool"]

KNOWLEDGE_TOOL = "search_knowledge"
"""The tool's name, which the citations look for in a turn's tool results."""

MAX_KNOWLEDGE_HITS = 10
"""At most this many passages are returned."""

KnowledgeSearch = Callable[[str, int, RunContext | None], Awaitable[Sequence[dict[str, Any]]]]
"""``search(query, limit, asker)``: the best passages for the run ``asker`` (``None``: outside
a run), best first, each a dictionary with ``source`` (its number), ``title``, ``url``,
``text`` and ``page`` or ``heading``."""


def search_knowledge_tool(search: KnowledgeSearch) -> Tool[..., Any]:
    """Build ``search_knowledge`` over ``search``."""

    @tool(name=KNOWLEDGE_TOOL, timeout=20)
    async def search_knowledge(query: str, runtime: Runtime, limit: int = 5) -> dict[str, Any]:
        """Search the user's documents (their knowledge folders) for passages about a question.

        Cite what you use by its source number, like [1].

        Args:
            query: The question or the words to look for.
            limit: How many passages to return (1 to 10).
        """
        if not query.strip():
            raise ToolError("the query is empty; give the question or the words to look for")
        hits = await search(query, max(1, min(limit, MAX_KNOWLEDGE_HITS)), runtime.context)
        if not hits:
            return {
                "passages": [],
                "note": f"No passage in the knowledge folders matches {query!r}.",
            }
        return {"passages": list(hits)}

    return search_knowledge
