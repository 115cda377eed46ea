"""The keyring resolver: stores under service "parley", fails clearly, never writes plain text."""

from __future__ import annotations

import keyring
import pytest

from app.core.state import Message, ToolCallBlock
from app.core.tools import SecretError, SecretResolver, ToolNode, tool
from app.secrets import SERVICE, KeyringSecretResolver
from tests.secrets.conftest import MemoryKeyring


async def test_set_resolve_and_delete(memory_keyring: MemoryKeyring) -> None:
    secrets = KeyringSecretResolver()
    assert isinstance(secrets, SecretResolver)
    status = secrets.set("crm/api-token", "tok-1")
    assert status.available and not status.session_only
    assert memory_keyring.passwords == {(SERVICE, "crm/api-token"): "tok-1"}
    assert keyring.get_password("parley", "crm/api-token") == "tok-1"
    assert await secrets.resolve("crm/api-token") == "tok-1"
    assert secrets.is_set("crm/api-token")
    secrets.delete("crm/api-token")
    secrets.delete("crm/api-token")  # deleting twice is fine
    assert not secrets.is_set("crm/api-token")


async def test_missing_secret_names_the_ref_and_how_to_set_it(
    memory_keyring: MemoryKeyring,
) -> None:
    with pytest.raises(SecretError) as caught:
        await KeyringSecretResolver().resolve("crm/api-token")
    assert caught.value.ref == "crm/api-token"
    assert str(caught.value) == (
        "secret 'crm/api-token' is not set; store it with: parley key set crm/api-token "
        "(kept in the system keyring under service 'parley')"
    )


async def test_locked_keyring_says_so(memory_keyring: MemoryKeyring) -> None:
    secrets = KeyringSecretResolver()
    secrets.set("crm/api-token", "tok-1")
    memory_keyring.locked = True
    with pytest.raises(SecretError, match="the system keyring is locked; unlock it"):
        await secrets.resolve("crm/api-token")
    with pytest.raises(SecretError, match="cannot be saved: the system keyring is locked"):
        secrets.set("crm/other", "x")
    with pytest.raises(SecretError, match="cannot be deleted"):
        secrets.delete("crm/api-token")


async def test_no_keyring_is_an_error_without_opt_in(no_keyring: None) -> None:
    secrets = KeyringSecretResolver()
    with pytest.raises(SecretError, match="no system keyring is available"):
        await secrets.resolve("crm/api-token")
    with pytest.raises(SecretError, match="no system keyring is available"):
        secrets.set("crm/api-token", "tok-1")
    status = secrets.status()
    assert not status.available and "cannot be stored" in status.message


async def test_session_fallback_keeps_keys_in_memory_only_when_asked(no_keyring: None) -> None:
    secrets = KeyringSecretResolver(session_fallback=True)
    with pytest.raises(SecretError, match="for this session"):
        await secrets.resolve("crm/api-token")
    status = secrets.set("crm/api-token", "tok-1")
    assert status.session_only and "this session only" in status.message
    assert await secrets.resolve("crm/api-token") == "tok-1"
    assert KeyringSecretResolver().is_set("crm/api-token") is False
    secrets.delete("crm/api-token")
    assert not secrets.is_set("crm/api-token")


async def test_a_plain_text_backend_is_refused() -> None:
    class PlaintextKeyring(MemoryKeyring):
        """Looks like keyrings.alt's file backend."""

    PlaintextKeyring.__module__ = "keyrings.alt.file"
    secrets = KeyringSecretResolver(backend=PlaintextKeyring())
    with pytest.raises(SecretError, match="plain-text file"):
        secrets.set("crm/api-token", "tok-1")
    assert not secrets.status().available


def test_empty_values_are_refused(memory_keyring: MemoryKeyring) -> None:
    with pytest.raises(SecretError, match="cannot be empty"):
        KeyringSecretResolver().set("crm/api-token", "")


async def test_an_explicit_backend_and_service(memory_keyring: MemoryKeyring) -> None:
    own = MemoryKeyring()
    secrets = KeyringSecretResolver(backend=own, service="parley-test")
    secrets.set("a/b", "v")
    assert own.passwords == {("parley-test", "a/b"): "v"}
    assert memory_keyring.passwords == {}
    assert "MemoryKeyring" in secrets.status().backend


async def test_tool_node_uses_the_keyring_and_redacts(memory_keyring: MemoryKeyring) -> None:
    @tool(secret_refs={"token": "crm/api-token"})
    def whoami(token: str) -> str:
        """Leak the token."""
        return f"token is {token}"

    secrets = KeyringSecretResolver()
    secrets.set("crm/api-token", "tok-very-secret")
    node = ToolNode([whoami], secret_resolver=secrets)
    msg = Message(role="assistant", content=[ToolCallBlock(id="c1", name="whoami")])
    update = await node({"context": [msg]})
    block = update["context"][0].content[0]
    assert block.output == "token is [redacted secret crm/api-token]"
    memory_keyring.locked = True
    locked = await node({"context": [msg]})
    assert "the system keyring is locked" in locked["context"][0].content[0].output
