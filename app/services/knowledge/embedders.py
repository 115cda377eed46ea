"""Which embedding model makes the knowledge folders searchable by meaning, and running it.

The choice is a setting (``AppSettings.knowledge_embedding``): ``""`` (none: words alone),
``bundled`` (the bundled chat model standing in: weak at meaning, but always there) or
``gguf:PATH`` (a downloaded or added GGUF file). :func:`embed_missing` gives a folder's
passages without a vector one, in the indexing thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import UserError
from app.knowledge import Embedder
from app.services.models.catalogue import ModelLibrary
from app.store.knowledge import KnowledgeIndex
from app.text.sizes import rough_size

__all__ = [
    "BUNDLED_EMBEDDING",
    "BUNDLED_TITLE",
    "DOWNLOAD",
    "EMBED_BATCH",
    "DownloadProgress",
    "EmbeddingChoice",
    "embed_missing",
    "embedder_for",
    "embedding_choices",
    "spec_named",
]

log = logging.getLogger(__name__)

BUNDLED_EMBEDDING = "bundled"
DOWNLOAD = "download:"
"""A choice that downloads the catalogue's embedding model first (``download:NAME``)."""
BUNDLED_TITLE = "SmolLM2 135M (bundled)"
DownloadProgress = Callable[[int, int | None], None]
"""Told the bytes downloaded so far and the file's size (``None`` until it is known)."""
EMBED_BATCH = 4
"""Passages taken from the index at once (each given the model alone, so Cancel and closing
wait for one passage at most: a few seconds with the bundled stand-in on a slow machine)."""


@dataclass(frozen=True, slots=True)
class EmbeddingChoice:
    """One choice of embedding model: its setting value and how the window names it."""

    spec: str
    title: str


def embedder_for(spec: str) -> Embedder | None:
    """The embedder a setting names; ``None`` for none (or a bundled model not installed)."""
    from app.providers.bundled import bundled_model_path
    from app.providers.llama_embed import LlamaEmbedder

    if spec == BUNDLED_EMBEDDING:
        path = bundled_model_path()
        return LlamaEmbedder(path, BUNDLED_TITLE) if path is not None else None
    if spec.startswith("gguf:") and spec[5:].strip():
        return LlamaEmbedder(Path(spec[5:]).expanduser())
    return None


def embedding_choices(library: ModelLibrary, added: Sequence[str] = ()) -> list[EmbeddingChoice]:
    """None, the bundled stand-in, the catalogue's embedding models that are downloaded and
    the GGUF files added (``added``: their paths; any may be an embedding model), then the
    catalogue's embedding models to download (``download:NAME``)."""
    out = [
        EmbeddingChoice("", "None: words only (BM25)"),
        EmbeddingChoice(BUNDLED_EMBEDDING, f"{BUNDLED_TITLE}: a weak stand-in"),
    ]
    seen = set()
    try:
        rows = library.listing()
    except Exception:  # a damaged model list: the models page says so
        rows = []
    for row in rows:
        model = row.installed
        if model is None or not Path(model.path).is_file():
            continue
        if row.entry is not None and row.entry.kind != "embedding":
            continue
        title = row.entry.title if row.entry is not None else f"{model.name} (added file)"
        out.append(EmbeddingChoice(model.spec, title))
        seen.add(model.path)
    for path in added:
        if path not in seen and Path(path).is_file():
            out.append(EmbeddingChoice(f"gguf:{path}", f"{Path(path).name} (added file)"))
    have = {row.name for row in rows if row.installed and Path(row.installed.path).is_file()}
    for entry in library.catalogue:
        if entry.kind == "embedding" and entry.name not in have:
            size = rough_size(entry.size_bytes)
            out.append(
                EmbeddingChoice(f"{DOWNLOAD}{entry.name}", f"{entry.title}: download, {size}")
            )
    return out


def spec_named(choice: str, library: ModelLibrary) -> str:
    """The setting for what a person typed: ``none``, ``bundled``, an installed model's name
    or a GGUF file's path. :class:`UserError` names the choices otherwise."""
    wanted = choice.strip()
    if wanted.lower() in ("none", "off", ""):
        return ""
    if wanted.lower() == BUNDLED_EMBEDDING:
        return BUNDLED_EMBEDDING
    try:
        installed = {m.name: m for m in library.installed()}
    except UserError:
        installed = {}
    if wanted in installed:
        return installed[wanted].spec
    path = Path(wanted).expanduser()
    if path.is_file():
        with path.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise UserError(f"{path} is not a GGUF model file; give a .gguf file")
        return f"gguf:{path.resolve()}"
    names = ", ".join(["none", BUNDLED_EMBEDDING, *sorted(installed)])
    raise UserError(
        f"there is no embedding model {wanted!r}; choose one of {names}, or give a GGUF file"
    )


def embed_missing(
    index: KnowledgeIndex,
    embedder: Embedder,
    folder_id: int,
    rel: str | None,
    cancel: threading.Event,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Give the passages of a folder (or of its file ``rel``) that have no vector one, a few at a
    time until none is left or ``cancel`` is set; how many were saved. Blocking.
    ``progress`` is told how many are saved so far, before the first and after each few."""
    done = 0
    if progress is not None:
        progress(0)
    while not cancel.is_set():
        todo = index.missing_vectors(folder_id, rel, EMBED_BATCH)
        if not todo:
            break
        made: list[tuple[int, list[float]]] = []
        for pid, text in todo:  # one at a time, so Cancel and closing wait for one at most
            if cancel.is_set():
                break
            made.append((pid, embedder.embed([text])[0]))
        if not made:
            break
        saved = index.save_vectors(embedder.name, made)
        if saved == 0:  # another model was chosen meanwhile: its own sync makes its vectors
            break
        done += saved
        if progress is not None:
            progress(done)
    return done
