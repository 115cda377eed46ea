"""The keys clients send to ``parley serve``: made, listed, removed and checked.

A key is shown once, when it is made. Parley keeps only its SHA-256 digest, in the system
keyring (service ``"parley"``, under ``server-key/ID``), and the key's name, id, daily
token limit (when it has one) and whether its agents' runs are kept as threads in
``server_keys.json`` in the data directory (no secret in
that file). Checking a key hashes what the client sent and compares it with every kept
digest in constant time.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import UserError
from app.core.tools.secrets import SecretError
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.store.paths import resolve_data_dir

__all__ = ["FILE_NAME", "ServerKey", "ServerKeys"]

FILE_NAME = "server_keys.json"
"""The file in the data directory that lists the keys' names and ids."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _ref(key_id: str) -> str:
    return f"server-key/{key_id}"


@dataclass(frozen=True, slots=True)
class ServerKey:
    """One key's name (chosen by the person) and id (chosen by Parley; names its digest in
    the keyring), neither secret, the tokens it may use a day (``None``: no limit), and
    whether an agent's run it asks for is kept as a thread."""

    name: str
    id: str
    daily_tokens: int | None = None
    keep_threads: bool = True


class ServerKeys:
    """The server's keys in ``data_dir`` (``--data-dir``, ``PARLEY_DATA_DIR`` or the user
    data directory); every method is blocking (the keyring may talk over
    D-Bus). Digests read once are kept in memory by id, so checking a request reads only the
    small list file; a removed key is gone from that file, so it stops working at once."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None,
        keyring: KeyringSecretResolver | None = None,
    ) -> None:
        self._path = resolve_data_dir(data_dir) / FILE_NAME
        self._keyring = keyring or KeyringSecretResolver()
        self._digests: dict[str, str] = {}
        self._lock = threading.Lock()

    def listed(self) -> list[ServerKey]:
        """The keys by name, as the list file holds them (an unreadable file holds none)."""
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if not isinstance(data, list):
            return []
        keys = []
        for item in data:
            if isinstance(item, dict) and {"name", "id"} <= item.keys():
                name, key_id = item["name"], item["id"]
                daily = item.get("daily_tokens")
                if not isinstance(daily, int) or isinstance(daily, bool) or daily < 1:
                    daily = None
                keep = item.get("keep_threads") is not False
                if isinstance(name, str) and isinstance(key_id, str):
                    keys.append(ServerKey(name, key_id, daily, keep))
        return sorted(keys, key=lambda k: k.name)

    def _write(self, keys: list[ServerKey]) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        items = [
            {"name": k.name, "id": k.id}
            | ({} if k.daily_tokens is None else {"daily_tokens": k.daily_tokens})
            | ({} if k.keep_threads else {"keep_threads": False})
            for k in keys
        ]
        data = json.dumps(items, indent=2).encode()
        fd, tmp = tempfile.mkstemp(prefix=".server-keys-", dir=self._path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self._path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def add(self, name: str, daily_tokens: int | None = None, keep_threads: bool = True) -> str:
        """Make a key called ``name``, which may use ``daily_tokens`` a day when given and
        whose agents' runs are kept as threads unless not ``keep_threads``, and return it
        (the only time it is shown); a :class:`UserError` when the name is taken or not a
        plain name or the limit is not a positive number, a :class:`SecretError` when no
        keyring can keep its digest."""
        if daily_tokens is not None and daily_tokens < 1:
            raise UserError(f"a daily token limit must be at least 1, not {daily_tokens}")
        if not _NAME.fullmatch(name):
            raise UserError(
                f"{name!r} cannot name a key: use up to 64 letters, digits, dots, dashes or "
                "underscores, starting with a letter or digit (e.g. ci-bot)"
            )
        keys = self.listed()
        if any(k.name == name for k in keys):
            raise UserError(
                f"a key called {name} exists already; remove it first with: "
                f"parley serve keys remove {name}"
            )
        key = "pk-" + secrets.token_urlsafe(32)
        key_id = secrets.token_hex(8)
        try:
            self._keyring.set(_ref(key_id), _digest(key))
        except SecretError as exc:
            why = str(exc).partition(": ")[2] or str(exc)
            raise SecretError(_ref(key_id), f"the key {name} was not made: {why}") from None
        self._write([*keys, ServerKey(name, key_id, daily_tokens, keep_threads)])
        return key

    def remove(self, name: str) -> bool:
        """Remove the key called ``name``: it stops working at once. ``False`` when there is
        no such key."""
        keys = self.listed()
        gone = [k for k in keys if k.name == name]
        if not gone:
            return False
        self._write([k for k in keys if k.name != name])
        for key in gone:
            with contextlib.suppress(SecretError):
                self._keyring.delete(_ref(key.id))
        return True

    def _digest_of(self, key: ServerKey) -> str | None:
        with self._lock:
            if key.id not in self._digests:
                try:
                    self._digests[key.id] = self._keyring.get(_ref(key.id))
                except SecretError:
                    return None
            return self._digests[key.id]

    def keeps_threads(self, name: str) -> bool:
        """Whether an agent's run asked with the key ``name`` is kept as a thread (an
        unknown name: it is)."""
        return next((k.keep_threads for k in self.listed() if k.name == name), True)

    def check(self, presented: str) -> str | None:
        """The name of the key ``presented`` is, or ``None``: compared with every key's
        digest in constant time, whichever matches."""
        sent = _digest(presented)
        found: str | None = None
        for key in self.listed():
            kept = self._digest_of(key)
            if kept is not None and hmac.compare_digest(sent, kept):
                found = key.name
        return found
