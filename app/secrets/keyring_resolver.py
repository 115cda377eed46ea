"""Tool secrets kept in the OS keyring: service ``"parley"``, username = the secret ref.

When there is no usable keyring (no Secret Service / KWallet running, or it is locked), every
call fails with a :class:`SecretError` that says so and what to do. Nothing is ever written in
plain text. A caller may opt into ``session_fallback=True``: keys set while the keyring is
unavailable are then held in memory until the app exits, and the caller tells the user so.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from app.core.netgate import purpose
from app.core.tools.secrets import SecretError
from app.secrets.known import remember_secret

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

__all__ = ["SERVICE", "KeyringSecretResolver", "KeyringStatus"]

SERVICE = "parley"
"""The keyring service name every Parley secret is stored under."""

KEYRING_PURPOSE = "the system keyring"
"""What the network ledger says a keyring call's (local) connection was for."""

log = logging.getLogger(__name__)

_NO_KEYRING = (
    "no system keyring is available (no Secret Service or KWallet is running); start your "
    "desktop's keyring (e.g. gnome-keyring) and restart Parley, or keep keys for this session only"
)
_LOCKED = "the system keyring is locked; unlock it (e.g. log in to your desktop) and try again"
_PLAINTEXT = (
    "the only keyring available stores secrets in a plain-text file ({name}); Parley refuses it. "
    "Start your desktop's keyring, or keep keys for this session only"
)


@dataclass(frozen=True)
class KeyringStatus:
    """Whether secrets can be stored, which backend holds them, and a sentence for the user."""

    available: bool
    backend: str
    session_only: bool
    message: str


def _keyring() -> ModuleType:
    """The keyring package with its errors and its "no keyring" backend, imported when the
    keyring is first used (not when the window starts)."""
    import keyring
    import keyring.backends.fail
    import keyring.errors

    return keyring


def _is_plaintext(backend: KeyringBackend) -> bool:
    cls = type(backend)
    return cls.__module__.startswith("keyrings.alt") and "Plaintext" in cls.__name__


class KeyringSecretResolver:
    """A :class:`~app.core.tools.SecretResolver` backed by the OS keyring.

    ``backend`` defaults to whatever ``keyring.get_keyring()`` returns at call time.
    ``session_fallback=True`` keeps keys in memory (for this session only) when the keyring
    cannot be used; without it an unusable keyring is always an error.
    """

    def __init__(
        self,
        *,
        service: str = SERVICE,
        backend: KeyringBackend | None = None,
        session_fallback: bool = False,
    ) -> None:
        self.service = service
        self._backend = backend
        self.session_fallback = session_fallback
        self._session: dict[str, str] = {}

    def backend(self) -> KeyringBackend:
        """The keyring backend in use."""
        if self._backend is not None:
            return self._backend
        backend: KeyringBackend = _keyring().get_keyring()
        return backend

    def _usable_backend(self, ref: str, action: str = "read") -> KeyringBackend:
        """The backend, or a :class:`SecretError` saying why ``ref`` cannot be ``action``
        (read, saved, deleted) there."""
        backend = self.backend()
        if isinstance(backend, _keyring().backends.fail.Keyring):
            raise SecretError(ref, f"secret {ref!r} cannot be {action}: {_NO_KEYRING}")
        if _is_plaintext(backend):
            why = _PLAINTEXT.format(name=type(backend).__name__)
            raise SecretError(ref, f"secret {ref!r} cannot be {action}: {why}")
        return backend

    def _failure(self, ref: str, action: str, exc: Exception) -> SecretError:
        if isinstance(exc, SecretError):
            return exc
        if isinstance(exc, _keyring().errors.KeyringLocked):
            return SecretError(ref, f"secret {ref!r} cannot be {action}: {_LOCKED}")
        if isinstance(exc, _keyring().errors.NoKeyringError):
            return SecretError(ref, f"secret {ref!r} cannot be {action}: {_NO_KEYRING}")
        return SecretError(
            ref,
            f"secret {ref!r} cannot be {action}: the system keyring failed "
            f"({type(exc).__name__}); check that it is running and unlocked",
        )

    def get(self, ref: str) -> str:
        """Return the value of ``ref``; raises :class:`SecretError` if it is not set or unreadable.

        Blocking (the keyring may talk over D-Bus): from the event loop use :meth:`resolve`.
        """
        if ref in self._session:
            return self._session[ref]
        try:
            with purpose(KEYRING_PURPOSE):
                value = self._usable_backend(ref).get_password(self.service, ref)
        except SecretError:
            if self.session_fallback:
                raise SecretError(
                    ref,
                    f"secret {ref!r} is not set; the system keyring is unavailable, so set it in "
                    "Settings for this session",
                ) from None
            raise
        except _keyring().errors.KeyringError as exc:
            raise self._failure(ref, "read", exc) from None
        if not value:
            raise SecretError(
                ref,
                f"secret {ref!r} is not set; store it with: parley key set {ref} "
                f"(kept in the system keyring under service {self.service!r})",
            )
        remember_secret(str(value))
        log.debug("read secret %s from the keyring", ref)
        return str(value)

    async def resolve(self, ref: str) -> str:
        """Return the value of ``ref`` without blocking the event loop."""
        return await asyncio.to_thread(self.get, ref)

    def set(self, ref: str, value: str) -> KeyringStatus:
        """Store ``value`` as ``ref``; returns where it went (keyring, or this session only)."""
        if not value:
            raise SecretError(ref, f"secret {ref!r} cannot be empty; use delete() to remove it")
        remember_secret(value)
        try:
            with purpose(KEYRING_PURPOSE):
                self._usable_backend(ref, "saved").set_password(self.service, ref, value)
        except (SecretError, _keyring().errors.KeyringError) as exc:
            if not self.session_fallback:
                raise (
                    exc if isinstance(exc, SecretError) else self._failure(ref, "saved", exc)
                ) from None
            self._session[ref] = value
            log.info("kept secret %s for this session only (no usable keyring)", ref)
            return self.status()
        self._session.pop(ref, None)
        log.info("stored secret %s in the keyring", ref)
        return self.status()

    def delete(self, ref: str) -> None:
        """Remove ``ref`` from the keyring and the session store; a missing secret is fine."""
        had_session = self._session.pop(ref, None) is not None
        try:
            with purpose(KEYRING_PURPOSE):
                self._usable_backend(ref, "deleted").delete_password(self.service, ref)
        except _keyring().errors.PasswordDeleteError:
            return
        except (SecretError, _keyring().errors.KeyringError) as exc:
            if had_session or self.session_fallback:
                return
            raise (
                exc if isinstance(exc, SecretError) else self._failure(ref, "deleted", exc)
            ) from None

    def is_set(self, ref: str) -> bool:
        """Whether ``ref`` has a value (errors count as "not set")."""
        try:
            self.get(ref)
        except SecretError:
            return False
        return True

    def status(self) -> KeyringStatus:
        """Say whether secrets can be kept, for the settings page."""
        backend = self.backend()
        name = f"{type(backend).__module__}.{type(backend).__name__}"
        if isinstance(backend, _keyring().backends.fail.Keyring) or _is_plaintext(backend):
            why = _NO_KEYRING if not _is_plaintext(backend) else _PLAINTEXT.format(name=name)
            if self.session_fallback:
                return KeyringStatus(
                    True, name, True, f"Keys are kept for this session only: {why}."
                )
            return KeyringStatus(False, name, False, f"Keys cannot be stored: {why}.")
        return KeyringStatus(True, name, False, "Keys are kept in the system keyring.")
