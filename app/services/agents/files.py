"""Agent files (``NAME.agent.json``): writing one, and reading one from anywhere, strictly.

A file holds ``format`` (``parley.agent``), ``version``, ``name``, ``description``,
``instructions``, ``model`` (a spec, or ``null`` for the thread's model), ``tools`` and
``delegates`` (names), ``limits`` (``max_model_calls``, ``max_tool_calls``, ``max_tokens``,
``max_cost``), ``starters`` (at most three), ``secrets`` (keyring references such as
``keyring:openai/api-key``: never a key itself), ``rules`` (its approval rules, each
``tool``, ``kind`` — ``folder``, ``host`` or ``value`` —, ``argument`` and ``value``; a folder
inside the home folder is written ``~/…``) and ``knowledge`` (the folders it searches).

A rule for a folder outside the home folder, for the home folder itself, for a hidden folder
or one inside it (``~/.ssh``, ``~/.config/autostart``), or written with ``..`` is refused like
any other hostile value (see :mod:`.folders`).

:func:`read_agent_file` refuses, with one sentence, what cannot be an agent file: too big, not
JSON, a field it does not know, a value of the wrong kind, instructions too long, control
characters, a secret in clear. What it returns is only what the file asks for; the service
compares that with what exists here before anything is added.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Annotated, Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.core.budget import BudgetLimits
from app.core.errors import UserError
from app.core.tools.argument_rules import ArgumentRule
from app.core.userinfo import without_userinfo
from app.secrets.known import known_secrets
from app.services.agents.file_limits import MAX_FILE_BYTES, AgentFileError
from app.services.agents.folders import folder_problem, portable
from app.services.agents.memories import agent_memories, memory_entries, shared_memories
from app.services.agents.model import LIMIT_NAMES, Agent
from app.services.agents.validation import first_problem, text_problems
from app.services.memory.files import FileMemory

__all__ = [
    "FILE_FORMAT",
    "FILE_SUFFIX",
    "FILE_VERSION",
    "MAX_FILE_BYTES",
    "AgentExport",
    "AgentFile",
    "AgentFileError",
    "FileRule",
    "agent_file_bytes",
    "agent_file_name",
    "export_file",
    "file_rules",
    "read_agent_file",
    "rule_entries",
    "secrets_for_model",
]

FILE_FORMAT = "parley.agent"
FILE_VERSION = 1
FILE_SUFFIX = ".agent.json"

_REFERENCE = re.compile(r"keyring:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_CLEAR_SECRET = re.compile(
    r"\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}"  # OpenAI and Anthropic keys
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"  # GitHub tokens
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access keys
    r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google API keys
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|://[^/\s:@]+:[^/\s@]+@"  # a password inside an address
)


class FileRule(BaseModel):
    """An approval rule as an agent file holds it (not checked yet: see :func:`file_rules`)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid", strict=True)

    tool: str = Field(min_length=1, max_length=200)
    kind: str
    argument: str = Field(min_length=1, max_length=200)
    value: str = Field(min_length=1, max_length=1000)


MAX_FILE_RULES = 50
MAX_FILE_FOLDERS = 50


_Limit = Annotated[float, Field(allow_inf_nan=False)]
"""A limit as a file gives it: a finite number (the counts are taken as whole numbers), one
kind of value, so a wrong one is named by its limit alone."""


class AgentFile(BaseModel):
    """What an agent file asks for, as read (nothing compared with this machine yet)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid", strict=True)

    format: str
    version: int
    name: str
    description: str = ""
    instructions: str = ""
    model: str | None = None
    tools: list[str] = Field(default_factory=list)
    delegates: list[str] = Field(default_factory=list)
    limits: dict[str, _Limit | None] = Field(default_factory=dict)
    starters: list[str] = Field(default_factory=list)
    secrets: list[str] = Field(default_factory=list)
    rules: list[FileRule] = Field(default_factory=list, max_length=MAX_FILE_RULES)
    knowledge: list[str] = Field(default_factory=list, max_length=MAX_FILE_FOLDERS)
    memories: list[Any] | None = None
    """Only in a file exported with its memories (see :mod:`app.services.agents.memories`)."""

    def agent(self) -> Agent:
        """The agent the file describes (not checked against this machine)."""
        limits = {k: v for k, v in self.limits.items() if v is not None}
        for name in ("max_model_calls", "max_tool_calls", "max_tokens"):
            if name in limits:
                limits[name] = int(limits[name])
        return Agent(
            name=self.name.strip(),
            description=self.description,
            instructions=self.instructions,
            model=self.model,
            tools=tuple(self.tools),
            delegates=tuple(self.delegates),
            limits=BudgetLimits.model_validate(limits),
            starters=tuple(self.starters),
        )


def agent_file_name(agent: Agent) -> str:
    """``NAME.agent.json``, with what a file name cannot hold as ``_``."""
    stem = re.sub(r'[\\/:*?"<>|\x00-\x1f]', "_", agent.name.strip()).strip(". ") or "agent"
    return f"{stem}{FILE_SUFFIX}"


def secrets_for_model(model: str | None) -> tuple[str, ...]:
    """The keyring references the model ``model`` names needs (its provider's API key)."""
    provider = (model or "").partition(":")[0]
    if provider in ("openai", "anthropic"):
        return (f"keyring:{provider}/api-key",)
    return ()


def rule_entries(rules: Sequence[ArgumentRule]) -> list[dict[str, str]]:
    """The rules as an agent file writes them (``tool``, ``kind``, ``argument``, ``value``)."""
    return [
        {
            "tool": r.tool,
            "kind": r.kind,
            "argument": r.argument,
            "value": portable(r.value) if r.kind == "folder" else r.value,
        }
        for r in rules
    ]


def _control(text: str) -> bool:
    return any(ord(c) < 32 or ord(c) == 127 for c in text)


def _rule(entry: FileRule) -> ArgumentRule:
    tool = entry.tool if entry.tool.isprintable() else "a tool"
    if _control(entry.tool) or _control(entry.argument) or _control(entry.value):
        raise AgentFileError(f"The file's rule for {tool} holds control characters.")
    if entry.kind == "folder" and ".." in PurePath(entry.value).parts:
        raise AgentFileError(
            f"The file's rule lets {tool} reach {entry.value[:80]!r}, a folder written with "
            "'..'; a rule names the folder itself."
        )
    try:
        if entry.kind == "folder":
            rule = ArgumentRule.folder(entry.tool, entry.argument, entry.value)
        elif entry.kind == "host":
            rule = ArgumentRule.host(entry.tool, entry.argument, entry.value)
        elif entry.kind == "value":
            rule = ArgumentRule.equal(entry.tool, entry.argument, json.loads(entry.value))
        else:
            raise AgentFileError(
                f"The file's rule for {tool} is of the kind {entry.kind[:40]!r}; a rule is "
                "of the kind folder, host or value."
            )
    except (ValueError, ValidationError) as exc:
        if isinstance(exc, AgentFileError):
            raise
        raise AgentFileError(
            f"The file's rule for {tool} has a {entry.kind} Parley cannot read "
            f"({entry.value[:80]!r})."
        ) from None
    if rule.kind == "folder" and (problem := folder_problem(Path(rule.value))) is not None:
        raise AgentFileError(
            f"The file's rule lets {tool} reach {entry.value[:80]!r}, which {problem}; a rule "
            "from a file reaches only a folder inside your home folder, never a hidden one."
        )
    return rule


def file_rules(read: AgentFile) -> tuple[ArgumentRule, ...]:
    """The approval rules the file asks for (of no agent yet); :class:`AgentFileError` with
    one sentence for a hostile one (see the module docstring)."""
    found: list[ArgumentRule] = []
    for entry in read.rules:
        rule = _rule(entry)
        if rule not in found:
            found.append(rule)
    return tuple(found)


def agent_file_bytes(
    agent: Agent,
    rules: Sequence[ArgumentRule] = (),
    knowledge: Sequence[str] = (),
    memories: Sequence[FileMemory] | None = None,
) -> bytes:
    """The agent as an agent file: UTF-8 JSON, keys in a fixed order, no secret; with its
    approval ``rules`` and ``knowledge`` folders, and its ``memories`` when given."""
    body: dict[str, Any] = {
        "format": FILE_FORMAT,
        "version": FILE_VERSION,
        "name": agent.name,
        "description": agent.description,
        "instructions": agent.instructions,
        "model": None if agent.model is None else without_userinfo(agent.model),
        "tools": list(agent.tools),
        "delegates": list(agent.delegates),
        "limits": agent.limits.model_dump(),
        "starters": list(agent.starters),
        "secrets": list(secrets_for_model(agent.model)),
        "rules": rule_entries(rules),
        "knowledge": [portable(f) for f in knowledge],
    }
    if memories is not None:
        body["memories"] = memory_entries(memories)
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


_TOKEN = re.compile(r"[A-Za-z0-9+/_=-]{32,}")


def _random_token(text: str) -> str | None:
    """A long token of mixed letters and digits as random as a key is, if ``text`` holds one."""
    for found in _TOKEN.finditer(text):
        token = found.group()
        if not (
            any(c.isdigit() for c in token)
            and any(c.islower() for c in token)
            and any(c.isupper() for c in token)
        ):
            continue
        counts = [token.count(c) for c in set(token)]
        bits = -sum(n / len(token) * math.log2(n / len(token)) for n in counts)
        if bits >= 4.2:
            return token
    return None


def _secret_in(text: str) -> str | None:
    """What looks like a key in ``text`` (a known key format, a key this Parley has read from
    the keyring, or a long random token), if anything."""
    if found := _CLEAR_SECRET.search(text):
        return found.group()
    if known := next((s for s in known_secrets() if len(s) >= 8 and s in text), None):
        return known
    return _random_token(text)


class AgentExport(NamedTuple):
    """An agent file as an export writes it, and a sentence for each thing left out of it."""

    data: bytes
    notes: tuple[str, ...]


def export_file(
    agent: Agent,
    rules: Sequence[ArgumentRule],
    knowledge: Sequence[str],
    memories: Sequence[FileMemory] | None = None,
) -> AgentExport:
    """``agent`` as an agent file, and a sentence for each rule or folder left out of it (a
    folder an import would refuse: outside the home folder, hidden; a rule's value that looks
    like a key), with its ``memories`` when given (a local-only one, or one that looks like
    a key, left out with a sentence). Raises :class:`UserError` when its text holds what
    looks like a key, or the file would be too large: nothing is written then."""
    texts = [
        ("name holds", agent.name),
        ("description holds", agent.description),
        ("instructions hold", agent.instructions),
        ("model holds", without_userinfo(agent.model or "")),
        *(("starter prompts hold", s) for s in agent.starters),
    ]
    for field, text in texts:
        if (secret := _secret_in(text)) is not None:
            raise UserError(
                f"{agent.name}'s {field} what looks like a key "
                f"({secret[:4]}…, {len(secret)} characters); keys belong in the keyring, so "
                "nothing was exported: take it out and export again."
            )
    notes: list[str] = []
    kept_rules = []
    for rule in rules:
        if rule.kind == "folder" and (problem := folder_problem(Path(rule.value))):
            notes.append(
                f"The rule {rule.for_agent(None).describe()} is left out: its folder "
                f"{problem}, and an agent file holds only folders inside the home folder, "
                "never hidden ones."
            )
        elif rule.kind != "folder" and _secret_in(rule.value) is not None:
            notes.append(
                f"The rule for {rule.tool} when {rule.argument} is a given value is left out: "
                "that value looks like a key, and keys belong in the keyring."
            )
        else:
            kept_rules.append(rule)
    kept_folders = []
    for folder in knowledge:
        if problem := folder_problem(Path(folder)):
            notes.append(
                f"The knowledge folder {folder} is left out: it {problem}, and an agent file "
                "holds only folders inside the home folder, never hidden ones."
            )
        else:
            kept_folders.append(folder)
    kept_memories = None if memories is None else shared_memories(memories, notes, _secret_in)
    data = agent_file_bytes(agent, kept_rules, kept_folders, kept_memories)
    if len(data) > MAX_FILE_BYTES:
        raise UserError(
            f"With its memories {agent.name}'s agent file would be larger than "
            f"{MAX_FILE_BYTES // 1024} KB, the most an agent file may be; nothing was "
            "exported: export it without --with-memory, or move its memories with "
            "parley memory export."
        )
    return AgentExport(data, tuple(notes))


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise AgentFileError(f"The file names {key!r} twice, so it was not read.")
        seen[key] = value
    return seen


def _parse(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_FILE_BYTES:
        raise AgentFileError(
            f"The file is larger than {MAX_FILE_BYTES // 1024} KB, the most an agent file may "
            "be, so it was not read."
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AgentFileError("The file is not UTF-8 text, so it is not an agent file.") from None
    try:
        body = json.loads(text.removeprefix("\ufeff"), object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise AgentFileError("The file nests too deeply to be an agent file.") from None
    except ValueError as exc:
        if isinstance(exc, AgentFileError):
            raise
        raise AgentFileError(f"The file is not JSON ({exc}), so it was not read.") from None
    if not isinstance(body, dict):
        raise AgentFileError("The file holds no JSON object, so it is not an agent file.")
    return body


def _check_header(body: dict[str, Any]) -> None:
    if body.get("format") != FILE_FORMAT:
        raise AgentFileError(
            f'The file is not a Parley agent file (its "format" is not {FILE_FORMAT!r}).'
        )
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise AgentFileError('The file\'s "version" is not a whole number, so it was not read.')
    if version > FILE_VERSION:
        raise AgentFileError(
            f"The file was written by a newer Parley (agent file version {version}); "
            "update Parley to read it."
        )
    unknown = sorted(set(body) - set(AgentFile.model_fields))
    if unknown:
        names = ", ".join(repr(u) for u in unknown[:5])
        raise AgentFileError(
            f"The file has fields Parley does not know ({names}); nothing was read."
        )
    limits = body.get("limits")
    if isinstance(limits, dict) and (odd := sorted(set(limits) - set(LIMIT_NAMES))):
        raise AgentFileError(
            f"The file's limits name {', '.join(repr(o) for o in odd[:5])}; an agent's limits "
            f"are {', '.join(LIMIT_NAMES)}."
        )
    for name in ("max_model_calls", "max_tool_calls", "max_tokens"):
        value = limits.get(name) if isinstance(limits, dict) else None
        if isinstance(value, float) and math.isfinite(value) and not value.is_integer():
            raise AgentFileError(
                f"The file's 'limits.{name}' is {value:g}, not a whole number: calls and "
                "tokens are counted whole."
            )


def _one_sentence(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"]) or "the file"
    if error["type"] == "missing":
        return f"The file's {where!r} is missing."
    return f"The file's {where!r} is not right: {error['msg'].lower()}."


_SEARCHED = ("name", "description", "instructions", "model", "starters", "tools", "knowledge")


def _check_secrets(read: AgentFile) -> None:
    for ref in read.secrets:
        if not _REFERENCE.fullmatch(ref):
            raise AgentFileError(
                'The file\'s "secrets" hold something other than keyring references '
                "(keyring:SERVICE/NAME): a secret in clear is never imported."
            )
    known = [s for s in known_secrets() if len(s) >= 8]
    texts: dict[str, Any] = {f: getattr(read, f) for f in _SEARCHED}
    texts["rules"] = [r.value for r in read.rules]
    for field, value in texts.items():
        for text in value if isinstance(value, list) else [value or ""]:
            if _CLEAR_SECRET.search(text) or any(s in text for s in known):
                raise AgentFileError(
                    f"The file's {field!r} holds what looks like a secret in clear; keys go "
                    "in the keyring, never in an agent file, so it was not imported."
                )


def file_memories(read: AgentFile) -> tuple[FileMemory, ...]:
    """The memories an agent file carries (none unless exported with them);
    :class:`AgentFileError` with one sentence when one cannot be a memory."""
    if read.memories is None:
        return ()
    try:
        return agent_memories(read.memories)
    except UserError as exc:
        raise AgentFileError(str(exc)) from None


def read_agent_file(data: bytes) -> AgentFile:
    """Read an agent file from anywhere; raises :class:`AgentFileError` with one sentence
    when it cannot be an agent file (see the module docstring)."""
    body = _parse(data)
    _check_header(body)
    try:
        read = AgentFile.model_validate(body)
    except ValidationError as exc:
        raise AgentFileError(_one_sentence(exc)) from None
    _check_secrets(read)
    file_rules(read)
    for memory in file_memories(read):
        if _CLEAR_SECRET.search(memory.text):
            raise AgentFileError(
                "The file's memories hold what looks like a secret in clear; keys go in the "
                "keyring, never in an agent file, so it was not imported."
            )
    for folder in read.knowledge:
        if _control(folder) or not folder.strip() or len(folder) > 1000:
            raise AgentFileError("The file's knowledge names a folder Parley cannot read.")
    problems = text_problems(read.agent())
    if problems:
        raise AgentFileError(
            f"{first_problem(problems)} Nothing was imported.".replace(".. ", ". ")
        )
    return read
