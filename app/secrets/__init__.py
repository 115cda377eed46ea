"""Secrets for tools, kept in the OS keyring and never in Parley's database."""

from app.secrets.keyring_resolver import SERVICE, KeyringSecretResolver, KeyringStatus

__all__ = ["SERVICE", "KeyringSecretResolver", "KeyringStatus"]
