"""Opening a session: store, model and keys together."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from app.core.errors import ModelAuthError
from app.services.session import open_session
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
        with pytest.raises(ModelAuthError, match="openai/api-key"):
            s.chat.model.astream([])

    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    async with open_session(str(tmp_path), "openai:gpt-4o-mini", interactive=False) as s:
        stream = s.chat.model.astream([])  # ready: no missing-key error, nothing sent yet
        await stream.aclose()  # type: ignore[attr-defined]

    assert not (tmp_path / "parley.db").read_bytes().count(b"sk-from-env")
