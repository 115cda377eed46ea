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
- ``value``: a tool when argument ``X`` is ``V`` — the argument's value, as canonical JSON, is
  the rule's; or, with the argument :data:`ALL_ARGUMENTS`, a tool called with exactly these
  arguments (the canonical JSON of the whole arguments object).

Which argument a rule may pin is the tool's to say: a tool declares the argument that decides
what its call does in a :class:`RuleSpec` (``@tool(rule=RuleSpec("path", "folder", ...))``),
and only when its other arguments cannot widen what the call does (``write_file``'s content
cannot; a shell tool's command can). :func:`suggest_rule` offers a rule on that argument, or
else one that pins every argument; it never picks an argument by name or by its place.

A rule on one argument matches a call only when the tool declares that argument (of the
rule's kind) as the deciding one, or when it is the call's only argument: a rule kept before
tools declared theirs ("mcp_query when database is sales") no longer lets a call with other
arguments run unasked, since nothing says those are harmless.

A rule matches only the real arguments of the call that would run: :meth:`ArgumentRule.matches`
is asked just before the call, never trusted from what a dialog showed.

A rule may belong to an agent (``agent``, its name): it then allows only that agent's calls
(a delegate's call is matched against the delegate's own rules and the rules of no agent).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.tools.url_host import host_of

__all__ = [
    "ALL_ARGUMENTS",
    "MAX_RULE_VALUE",
    "ArgumentRule",
    "RuleKind",
    "RuleSpec",
    "free_arguments",
    "host_of",
    "shown_path",
    "shown_paths",
    "suggest_rule",
]

RuleKind = Literal["folder", "host", "value"]
"""What an :class:`ArgumentRule` compares: a path inside a folder, a URL's host, a value."""

MAX_RULE_VALUE = 1000
"""The longest folder, host or value a rule keeps."""

ALL_ARGUMENTS = "*"
"""The ``argument`` of a ``value`` rule that pins every argument: its value is the canonical
JSON of the call's whole arguments object."""


@dataclass(frozen=True)
class RuleSpec:
    """What a tool declares for the rules a dialog may offer on it: ``argument`` is the one
    that decides what a call does, ``kind`` how a rule compares it (``folder``: a path inside
    a folder; ``host``: a URL's host; ``value``: the exact value); ``verb`` and ``doing`` word
    the offer ("write", "writing": "Always allow writing inside ~/notes"). Without them the
    offer names the tool.

    Declare one only when the tool's other arguments cannot widen what the call does: a rule
    made from it lets every value of those run unasked.
    """

    argument: str
    kind: RuleKind
    verb: str = ""
    doing: str = ""

    def __post_init__(self) -> None:
        if not self.argument or self.argument == ALL_ARGUMENTS:
            raise ValueError(f"a rule's deciding argument cannot be {self.argument!r}")
        if bool(self.verb) != bool(self.doing):
            raise ValueError("a rule's wording needs both a verb and its -ing form, or neither")


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


def shown_paths(text: str) -> str:
    """``text`` as a person reads it: each path inside the home folder as ``~/...`` (the home
    folder where a path starts, not inside another one)."""
    home = str(Path.home()).rstrip(os.sep)
    if not home:
        return text
    starts = r"(?<![^\s(\[\"'=:,])"
    ends = rf"(?={re.escape(os.sep)}|\.(?:\s|$)|[^\w./-]|$)"
    return re.sub(starts + re.escape(home) + ends, "~", text)


class ArgumentRule(BaseModel):
    """ "Always allow ``tool`` when its ``argument`` falls inside ``value``" (see the module).

    ``value`` is a resolved absolute folder (``folder``), a lower-case host (``host``) or the
    canonical JSON of the allowed value (``value``); ``thread_id`` limits the rule to one
    thread (``None``: every thread); ``agent`` to the calls of the agent of that name
    (``None``: any agent's).
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

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

    @classmethod
    def exactly(
        cls, tool: str, args: Mapping[str, Any], thread_id: str | None = None
    ) -> ArgumentRule:
        """A rule that pins every argument: ``tool`` called with exactly ``args``; raises
        ``ValueError`` when their canonical JSON is longer than :data:`MAX_RULE_VALUE`."""
        return cls.equal(tool, ALL_ARGUMENTS, dict(args), thread_id)

    @property
    def pins_every_argument(self) -> bool:
        """Whether the rule is "exactly these arguments" rather than about one argument."""
        return self.kind == "value" and self.argument == ALL_ARGUMENTS

    def for_agent(self, agent: str | None) -> ArgumentRule:
        """This rule, belonging to the agent called ``agent`` (``None``: to no agent)."""
        return self.model_copy(update={"agent": agent or None})

    def _decides(self, args: Mapping[str, Any], spec: RuleSpec | None) -> bool:
        """Whether this rule's one argument decides the call: the tool declares it (for the
        rule's kind), or the call has no other argument."""
        declared = spec is not None and (spec.argument, spec.kind) == (self.argument, self.kind)
        return declared or set(args) == {self.argument}

    def matches(
        self,
        tool: str,
        args: Mapping[str, Any],
        thread_id: str | None = None,
        agent: str | None = None,
        spec: RuleSpec | None = None,
    ) -> bool:
        """Whether this rule allows the call of ``tool`` with ``args`` in ``thread_id`` made by
        the agent called ``agent`` (a rule of an agent allows none of another's calls);
        ``spec`` is what the tool declares (see the module: without it, a rule on one argument
        matches only a call that has no other)."""
        if tool != self.tool or (self.thread_id is not None and self.thread_id != thread_id):
            return False
        if self.agent is not None and self.agent != agent:
            return False
        if self.pins_every_argument:
            return _canonical(dict(args)) == self.value
        if self.argument not in args or not self._decides(args, spec):
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
        if self.pins_every_argument:
            return f"{self.tool} with exactly the arguments {self.value}{where}"
        return f"{self.tool} when {self.argument} is {self.value}{where}"

    def offer(self, spec: RuleSpec | None = None) -> str:
        """What a dialog's choice says: "Always allow writing inside ~/notes", or for a rule
        of an agent "Always allow Researcher to write inside ~/notes" (the words are the
        tool's ``spec``'s; without them the tool is named)."""
        worded = spec is not None and spec.verb and not self.pins_every_argument
        if self.agent:
            verb = spec.verb if worded and spec is not None else f"call {self.tool}"
            what = f"{self.agent} to {verb}"
        else:
            what = spec.doing if worded and spec is not None else self.tool
        if self.kind == "folder":
            return f"Always allow {what} inside {shown_path(self.value)}"
        if self.kind == "host":
            return f"Always allow {what} from {self.value}"
        if self.pins_every_argument:
            return f"Always allow {what} with exactly these arguments"
        return f"Always allow {what} when {self.argument} is {self.value}"


def free_arguments(rule: ArgumentRule, args: Mapping[str, Any]) -> list[str]:
    """The arguments of a call that ``rule`` leaves unchecked (any value runs), sorted; none
    for a rule that pins every argument."""
    if rule.pins_every_argument:
        return []
    return sorted(name for name in args if name != rule.argument)


def _on_argument(tool: str, spec: RuleSpec, value: Any) -> ArgumentRule | None:
    """The rule on the declared argument's ``value``, or ``None`` when none fits it."""
    name = spec.argument
    if spec.kind == "folder":
        real = _resolved(value) if isinstance(value, str) else None
        if real is None:
            return None
        folder = real if real.is_dir() else real.parent
        if folder == Path(folder.anchor):
            return None  # "inside /" would be the whole tool: that is "for this tool"
        return ArgumentRule(tool=tool, kind="folder", argument=name, value=str(folder))
    if spec.kind == "host":
        host = host_of(value) if isinstance(value, str) else None
        return None if host is None else ArgumentRule.host(tool, name, host)
    return ArgumentRule.equal(tool, name, value)


def suggest_rule(
    tool: str, args: Mapping[str, Any], spec: RuleSpec | None = None
) -> ArgumentRule | None:
    """The narrowest useful rule that fits this call, or ``None``.

    For a tool that declares its deciding argument (``spec``): the folder of that path (the
    folder itself when the path is one; never the file system's root), the host of that URL,
    or that exact value. Otherwise, or when no such rule fits the value: a rule pinning every
    argument (``None`` when the call has none, or they are too long to keep). A rule is never
    made on one argument chosen by its name or its place among the call's arguments."""
    if spec is not None and spec.argument in args:
        try:
            rule = _on_argument(tool, spec, args[spec.argument])
        except ValueError:
            rule = None
        if rule is not None:
            return rule
    if not args:
        return None  # no argument to pin: "for this tool" says the same
    try:
        return ArgumentRule.exactly(tool, args)
    except ValueError:
        return None
