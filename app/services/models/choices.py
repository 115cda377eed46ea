"""What the model picker offers: the bundled model, added GGUF files, a running Ollama's
models and configured remote endpoints, each saying whether it can be used now."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from app.core.netgate import GATE, is_local_host, purpose
from app.services.settings import AppSettings

__all__ = ["ModelChoice", "list_model_choices"]


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """One entry of the model picker; ``detail`` says why it is not ``available``."""

    spec: str
    label: str
    group: str
    available: bool = True
    detail: str = ""


def _bundled() -> ModelChoice:
    from app.providers.bundled import bundled_model_path

    path = bundled_model_path()
    if path is None:
        return ModelChoice(
            "local", "SmolLM2 135M (bundled)", "On this computer", False, "not installed"
        )
    return ModelChoice("local", "SmolLM2 135M (bundled)", "On this computer")


def _gguf(path_text: str) -> ModelChoice:
    path = Path(path_text).expanduser()
    ok = path.is_file()
    return ModelChoice(
        f"gguf:{path}", path.stem, "On this computer", ok, "" if ok else "file not found"
    )


def _endpoint(spec: str, settings: AppSettings) -> ModelChoice:
    provider, _, rest = spec.partition(":")
    name, _, url = rest.partition("@")
    group = {"openai": "OpenAI-compatible", "anthropic": "Anthropic"}.get(provider, provider)
    label = f"{name} ({url})" if url else name
    where = url or settings.provider_urls().get(provider, "")
    if GATE.offline and not is_local_host(urlsplit(where).hostname or ""):
        return ModelChoice(spec, label, group, False, "offline: it is on another computer")
    return ModelChoice(spec, label, group)


async def list_model_choices(
    settings: AppSettings,
    list_ollama: Callable[[str], Any] | None,
    *,
    wait_s: float = 1.5,
) -> list[ModelChoice]:
    """Every model the picker can offer; an unreachable Ollama is one unavailable entry."""
    choices = [await asyncio.to_thread(_bundled)]
    choices += [_gguf(p) for p in settings.gguf_files]
    if list_ollama is not None:
        url = settings.ollama_url
        try:
            with purpose("listing the models of Ollama"):
                models = await asyncio.wait_for(list_ollama(url), wait_s)
        except Exception as exc:  # not running, refused, slow: the picker says so
            reason = str(exc).split(". ")[0] if str(exc) else "not reachable"
            choices.append(
                ModelChoice("ollama:", "Ollama", "Ollama", False, f"not running at {url}")
                if "connect" in reason.lower() or isinstance(exc, TimeoutError)
                else ModelChoice("ollama:", "Ollama", "Ollama", False, reason)
            )
        else:
            for entry in models:
                name = str(entry.get("name", ""))
                if name:
                    choices.append(ModelChoice(f"ollama:{name}@{url}", name, "Ollama"))
    choices += [_endpoint(s, settings) for s in settings.endpoints]
    return choices
