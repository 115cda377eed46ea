""" "Copy diagnostics": a plain-text report for bug reports — versions, platform, keyring
backend, model specs, data folders and the database's health. No content, no secrets.

Qt is never imported here: the window passes what it knows of Qt (its version and platform
plugin); otherwise the report says which PySide6 is installed.
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from app.secrets.keyring_resolver import KeyringSecretResolver, KeyringStatus
from app.services.locations import Locations
from app.store import SCHEMA_VERSION, DatabaseHealth, check_database

__all__ = ["QtInfo", "diagnostics_report", "distribution_version", "safe_spec"]


@dataclass(frozen=True)
class QtInfo:
    """What the running window knows of Qt."""

    qt_version: str
    platform_plugin: str


def distribution_version(name: str) -> str | None:
    """The installed version of the distribution ``name``, or ``None``."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def safe_spec(spec: str) -> str:
    """A model spec without anything secret: a server address loses its user, password,
    query and fragment (``openai:gpt-4o@https://key@host/v1?k=x`` → ``...@https://host/v1``)."""
    name, at, url = spec.partition("@")
    if not at or "://" not in url:
        return spec
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{name}@{urlunsplit((parts.scheme, host, parts.path, '', ''))}"


def _size(n: int) -> str:
    if n < 1000:
        return f"{n} bytes"
    size = n / 1000
    for unit in ("KB", "MB"):
        if size < 1000:
            return f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


def _database_lines(health: DatabaseHealth) -> list[str]:
    lines = [f"database: {health.path}"]
    if not health.exists:
        return [*lines, "  not created yet"]
    schema = "unreadable" if health.schema_version is None else str(health.schema_version)
    lines.append(f"  size: {_size(health.size_bytes)}")
    lines.append(f"  schema version: {schema} (this Parley: {SCHEMA_VERSION})")
    if health.thread_count is not None:
        lines.append(f"  threads: {health.thread_count}")
    if health.healthy:
        lines.append("  quick check: ok")
    else:
        lines.append(f"  quick check: DAMAGED ({len(health.problems)} problems)")
        lines.extend(f"    {p}" for p in health.problems[:5])
    return lines


def diagnostics_report(
    locations: Locations,
    *,
    model_specs: Iterable[str] = (),
    qt: QtInfo | None = None,
    keyring_status: KeyringStatus | None = None,
    health: DatabaseHealth | None = None,
) -> str:
    """The report as text. ``model_specs`` are the specs in use (the threads' own specs are
    added from the database); ``qt`` comes from the window when there is one."""
    health = health or check_database(locations.database)
    status = keyring_status or KeyringSecretResolver().status()
    pyside = distribution_version("PySide6-Essentials") or distribution_version("PySide6")
    if qt is not None:
        qt_line = f"Qt {qt.qt_version}, platform plugin {qt.platform_plugin}, PySide6 {pyside}"
    else:
        qt_line = f"PySide6 {pyside or 'not installed'} (no window: Qt platform plugin unknown)"
    llama = distribution_version("llama_cpp_python") or "not installed"
    frozen = " (bundle)" if getattr(sys, "frozen", False) else ""
    specs: Sequence[str] = sorted({safe_spec(s) for s in (*model_specs, *health.models)})
    lines = [
        f"Parley {distribution_version('parley') or 'unknown version'}{frozen}",
        f"Python {platform.python_version()} ({platform.python_implementation()})",
        f"platform: {platform.platform()} ({platform.machine()})",
        qt_line,
        f"llama-cpp-python: {llama}",
        f"keyring: {status.backend} ({'available' if status.available else 'not available'}"
        f"{', session only' if status.session_only else ''})",
        f"models in use: {', '.join(specs) if specs else 'none yet'}",
        *(f"{name}: {path}" for name, path in locations.named()),
        *_database_lines(health),
    ]
    return "\n".join(lines) + "\n"
