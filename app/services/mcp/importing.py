"""Importing another app's ``mcpServers`` file, which is outside input and may be hostile.

A server in such a file may only read keyring secrets under its own name
(``{keyring:mcp/NAME/...}``) and may not let its tools run without asking. Anything more is a
*claim*: :func:`read_import` lists each one, and :func:`apply_import` holds back every server
that makes one unless the user said yes (``parley mcp import FILE --trust``, or the window's
confirmation). A secret in a command's arguments, a server named twice and an entry Parley
cannot use are skipped with the reason, trusted or not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from app.services.mcp.config import McpConfig, McpConfigError, parse_server, repeated_names
from app.tools.mcp.config import ServerConfig, secret_refs_in, valid_server_name

__all__ = [
    "ImportPlan",
    "ImportReport",
    "apply_import",
    "claims_of",
    "import_file",
    "read_import",
    "shown_name",
]

_KEY = "mcpServers"


def shown_name(name: str) -> str:
    """A server name from a file as it can be shown: as it is when it is a valid name, else
    quoted with its control characters escaped (a name cannot forge a line of output)."""
    return name if valid_server_name(name) is None else repr(name)


def claims_of(server: ServerConfig) -> list[str]:
    """What ``server`` asks for beyond its own secrets and asking first, one sentence each."""
    own = f"mcp/{server.name}/"
    claims = []
    for what, values in (("environment variable", server.env), ("header", server.headers)):
        for key, value in values.items():
            for ref in secret_refs_in(value):
                if not ref.startswith(own):
                    claims.append(
                        f"its {what} {key!r} reads the keyring secret {ref!r}, which is not one "
                        f"of its own ({own}...)"
                    )
    if server.policy == "allowed":
        claims.append('it lets every tool run without asking ("policy": "allowed")')
    for tool, policy in server.tools.items():
        if policy == "allowed":
            claims.append(f"it lets its tool {tool!r} run without asking")
    return claims


@dataclass
class ImportPlan:
    """What a file offers: the servers Parley can use, those it cannot (with why), and what
    each usable one claims (see :func:`claims_of`)."""

    source: Path
    names: list[str] = field(default_factory=list)
    """Every server the file names, in its order."""
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    claims: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class ImportReport:
    """What an import added, what it held back for want of a yes (with each claim), what it
    skipped (with the reason) and what it added on trust (with the claims accepted)."""

    added: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    held: dict[str, list[str]] = field(default_factory=dict)
    trusted: dict[str, list[str]] = field(default_factory=dict)


def read_import(source: str | os.PathLike[str]) -> ImportPlan:
    """Read ``source`` as an ``mcpServers`` file; raises :class:`McpConfigError` when it
    cannot be read at all."""
    other = McpConfig(source)
    if not other.path.is_file():
        raise McpConfigError(f"{other.path} is not a file")
    entries = other._read(repeats=True)[_KEY]
    if not entries:
        raise McpConfigError(f'{other.path} has no servers under "{_KEY}"')
    twice = repeated_names(entries)
    plan = ImportPlan(other.path, list(entries))
    for name, entry in entries.items():
        if name in twice:
            plan.skipped[name] = (
                f"the file names server {name!r} {twice[name]} times, so it is unclear which "
                "one is meant; keep one and import again"
            )
            continue
        try:
            server = parse_server(name, entry)
        except McpConfigError as exc:
            plan.skipped[name] = str(exc)
            continue
        plan.servers[name] = server
        if claims := claims_of(server):
            plan.claims[name] = claims
    return plan


def apply_import(config: McpConfig, plan: ImportPlan, *, trust: bool = False) -> ImportReport:
    """Add ``plan``'s servers to ``config``; those that make claims only with ``trust``.

    A server whose name is taken is skipped; nothing configured already is changed.
    """
    data = config._read()
    report = ImportReport()
    for name in plan.names:
        server = plan.servers.get(name)
        if server is None:
            report.skipped[name] = plan.skipped[name]
            continue
        claims = plan.claims.get(name, [])
        if name in data[_KEY]:
            report.skipped[server.name] = f"a server named {server.name!r} is already configured"
        elif claims and not trust:
            report.held[server.name] = claims
        else:
            data[_KEY][server.name] = server.to_json()
            report.added.append(server.name)
            if claims:
                report.trusted[server.name] = claims
    if report.added:
        config._write(data)
    return report


def import_file(
    config: McpConfig, source: str | os.PathLike[str], *, trust: bool = False
) -> ImportReport:
    """Read ``source`` and add its servers to ``config`` (see :func:`apply_import`)."""
    return apply_import(config, read_import(source), trust=trust)
