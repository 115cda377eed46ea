"""A real keyring backend that keeps secrets in memory, for tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
import keyring.backends.fail
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from app.core.tools import tool


class MemoryKeyring(KeyringBackend):
    """Stores passwords in a dict; registered with ``keyring.set_keyring`` or passed in."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.items:
            raise PasswordDeleteError(username)
        del self.items[(service, username)]


@contextmanager
def installed(backend: KeyringBackend) -> Iterator[KeyringBackend]:
    """Make ``backend`` the process's keyring for the block, then put the old one back."""
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """An empty in-memory keyring, installed for the test."""
    with installed(MemoryKeyring()) as backend:
        assert isinstance(backend, MemoryKeyring)
        yield backend


@pytest.fixture
def no_keyring() -> Iterator[KeyringBackend]:
    """No keyring at all, as on a desktop without a Secret Service."""
    with installed(keyring.backends.fail.Keyring()) as backend:
        yield backend


@tool(requires_approval=True)
def shout(text: str) -> str:
    """Say ``text`` loudly (a tool that asks for approval)."""
    return text.upper()
