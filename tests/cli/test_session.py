"""Opening a session: store, model and keys together."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from app.cli.session import api_key_lookup, open_session
from app.core.state import ErrorBlock
from app.secrets.keyring_resolver import KeyringSecretResolver
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


async def test_a_terminal_turn_at_its_budget_ends_saying_so_instead_of_pausing(
    tmp_path: Path,
) -> None:
    import json

    from app.core.budget import BudgetLimits
    from app.services.settings import AppSettings, save_settings

    save_settings(tmp_path, AppSettings(default_limits=BudgetLimits(max_model_calls=1)))
    script = tmp_path / "script.json"
    calls = [{"tool_calls": [{"name": "current_time", "args": {}}]}, "never said"]
    script.write_text(json.dumps(calls))
    async with open_session(
        str(tmp_path), f"scripted:{script}", interactive=False, tools=True
    ) as session:
        thread = await session.chat.new_thread("what time is it?")
        outcome = await session.chat.send(thread.id, "what time is it?")
    assert outcome.state is not None and not outcome.waiting
    assert outcome.state.context[-1].text() == (
        "I stopped before finishing: the model-call budget (1) is used up."
    )
