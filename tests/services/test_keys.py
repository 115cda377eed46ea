"""API keys in the system keyring without a workspace (``app.services.keys``): a real keyring
backend that keeps secrets in memory, or no keyring at all."""

from __future__ import annotations

import pytest
from keyring.backend import KeyringBackend

from app.core.tools.secrets import SecretError, resolve_secret
from app.services.keys import delete_key, keyring_status, open_keyring, store_key
from tests.services.memory_keyring import MemoryKeyring


def test_a_key_is_kept_without_the_line_break_around_it_and_deleted(
    memory_keyring: MemoryKeyring,
) -> None:
    status = store_key("openai/api-key", "  sk-test-1234\n")
    assert memory_keyring.items == {("parley", "openai/api-key"): "sk-test-1234"}
    assert status.available and not status.session_only
    assert status.backend == f"{MemoryKeyring.__module__}.MemoryKeyring"
    delete_key("openai/api-key")
    delete_key("openai/api-key")  # a key that is not there is fine
    assert memory_keyring.items == {}


async def test_the_opened_keyring_reads_what_was_kept(memory_keyring: MemoryKeyring) -> None:
    store_key("mcp/notes/TOKEN", "t0ken")
    source = await open_keyring()
    assert await resolve_secret(source, "mcp/notes/TOKEN") == "t0ken"


def test_without_a_keyring_nothing_is_kept_and_the_status_says_why(
    no_keyring: KeyringBackend,
) -> None:
    status = keyring_status()
    assert not status.available
    assert status.message.startswith("Keys cannot be stored: no system keyring is available")
    with pytest.raises(SecretError, match="no system keyring is available"):
        store_key("openai/api-key", "sk-test-1234")


def test_an_empty_key_is_refused(memory_keyring: MemoryKeyring) -> None:
    with pytest.raises(SecretError, match="cannot be empty"):
        store_key("openai/api-key", " \n")
    assert memory_keyring.items == {}
