"""The tokens each server key has used today, against its daily limit.

``parley serve`` counts the tokens of every reply (in and out) for the key that asked, in
``server_usage.json`` in the data directory (the day and each key's tokens, no content);
the count starts again at local midnight. A key whose day's tokens are used is refused
until then. Every method is blocking (it reads or writes that small file).
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
from pathlib import Path

from app.services.server_keys import ServerKeys
from app.store.paths import resolve_data_dir

__all__ = ["FILE_NAME", "KeyUsage", "until_midnight"]

log = logging.getLogger(__name__)

FILE_NAME = "server_usage.json"
"""The file in the data directory that counts today's tokens by key."""


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
        if tokens <= 0:
            return
        with self._lock:
            day = _day(self._clock())
            counted = self._read(day)
            counted[name] = counted.get(name, 0) + tokens
            try:
                self._write(day, counted)
            except OSError as exc:
                log.warning("the tokens of key %s could not be counted: %s", name, exc)

    def refusal(self, name: str) -> str | None:
        """The sentence refusing the key ``name`` when it has used its day's tokens, with
        when that ends; ``None`` while it may ask (or has no daily limit)."""
        limit = next((k.daily_tokens for k in self._keys.listed() if k.name == name), None)
        if limit is None:
            return None
        now = self._clock()
        used = self._read(_day(now)).get(name, 0)
        if used < limit:
            return None
        return (
            f"The key {name} has used its {limit:,} tokens for today ({used:,}); it can ask "
            f"again after midnight, local time (in {_in(until_midnight(now))})."
        )
