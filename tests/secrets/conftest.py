"""A real in-memory keyring backend, registered with ``keyring.set_keyring`` for each test."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import keyring.errors
import pytest
from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    """Keeps passwords in a dict; ``locked=True`` makes every call fail as a locked keyring."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}
        self.locked = False

    def _check(self) -> None:
        if self.locked:
            raise keyring.errors.KeyringLocked("the collection is locked")

    def get_password(self, service: str, username: str) -> str | None:
        """Return the stored password or ``None``."""
        self._check()
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        """Store a password."""
        self._check()
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        """Delete a password; a missing one is an error, as in real backends."""
        self._check()
        if self.passwords.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Make an empty in-memory keyring the process's keyring for one test."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def no_keyring() -> Iterator[None]:
    """Make the process's keyring the "no backend" one, as on a desktop without D-Bus."""
    import keyring.backends.fail

    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)
