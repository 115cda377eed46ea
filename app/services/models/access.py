"""What models need from this machine: API keys (the keyring first, then the provider's usual
environment variable), the stored bytes of attached media, and (:class:`ModelAccess`) how a
spec is built into a model, the secrets tools read and the local Ollama server's models. Light
to import: the window's start-up goes through here."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.models.protocol import ChatModel
from app.core.state import MediaRef
from app.core.tools.secrets import SecretError, SecretSource

if TYPE_CHECKING:
    from app.secrets.keyring_resolver import KeyringSecretResolver
    from app.services.models.registry import ModelRegistry
    from app.store import Store

__all__ = [
    "ENV_KEYS",
    "ModelAccess",
    "ModelResolver",
    "api_key_lookup",
    "keyring_models",
    "media_loader",
]

ENV_KEYS = {"openai/api-key": "OPENAI_API_KEY", "anthropic/api-key": "ANTHROPIC_API_KEY"}
"""Environment variables read for an API key the keyring does not have."""

ModelResolver = Callable[[str], ChatModel]
"""Builds the model a spec names (blocking: it runs on a worker thread)."""


@dataclass(frozen=True, slots=True)
class ModelAccess:
    """What the model service reaches on this machine: ``resolve`` builds the model a spec
    names (with the keyring's API keys, see :func:`keyring_models`), ``secrets`` is where
    tools' ``{secret:...}`` arguments are looked up (``None``: nowhere), and ``list_ollama``
    lists the models of the Ollama server at a URL for the picker (``None``: the default)."""

    resolve: ModelResolver
    secrets: SecretSource | None = None
    list_ollama: Callable[[str], Any] | None = None


def api_key_lookup(secrets: KeyringSecretResolver) -> Callable[[str], str | None]:
    """Look an API key up in the keyring, then in the provider's usual environment variable
    (never stored)."""

    def api_key(ref: str) -> str | None:
        try:
            return secrets.get(ref)
        except SecretError:
            pass
        name = ENV_KEYS.get(ref)
        return os.environ.get(name) or None if name else None

    return api_key


def media_loader(store: Store) -> Callable[[MediaRef], bytes]:
    """Reads attachments' bytes from ``store`` for the providers that send them (pass it as
    ``media_loader`` when building models: vision models get the stored image)."""

    def load(ref: MediaRef) -> bytes:
        return store.read_media(ref.file_id or ref.sha256 or "")

    return load


async def keyring_models(
    store: Store,
    secret_resolver: SecretSource | None,
    *,
    provider_urls: Callable[[], Mapping[str, str]],
    build: bool,
    data_dir: Path | None = None,
) -> tuple[SecretSource, ModelRegistry | None]:
    """The secrets to use (``secret_resolver``, else the keyring, first used off the loop) and,
    when ``build``, a registry that builds models with the keyring's API keys, the store's
    media (vision models get the stored bytes of attached images) and ``provider_urls``; local
    models keep their measured decode thread count in ``data_dir``."""
    from app.providers.llama_threads import FILE_NAME
    from app.secrets.keyring_resolver import KeyringSecretResolver
    from app.services.models.registry import ModelRegistry

    keyring = (
        secret_resolver
        if isinstance(secret_resolver, KeyringSecretResolver)
        else KeyringSecretResolver()  # touches no keyring until a secret is read
    )
    registry = None
    if build:
        registry = ModelRegistry(
            api_key_lookup(keyring),
            media_loader=media_loader(store),
            provider_urls=provider_urls,
            local_threads_file=data_dir / FILE_NAME if data_dir is not None else None,
        )
    return secret_resolver or keyring, registry
