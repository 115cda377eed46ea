"""``LlamaEmbedder``: a GGUF model run by llama.cpp in embedding mode, for search by meaning.

Pooling gives one vector per passage, not one per token: the pooling the model's GGUF
declares (an embedding model such as BGE declares CLS), else mean pooling (a chat model
standing in); each vector is scaled to length 1.
The model (and llama.cpp itself) is loaded on first use, in the calling (worker) thread, and
used by one thread at a time: indexing and a query's vector take turns.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core.errors import UserError
from app.knowledge import normalise

__all__ = ["EMBED_CONTEXT", "LlamaEmbedder", "declared_pooling"]

EMBED_CONTEXT = 512
"""Tokens of a passage the model reads (a longer passage is cut: passages are ~900 chars)."""


_POOLINGS = {1, 2, 3}
"""Mean, CLS and last-token pooling: what a GGUF may declare and llama.cpp can do."""


def declared_pooling(metadata: dict[str, str]) -> int | None:
    """The pooling an embedding model's GGUF declares (``ARCH.pooling_type``), if any; a chat
    model declares none, and then mean pooling is used."""
    for key, value in metadata.items():
        if key.endswith(".pooling_type"):
            try:
                pooling = int(value)
            except ValueError:
                return None
            return pooling if pooling in _POOLINGS else None
    return None


class LlamaEmbedder:
    """Vectors from the GGUF file at ``path``, named ``name`` (an
    :class:`~app.knowledge.Embedder`)."""

    def __init__(self, path: str | Path, name: str | None = None) -> None:
        self.path = Path(path)
        self._name = name or self.path.name
        self._lock = threading.Lock()
        self._model: Any = None

    @property
    def name(self) -> str:
        """The model's name (its file's, unless given another)."""
        return self._name

    def _load(self) -> Any:
        if self._model is None:
            # llama.cpp (and numpy) are imported here, in the worker thread, on first use:
            # choosing a model costs the window's start nothing
            import llama_cpp

            from app.providers._llama_load import load_llama

            if not self.path.is_file():
                raise UserError(
                    f"the embedding model {self.path} is missing; choose another in "
                    "Settings > Knowledge"
                )

            def load(pooling: int) -> Any:
                # one thread: llama.cpp's OpenMP gives every thread that runs a model a team
                # of its own, and once the teams together outnumber the cores its threads stop
                # spinning between steps, so the chat model (on its own thread, with every
                # core) would decode at a third of its speed for the rest of the session
                return load_llama(
                    self.path,
                    n_threads=1,
                    n_threads_batch=1,
                    n_ctx=EMBED_CONTEXT,
                    n_batch=EMBED_CONTEXT,
                    n_ubatch=EMBED_CONTEXT,
                    embedding=True,
                    pooling_type=pooling,
                )

            try:
                model = load(llama_cpp.LLAMA_POOLING_TYPE_MEAN)
                own = declared_pooling(model.metadata)
                if own is not None and own != llama_cpp.LLAMA_POOLING_TYPE_MEAN:
                    model.close()  # an embedding model trained with its own (CLS for BGE)
                    model = load(own)
                self._model = model
            except (ValueError, RuntimeError, OSError) as exc:
                raise UserError(
                    f"the embedding model {self.path.name} could not be loaded ({exc}); "
                    "choose another in Settings > Knowledge"
                ) from None
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector per text (blocking; run it in a worker thread)."""
        if not texts:
            return []
        with self._lock:
            model = self._load()
            out = []
            for text in texts:  # one at a time: llama.cpp cuts each to the context alone
                raw = model.embed(text if text.strip() else " ", truncate=True)
                out.append(normalise([float(x) for x in raw]))
            return out

    def close(self) -> None:
        """Free the model (it is loaded again if used after)."""
        with self._lock:
            model, self._model = self._model, None
        if model is not None:
            model.close()
