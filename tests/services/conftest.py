"""Keyring fixtures for the service tests: an in-memory keyring, or none at all."""

from tests.services.memory_keyring import memory_keyring, no_keyring

__all__ = ["memory_keyring", "no_keyring"]
