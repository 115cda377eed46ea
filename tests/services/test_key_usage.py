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


def test_requests_at_once_hold_their_share_of_a_keys_day(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    keys = ServerKeys(tmp_path)
    keys.add("ci-bot", daily_tokens=100)
    keys.add("editor")
    usage = KeyUsage(tmp_path, keys, clock=lambda: _at(21, 30))
    assert usage.reserve("ci-bot", 150) is None  # alone, a request may use what is left
    held = usage.reserve("ci-bot", 10)
    assert held is not None
    assert held.retry_after == 2
    assert held.sentence == (
        "The key ci-bot has 100 of its 100 tokens for today left, and its requests still being "
        "answered hold 100 of them; this one may use 10. Try again when they end, or ask for a "
        "shorter reply (max_tokens)."
    )
    assert usage.reserve("editor", 10_000) is None  # no limit: it holds nothing back
    usage.settle("ci-bot", 150, 30)  # it used 30: the rest is given back
    assert usage.today() == {"ci-bot": 30}
    assert usage.reserve("ci-bot", 40) is None
    assert usage.reserve("ci-bot", 30) is None  # 30 + 40 + 30 fit in 100
    assert usage.reserve("ci-bot", 1) is not None
    usage.settle("ci-bot", 40, 40)
    usage.settle("ci-bot", 30, 30)
    used_up = usage.reserve("ci-bot", 1)
    assert used_up is not None
    assert used_up.sentence.startswith("The key ci-bot has used its 100 tokens for today (100)")
    assert used_up.retry_after == 2 * 3600 + 30 * 60 + 1


def test_an_agents_run_holds_all_its_key_has_left_beside_its_other_requests(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    keys = ServerKeys(tmp_path)
    keys.add("ci-bot", daily_tokens=100)
    keys.add("editor")
    usage = KeyUsage(tmp_path, keys, clock=lambda: _at(9, 0))
    usage.spend("ci-bot", 20)
    assert usage.reserve("ci-bot", 30) is None  # a plain request, still running
    assert usage.reserve("ci-bot", 10) is None  # the agent's request, as first estimated
    assert usage.hold_rest("ci-bot", 10) == 50  # 100 - 20 used - 30 held by the other
    refused = usage.reserve("ci-bot", 1)  # the run holds the rest: nothing else fits
    assert refused is not None and "hold 80 of them" in refused.sentence
    usage.settle("ci-bot", 50, 45)
    usage.settle("ci-bot", 30, 30)
    assert usage.today() == {"ci-bot": 95}
    assert usage.hold_rest("ci-bot", 0) == 5
    usage.settle("ci-bot", 5, 0)
    assert usage.hold_rest("editor", 10) is None  # no daily limit: nothing to hold
