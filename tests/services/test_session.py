"""Opening a session: store, model and keys together."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from app.core.state import ErrorBlock
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.services.session import api_key_lookup, open_session
from tests.services.memory_keyring import MemoryKeyring


@pytest.fixture
def empty_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


async def test_a_key_missing_from_the_keyring_is_read_from_the_environment(
    tmp_path: Path, empty_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    async with open_session(str(tmp_path), "openai:gpt-4o-mini", interactive=False) as s:
        thread = await s.chat.new_thread("hi")
        outcome = await s.chat.send(thread.id, "hi")  # no key anywhere: nothing is sent
        assert outcome.state is not None
        errors = [b for b in outcome.state.context[-1].content if isinstance(b, ErrorBlock)]
        assert [b.code for b in errors] == ["auth:openai/api-key"]

    lookup = api_key_lookup(KeyringSecretResolver())
    assert lookup("openai/api-key") is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert lookup("openai/api-key") == "sk-from-env"
    empty_keyring.set_password("parley", "openai/api-key", "sk-from-keyring")
    assert lookup("openai/api-key") == "sk-from-keyring"  # the keyring comes first

    assert not (tmp_path / "parley.db").read_bytes().count(b"sk-from-env")
