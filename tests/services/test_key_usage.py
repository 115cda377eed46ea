"""Today's tokens of each server key: counted in a small file, started again at local
midnight, and a key over its daily limit refused with when it can ask again."""

from __future__ import annotations

import datetime
from pathlib import Path

from app.services.key_usage import FILE_NAME, KeyUsage
from app.services.server_keys import ServerKeys
from tests.services.memory_keyring import MemoryKeyring


def _at(hour: int, minute: int, day: int = 3) -> float:
    return datetime.datetime(2026, 12, day, hour, minute).timestamp()


def test_a_key_over_its_day_is_refused_until_local_midnight(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    keys = ServerKeys(tmp_path)
    keys.add("ci-bot", daily_tokens=100)
    keys.add("editor")
    now = [_at(21, 30)]
    usage = KeyUsage(tmp_path, keys, clock=lambda: now[0])
    usage.spend("ci-bot", 60)
    usage.spend("editor", 5000)
    assert usage.refusal("ci-bot") is None
    assert usage.refusal("editor") is None  # no daily limit
    usage.spend("ci-bot", 40)
    assert usage.today() == {"ci-bot": 100, "editor": 5000}
    assert usage.refusal("ci-bot") == (
        "The key ci-bot has used its 100 tokens for today (100); it can ask again after "
        "midnight, local time (in 2 h 30 min)."
    )
    now[0] = _at(23, 55)
    assert usage.refusal("ci-bot") is not None
    assert str(usage.refusal("ci-bot")).endswith("(in 5 min).")

    now[0] = _at(0, 1, day=4)  # a new day
    assert usage.refusal("ci-bot") is None
    assert usage.today() == {}
    usage.spend("ci-bot", 7)
    assert KeyUsage(tmp_path, keys, clock=lambda: now[0]).today() == {"ci-bot": 7}


def test_a_damaged_count_counts_nothing(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    keys = ServerKeys(tmp_path)
    keys.add("ci-bot", daily_tokens=10)
    (tmp_path / FILE_NAME).write_text('{"day": 7, "tokens": [1]', encoding="utf-8")
    usage = KeyUsage(tmp_path, keys)
    assert usage.today() == {}
    assert usage.refusal("ci-bot") is None
    usage.spend("ci-bot", 12)
    assert usage.refusal("ci-bot") is not None


def test_a_count_that_cannot_be_written_loses_no_answer(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    keys = ServerKeys(tmp_path)
    keys.add("ci-bot", daily_tokens=10)
    (tmp_path / FILE_NAME).mkdir()  # something else stands where the count goes
    usage = KeyUsage(tmp_path, keys)
    usage.spend("ci-bot", 12)  # logged, not raised: the reply was answered
    assert usage.today() == {}
    assert usage.refusal("ci-bot") is None
