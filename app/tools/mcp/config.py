"""What Parley knows about one MCP server: how to reach it and what its tools may do.

The shape follows the ``mcpServers`` entries other desktop chat apps write, so their files
can be read as they are: ``{"command": ..., "args": [...], "env": {...}}`` for a server run as
a subprocess (stdio) and ``{"url": ..., "headers": {...}}`` for a streamable-HTTP server.
Parley adds ``policy`` (for every tool of the server), ``tools`` (per tool), ``timeout`` (per
call, seconds) and ``disabled``.

An ``env`` or ``headers`` value may name a secret kept in the keyring with ``{keyring:REF}``,
e.g. ``"Authorization": "Bearer {keyring:github/token}"``; it is resolved just before the server
is started and never written anywhere. An argument may not: a process's command line can be read
by every program on the machine (``/proc/PID/cmdline``), so a secret there is refused.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "DEFAULT_POLICY",
    "SECRET_PATTERN",
    "ServerConfig",
    "ToolPolicy",
    "secret_refs_in",
    "valid_server_name",
]

ToolPolicy = Literal["allowed", "approval", "off"]
"""What a tool may do: run at once, run after the user approves the call, or not be offered."""

DEFAULT_POLICY: ToolPolicy = "approval"
"""What a tool may do until the user chooses, whatever its server claims of it."""

SECRET_PATTERN = re.compile(r"\{keyring:([^}]+)\}")
"""``{keyring:REF}`` inside an env or header value: the secret ``REF`` from the keyring."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def valid_server_name(name: str) -> str | None:
    """Return why ``name`` cannot name a server, or ``None`` when it can."""
    if not _NAME.match(name):
        return (
            f"{name!r} cannot name a server: use 1 to 64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return None


def secret_refs_in(value: str) -> list[str]:
    """The keyring refs a configured value names, in order."""
    return [m.group(1).strip() for m in SECRET_PATTERN.finditer(value)]


class ServerConfig(BaseModel):
    """One configured MCP server: a command to run (stdio) or a URL (streamable HTTP)."""

    model_config = ConfigDict(defer_build=True, extra="ignore", populate_by_name=True)

    name: str = Field(exclude=True)
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    policy: ToolPolicy | None = None
    tools: dict[str, ToolPolicy] = Field(default_factory=dict)
    timeout: float | None = Field(default=None, gt=0)
    disabled: bool = False

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        problem = valid_server_name(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("args")
    @classmethod
    def _no_secret_arguments(cls, value: list[str]) -> list[str]:
        for arg in value:
            refs = secret_refs_in(arg)
            if refs:
                raise ValueError(
                    f"an argument names the keyring secret {refs[0]!r}, but secrets are never "
                    "put on a command line, where any program can read them (/proc/PID/cmdline); "
                    "pass it in an environment variable (env) instead"
                )
        return value

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f"{value!r} is not an http:// or https:// address")
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("a server needs either a command (stdio) or a url (HTTP), not both")
        if self.command is not None and not self.command.strip():
            raise ValueError("the command is empty")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """``"stdio"`` for a command, ``"http"`` for a URL."""
        return "stdio" if self.command is not None else "http"

    def describe(self) -> str:
        """One line saying how the server is reached, with no secret in it."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return self.url or ""

    def to_json(self) -> dict[str, Any]:
        """The entry as it is written under ``mcpServers`` (defaults left out)."""
        data = self.model_dump(mode="json", exclude_defaults=True)
        data.pop("name", None)
        return data
