"""API keys and other secrets in the system keyring, for what runs without a workspace open
(``parley key``, ``parley mcp list``, a terminal chat before its workspace opens): where keys
are kept, keeping and deleting one, and the keyring as the secret source a workspace and the
MCP servers are given.

Nothing here keeps a key anywhere but the system keyring: with no usable keyring, keeping one
fails with a sentence that says so. The window's keys page goes through
:class:`~app.services.settings.preferences.Preferences`, which may keep a key for the session.
"""

from __future__ import annotations

import asyncio

from app.core.tools.secrets import SecretSource
from app.secrets.keyring_resolver import KeyringSecretResolver, KeyringStatus

__all__ = ["KeyringStatus", "delete_key", "keyring_status", "open_keyring", "store_key"]


def keyring_status() -> KeyringStatus:
    """Whether keys can be kept, which keyring backend keeps them, and a sentence for the
    person (blocking: the keyring may talk over D-Bus)."""
    return KeyringSecretResolver().status()


def store_key(ref: str, value: str) -> KeyringStatus:
    """Keep ``value`` (without the spaces and line break around it) as the key ``ref`` in the
    system keyring and say where it went; :class:`~app.core.tools.secrets.SecretError` when
    it is empty or no keyring can keep it (blocking)."""
    return KeyringSecretResolver().set(ref, value.strip())


def delete_key(ref: str) -> None:
    """Remove the key ``ref`` from the system keyring; a key that is not there is fine
    (blocking)."""
    KeyringSecretResolver().delete(ref)


async def open_keyring() -> SecretSource:
    """The system keyring as the source of ``{keyring:REF}`` values and API keys, opened off
    the event loop."""
    return await asyncio.to_thread(KeyringSecretResolver)
