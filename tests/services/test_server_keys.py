"""The keys of ``parley serve``: a key is shown once and never kept; only its digest is in
the keyring, and the list file holds names and ids, no secret."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.tools.secrets import SecretError
from app.services.server_keys import FILE_NAME, ServerKeys
from tests.services.memory_keyring import MemoryKeyring


def test_a_key_is_checked_by_its_digest_and_stops_working_once_removed(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    keys = ServerKeys(tmp_path)
    key = keys.add("ci-bot")
    other = keys.add("editor")
    assert key != other
    assert [k.name for k in keys.listed()] == ["ci-bot", "editor"]
    assert (keys.check(key), keys.check(other), keys.check(key + "x")) == ("ci-bot", "editor", None)

    kept = set(memory_keyring.items.values())
    assert kept == {hashlib.sha256(k.encode()).hexdigest() for k in (key, other)}
    listed = (tmp_path / FILE_NAME).read_text(encoding="utf-8")
    assert key not in listed
    assert "ci-bot" in listed

    assert keys.remove("ci-bot") is True
    assert keys.check(key) is None
    assert keys.check(other) == "editor"
    assert len(memory_keyring.items) == 1
    assert keys.remove("ci-bot") is False


def test_a_removed_key_made_again_under_its_name_is_a_new_key(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    keys = ServerKeys(tmp_path)
    first = keys.add("ci-bot")
    assert keys.check(first) == "ci-bot"  # its digest is now read and kept in memory
    keys.remove("ci-bot")
    second = keys.add("ci-bot")
    assert (keys.check(first), keys.check(second)) == (None, "ci-bot")


def test_names_are_plain_and_not_taken_twice(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    keys = ServerKeys(tmp_path)
    keys.add("ci-bot")
    with pytest.raises(UserError, match="exists already; remove it first"):
        keys.add("ci-bot")
    with pytest.raises(UserError, match="cannot name a key"):
        keys.add("../evil")
    assert [k.name for k in keys.listed()] == ["ci-bot"]


def test_without_a_keyring_no_key_is_made(tmp_path: Path, no_keyring: object) -> None:
    keys = ServerKeys(tmp_path)
    with pytest.raises(
        SecretError, match="the key ci-bot was not made: no system keyring is available"
    ):
        keys.add("ci-bot")
    assert keys.listed() == []
    assert keys.check("anything") is None
