"""Approval rules scoped by argument: "always allow this tool when its arguments fall inside".

Besides "always in this thread" and "always for this tool", a person can allow a tool for a
part of what it may touch:

- ``folder``: ``write_file`` inside a folder — the call's path argument, with ``~`` expanded and
  symlinks followed, lies inside the folder (resolved the same way). A path with a ``..`` part
  or a relative path never matches: it is asked about.
- ``host``: ``fetch_url`` for one host — the host of the call's URL argument is exactly the
  rule's (``notes.example.com`` does not match ``example.com``, nor the other way round), and
  the URL is written so that every common URL parser reads that host (:func:`host_of`): a URL
  with a ``\\``, a space, a user name, an escape or an odd form of host matches no host rule.
- ``value``: an MCP tool when argument ``X`` is ``V`` — the argument's value, as canonical JSON,
  is the rule's.

A rule matches only the real arguments of the call that would run: :meth:`ArgumentRule.matches`
is asked just before the call, never trusted from what a dialog showed.

A rule may belong to an agent (``agent``, its name): it then allows only that agent's calls
(a delegate's call is matched against the delegate's own rules and the rules of no agent).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.tools.url_host import host_of

__all__ = ["MAX_RULE_VALUE", "ArgumentRule", "RuleKind", "host_of", "shown_path", "suggest_rule"]

RuleKind = Literal["folder", "host", "value"]
"""What an :class:`ArgumentRule` compares: a path inside a folder, a URL's host, a value."""

MAX_RULE_VALUE = 1000
"""The longest folder, host or value a rule keeps."""

_PATH_ARGS = ("path", "file", "filename", "folder", "directory")
_URL_ARGS = ("url", "uri", "href")


def _resolved(text: str) -> Path | None:
    """``text`` as an absolute path with ``~`` expanded and symlinks followed; ``None`` for a
    relative path or one with a ``..`` part (those are asked about, never matched)."""
    if not text or "\x00" in text:
        return None
    given = Path(text).expanduser()
    if ".." in PurePath(text).parts or not given.is_absolute():
        return None
    try:
        return Path(os.path.realpath(given))
    except (OSError, ValueError):
        return None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def shown_path(path: str) -> str:
    """``path`` as a person reads it: inside the home folder as ``~/...``."""
    home = str(Path.home())
    if path == home or path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path


class ArgumentRule(BaseModel):
    """ "Always allow ``tool`` when its ``argument`` falls inside ``value``" (see the module).

    ``value`` is a resolved absolute folder (``folder``), a lower-case host (``host``) or the
    canonical JSON of the allowed value (``value``); ``thread_id`` limits the rule to one
    thread (``None``: every thread); ``agent`` to the calls of the agent of that name
    (``None``: any agent's).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(min_length=1, max_length=200)
    kind: RuleKind
    argument: str = Field(min_length=1, max_length=200)
    value: str = Field(min_length=1, max_length=MAX_RULE_VALUE)
    thread_id: str | None = None
    agent: str | None = Field(default=None, min_length=1, max_length=200)

    @field_validator("value")
    @classmethod
    def _no_control_characters(cls, value: str) -> str:
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise ValueError("a rule's value may not hold control characters")
        return value

    @classmethod
    def folder(
        cls, tool: str, argument: str, folder: str, thread_id: str | None = None
    ) -> ArgumentRule:
        """A ``folder`` rule; raises ``ValueError`` for a relative folder or one with ``..``."""
        real = _resolved(folder)
        if real is None:
            raise ValueError(f"{folder!r} is not an absolute folder without '..'")
        return cls(
            tool=tool, kind="folder", argument=argument, value=str(real), thread_id=thread_id
        )

    @classmethod
    def host(
        cls, tool: str, argument: str, host: str, thread_id: str | None = None
    ) -> ArgumentRule:
        """A ``host`` rule for exactly ``host``; raises ``ValueError`` for a host that
        :func:`host_of` would never name (a user name, an escape, a Unicode or odd numeric
        form: no URL could match the rule)."""
        name = host.strip().removesuffix(".").lower()
        written = f"[{name}]" if ":" in name else name
        if not name or host_of(f"https://{written}/") != name:
            raise ValueError(f"{host!r} is not a host name written the plain way")
        return cls(tool=tool, kind="host", argument=argument, value=name, thread_id=thread_id)

    @classmethod
    def equal(
        cls, tool: str, argument: str, value: Any, thread_id: str | None = None
    ) -> ArgumentRule:
        """A ``value`` rule: ``argument`` is exactly ``value``."""
        return cls(
            tool=tool, kind="value", argument=argument, value=_canonical(value), thread_id=thread_id
        )

    def for_agent(self, agent: str | None) -> ArgumentRule:
        """This rule, belonging to the agent called ``agent`` (``None``: to no agent)."""
        return self.model_copy(update={"agent": agent or None})

    def matches(
        self,
        tool: str,
        args: Mapping[str, Any],
        thread_id: str | None = None,
        agent: str | None = None,
    ) -> bool:
        """Whether this rule allows the call of ``tool`` with ``args`` in ``thread_id`` made by
        the agent called ``agent`` (a rule of an agent allows none of another's calls)."""
        if tool != self.tool or (self.thread_id is not None and self.thread_id != thread_id):
            return False
        if self.agent is not None and self.agent != agent:
            return False
        if self.argument not in args:
            return False
        given = args[self.argument]
        if self.kind == "value":
            return _canonical(given) == self.value
        if not isinstance(given, str):
            return False
        if self.kind == "host":
            return host_of(given) == self.value
        real = _resolved(given)
        root = Path(self.value)
        return real is not None and (real == root or real.is_relative_to(root))

    def describe(self) -> str:
        """The rule in words, for the settings list and the audit log."""
        where = " in one thread" if self.thread_id else ""
        if self.agent:
            where += f" for {self.agent}"
        if self.kind == "folder":
            return f"{self.tool} inside {shown_path(self.value)}{where}"
        if self.kind == "host":
            return f"{self.tool} for {self.value}{where}"
        return f"{self.tool} when {self.argument} is {self.value}{where}"

    def offer(self) -> str:
        """What a dialog's choice says: "Always allow writing inside ~/notes", or for a rule
        of an agent "Always allow Researcher to write inside ~/notes"."""
        if self.agent:
            verb = {"write_file": "write", "read_file": "read", "fetch_url": "fetch"}
            what = f"{self.agent} to {verb.get(self.tool, 'call ' + self.tool)}"
        else:
            verb = {"write_file": "writing", "read_file": "reading", "fetch_url": "fetching"}
            what = verb.get(self.tool, self.tool)
        if self.kind == "folder":
            return f"Always allow {what} inside {shown_path(self.value)}"
        if self.kind == "host":
            return f"Always allow {what} from {self.value}"
        return f"Always allow {what} when {self.argument} is {self.value}"


def suggest_rule(tool: str, args: Mapping[str, Any]) -> ArgumentRule | None:
    """The narrowest useful rule that fits this call, or ``None``: the folder of a path
    argument (the folder itself when the path is one; never the file system's root), the host
    of a URL argument, else the first short text, number or yes/no argument's value."""
    for name in _PATH_ARGS:
        value = args.get(name)
        if isinstance(value, str) and (real := _resolved(value)) is not None:
            folder = real if real.is_dir() else real.parent
            if folder == Path(folder.anchor):
                return None  # "inside /" would be the whole tool: that is "for this tool"
            return ArgumentRule(tool=tool, kind="folder", argument=name, value=str(folder))
    for name in _URL_ARGS:
        value = args.get(name)
        if isinstance(value, str) and (host := host_of(value)) is not None:
            return ArgumentRule(tool=tool, kind="host", argument=name, value=host)
    for name, value in args.items():
        if name in _PATH_ARGS or name in _URL_ARGS:
            continue  # a relative path or an odd URL: no rule fits it
        short = isinstance(value, str) and 0 < len(value) <= 200 and value.isprintable()
        if short or (isinstance(value, int | float | bool) and not isinstance(value, str)):
            try:
                return ArgumentRule.equal(tool, name, value)
            except ValueError:
                continue
    return None
