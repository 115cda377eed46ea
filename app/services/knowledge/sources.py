"""A passage found in the index, as a numbered source: what the model reads and the
citation (``AnnotationRef``) the answer carries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.core.state.message_block import AnnotationRef
from app.store.knowledge import PassageHit

__all__ = ["SNIPPET_CHARS", "annotation_of", "source_of", "source_title", "source_url"]

SNIPPET_CHARS = 400
"""How much of a passage a citation keeps, for hovering over it."""

_TEXT_CHARS = 1500


def source_url(hit: PassageHit) -> str:
    """The passage's file as a ``file://`` address, with ``#page=N`` for a PDF's page."""
    url = Path(hit.path).as_uri()
    return f"{url}#page={hit.page}" if hit.page is not None else url


def source_title(hit: PassageHit) -> str:
    """The file's path inside its folder, and the page or heading: ``guide.pdf, page 3``."""
    if hit.page is not None:
        return f"{hit.rel}, page {hit.page}"
    if hit.heading:
        return f"{hit.rel}, {hit.heading}"
    return hit.rel


def source_of(hit: PassageHit, number: int) -> dict[str, Any]:
    """The passage as the model is given it (JSON): its number, title, address and text."""
    out: dict[str, Any] = {
        "source": number,
        "title": source_title(hit),
        "url": source_url(hit),
        "file": hit.rel,
        "text": hit.text[:_TEXT_CHARS],
    }
    if hit.page is not None:
        out["page"] = hit.page
    if hit.heading:
        out["heading"] = hit.heading
    return out


def annotation_of(source: dict[str, Any]) -> AnnotationRef | None:
    """The citation for a source dictionary (from :func:`source_of`, possibly read back from
    a saved tool result); ``None`` when it is not one."""
    url, title, text = source.get("url"), source.get("title"), source.get("text")
    if not isinstance(url, str) or not url.startswith("file://"):
        return None
    snippet = " ".join(text.split())[:SNIPPET_CHARS] if isinstance(text, str) else None
    return AnnotationRef(url=url, title=title if isinstance(title, str) else None, snippet=snippet)
