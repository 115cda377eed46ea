"""The tokens each server key has used today, against its daily limit.

``parley serve`` counts the tokens of every reply (in and out) for the key that asked, in
``server_usage.json`` in the data directory (the day and each key's tokens, no content);
the count starts again at local midnight. A key whose day's tokens are used is refused
until then. Requests of one key that run at the same time each hold a share of its day's
tokens while they run (what they may use: their prompt and the reply they allow), so together
they cannot pass its limit; what each used is counted when it ends. Every method is blocking
(it reads or writes that small file).
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.services.server_keys import ServerKeys
from app.store.paths import resolve_data_dir

__all__ = ["FILE_NAME", "HELD_RETRY", "KeyRefusal", "KeyUsage", "until_midnight"]

log = logging.getLogger(__name__)

FILE_NAME = "server_usage.json"
"""The file in the data directory that counts today's tokens by key."""


HELD_RETRY = 2
"""The seconds a key refused because its requests still running hold the rest of its day's
tokens is told to wait."""


@dataclass(frozen=True, slots=True)
class KeyRefusal:
    """Why a key may not ask now (one sentence) and in how many seconds it may."""

    sentence: str
    retry_after: int


def _day(at: float) -> str:
    return datetime.date.fromtimestamp(at).isoformat()


def until_midnight(at: float) -> float:
    """Seconds from ``at`` to the next local midnight."""
    today = datetime.date.fromtimestamp(at)
    midnight = datetime.datetime.combine(today + datetime.timedelta(days=1), datetime.time())
    return max(0.0, midnight.timestamp() - at)


def _in(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


class KeyUsage:
    """Today's tokens of ``keys`` (the server's keys in ``data_dir``), and the refusal of a
    key that has used its day's tokens."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None,
        keys: ServerKeys,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._path = resolve_data_dir(data_dir) / FILE_NAME
        self._keys = keys
        self._clock = clock
        self._lock = threading.Lock()
        self._held: dict[str, int] = {}

    def _read(self, day: str) -> dict[str, int]:
        """Each key's tokens on ``day`` (none when the file holds another day)."""
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("day") != day:
            return {}
        tokens = data.get("tokens")
        if not isinstance(tokens, dict):
            return {}
        return {
            k: v
            for k, v in tokens.items()
            if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
        }

    def _write(self, day: str, tokens: dict[str, int]) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps({"day": day, "tokens": tokens}, indent=2).encode()
        fd, tmp = tempfile.mkstemp(prefix=".server-usage-", dir=self._path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self._path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def today(self) -> dict[str, int]:
        """Each key's tokens today, by its name."""
        return self._read(_day(self._clock()))

    def spend(self, name: str, tokens: int) -> None:
        """Count ``tokens`` more for the key ``name`` today (a count that cannot be written
        is logged: the reply it counts was answered all the same)."""
        with self._lock:
            self._count(name, tokens)

    def _count(self, name: str, tokens: int) -> None:
        if tokens <= 0:
            return
        day = _day(self._clock())
        counted = self._read(day)
        counted[name] = counted.get(name, 0) + tokens
        try:
            self._write(day, counted)
        except OSError as exc:
            log.warning("the tokens of key %s could not be counted: %s", name, exc)

    def _limit(self, name: str) -> int | None:
        return next((k.daily_tokens for k in self._keys.listed() if k.name == name), None)

    def refusal(self, name: str) -> str | None:
        """The sentence refusing the key ``name`` when it has used its day's tokens, with
        when that ends; ``None`` while it may ask (or has no daily limit)."""
        limit = self._limit(name)
        if limit is None:
            return None
        now = self._clock()
        return self._used_up(name, limit, self._read(_day(now)).get(name, 0), now)

    def _used_up(self, name: str, limit: int, used: int, now: float) -> str | None:
        if used < limit:
            return None
        return (
            f"The key {name} has used its {limit:,} tokens for today ({used:,}); it can ask "
            f"again after midnight, local time (in {_in(until_midnight(now))})."
        )

    def reserve(self, name: str, tokens: int) -> KeyRefusal | None:
        """Hold ``tokens`` of the key ``name``'s day for a request about to run, or say why
        it may not run: its day's tokens are used, or requests of it still running hold
        what is left. A request running alone may use what is left of the day (its tokens
        are counted when it ends); ones running at once must fit in it together. Each
        reservation is given back with :meth:`settle`."""
        tokens = max(0, tokens)
        with self._lock:
            limit = self._limit(name)
            held = self._held.get(name, 0)
            if limit is not None:
                now = self._clock()
                used = self._read(_day(now)).get(name, 0)
                sentence = self._used_up(name, limit, used, now)
                if sentence is not None:
                    return KeyRefusal(sentence, max(1, int(until_midnight(now)) + 1))
                if held and used + held + tokens > limit:
                    left = limit - used
                    return KeyRefusal(
                        f"The key {name} has {left:,} of its {limit:,} tokens for today left, "
                        f"and its requests still being answered hold {min(held, left):,} of "
                        f"them; this one may use {tokens:,}. Try again when they end, or ask "
                        "for a shorter reply (max_tokens).",
                        HELD_RETRY,
                    )
            self._held[name] = held + tokens
        return None

    def hold_rest(self, name: str, reserved: int) -> int | None:
        """For a request of the key ``name`` already holding ``reserved`` tokens whose use is
        not known ahead (an agent's run): hold all the key has left of its day that its other
        requests do not hold, and return that (``None``: the key has no daily limit). The
        request is then given back what it holds, the returned count when more than
        ``reserved``, with :meth:`settle`."""
        with self._lock:
            limit = self._limit(name)
            if limit is None:
                return None
            held = self._held.get(name, 0)
            used = self._read(_day(self._clock())).get(name, 0)
            room = max(0, limit - used - max(0, held - reserved))
            if room > reserved:
                self._held[name] = held + room - reserved
            return room

    def settle(self, name: str, reserved: int, spent: int) -> None:
        """Give back the ``reserved`` tokens a request of the key ``name`` held, and count
        the ``spent`` tokens it used."""
        with self._lock:
            left = self._held.get(name, 0) - max(0, reserved)
            if left > 0:
                self._held[name] = left
            else:
                self._held.pop(name, None)
            self._count(name, spent)
