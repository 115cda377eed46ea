"""``POST /v1/embeddings`` in OpenAI's shape, where an embedding model is chosen: the same
model the knowledge folders (and memories) are searched by meaning with, never a second one.

The request names the model as :data:`EMBEDDING_ID` (or the setting, e.g. ``bundled``, or
the model's name) and gives ``input`` as one text or a list of texts (token ids are refused:
Parley's models do not share one tokenizer); ``encoding_format`` is ``float`` or ``base64``
(little-endian float32, what OpenAI's SDK asks for by default). Usage is the texts' tokens
as estimated (about 4 characters a token), counted against the key's daily limit.
"""

from __future__ import annotations

import asyncio
import base64
import json
from array import array
from collections.abc import Callable
from typing import Any

from app.core.state.message import TokenUsages
from app.knowledge import Embedder
from app.server.errors import ApiError

__all__ = [
    "EMBEDDING_ID",
    "MAX_INPUTS",
    "MAX_INPUT_CHARS",
    "EmbeddingSource",
    "embeddings_reply",
    "read_embedding_request",
]

EMBEDDING_ID = "parley-embedding"
"""The id under which the chosen embedding model is served."""

MAX_INPUTS = 256
"""The most texts one request embeds."""

MAX_INPUT_CHARS = 32_000
"""The longest text embedded (a longer one is refused, not cut without saying)."""

EmbeddingSource = Callable[[], "tuple[Embedder, str] | None"]
"""The embedding model chosen and its setting, or ``None`` when none is."""

_CHARS_PER_TOKEN = 4


def _bad(message: str, code: str, param: str | None = None) -> ApiError:
    return ApiError(400, message, "invalid_request_error", code, param)


def read_embedding_request(body: bytes) -> tuple[str, list[str], str]:
    """The model named, the texts and the encoding asked for; an :class:`ApiError` (400)
    saying in one sentence what is wrong otherwise."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise _bad("The body is not JSON; send a JSON object.", "invalid_json") from None
    if not isinstance(data, dict):
        raise _bad("The body is not a JSON object; send one.", "invalid_json")
    model = data.get("model")
    if not isinstance(model, str) or not model:
        raise _bad(f"Name the model: {EMBEDDING_ID}.", "missing_model", "model")
    given = data.get("input")
    texts = [given] if isinstance(given, str) else given
    if not isinstance(texts, list) or not texts:
        raise _bad("input must be a text or a list of texts.", "invalid_input", "input")
    if not all(isinstance(t, str) for t in texts):
        raise _bad(
            "input holds token ids or other values; send texts (Parley's models do not share "
            "one tokenizer).",
            "invalid_input",
            "input",
        )
    if len(texts) > MAX_INPUTS:
        raise _bad(
            f"input holds {len(texts):,} texts; send at most {MAX_INPUTS} a request.",
            "too_many_inputs",
            "input",
        )
    for n, text in enumerate(texts):
        if len(text) > MAX_INPUT_CHARS:
            raise _bad(
                f"Text {n} is {len(text):,} characters long; send at most "
                f"{MAX_INPUT_CHARS:,} a text.",
                "input_too_long",
                "input",
            )
    encoding = data.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        raise _bad(
            "encoding_format must be float or base64.", "invalid_encoding", "encoding_format"
        )
    return model, texts, encoding


def _encoded(vector: list[float], encoding: str) -> Any:
    if encoding == "base64":
        packed = array("f", vector)
        if packed.itemsize != 4:  # pragma: no cover - every platform Parley runs on
            raise ValueError("float32 is not 4 bytes here")
        return base64.b64encode(packed.tobytes()).decode("ascii")
    return vector


async def embeddings_reply(
    source: EmbeddingSource | None,
    model: str,
    texts: list[str],
    encoding: str,
    used: Callable[[TokenUsages], None],
) -> dict[str, Any]:
    """OpenAI's ``list`` of ``embedding`` objects for ``texts``, by the model chosen; an
    :class:`ApiError` when none is chosen or ``model`` names another."""
    chosen = source() if source is not None else None
    if chosen is None:
        raise _bad(
            "No embedding model is chosen, so Parley makes no embeddings; choose one in "
            "Settings > Knowledge or with parley knowledge meaning.",
            "no_embedding_model",
            "model",
        )
    embedder, spec = chosen
    if model not in (EMBEDDING_ID, spec, embedder.name):
        raise _bad(
            f"There is no embedding model {model[:200]!r} here; name {EMBEDDING_ID}.",
            "model_not_found",
            "model",
        )
    try:
        vectors = await asyncio.to_thread(embedder.embed, texts)
    except Exception as exc:  # a missing or broken model file: say so, stay up
        raise ApiError(
            500,
            f"The embedding model {embedder.name} failed: {exc}",
            "server_error",
            "embedding_failed",
        ) from None
    tokens = sum(-(-len(t) // _CHARS_PER_TOKEN) for t in texts)
    used(TokenUsages(prompt_tokens=tokens, total_tokens=tokens))
    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": n, "embedding": _encoded(v, encoding)}
            for n, v in enumerate(vectors)
        ],
        "model": EMBEDDING_ID,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
