"""Memory files: writing every memory to one, and reading one from anywhere, strictly.

A file is UTF-8 JSON: ``{"format": "parley.memories", "version": 1, "memories": [...]}``,
each memory ``{"text": ..., "agent": NAME or null, "pinned": bool, "local_only": bool,
"made_at": seconds, "last_used_at": seconds or null, "source": {"thread": ID, "message":
ID or null} or null}`` (only ``text`` is required). A local-only memory is written with its
flag: the file is the person's own.

:func:`read_memory_file` refuses with one sentence naming what and where anything that is
not such a file: too big, not UTF-8, not strict JSON (a repeated key, ``NaN``), another
format or version, a key it does not know, a value of the wrong kind, a text too long or
holding a control character, too many memories. Nothing is added by reading.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.core.errors import UserError
from app.store import MAX_MEMORY_CHARS, memory_text_problem
from app.text.hidden_chars import escape_hidden
from app.text.sizes import human_size

__all__ = [
    "FILE_FORMAT",
    "FILE_VERSION",
    "MAX_FILE_BYTES",
    "MAX_FILE_MEMORIES",
    "FileMemory",
    "memory_file_bytes",
    "read_memories",
    "read_memory_file",
]

FILE_FORMAT = "parley.memories"
FILE_VERSION = 1
MAX_FILE_MEMORIES = 10_000
"""The most memories one file may hold."""
MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest memory file read: the most memories at their longest, with room for escapes."""

_KEYS = {"text", "agent", "pinned", "local_only", "made_at", "last_used_at", "source"}
_TOP = {"format", "version", "memories"}
_LATEST = 366 * 24 * 3600.0
"""How far after now a time in a file may lie (clocks differ) before it is refused."""


@dataclass(frozen=True, slots=True)
class FileMemory:
    """One memory as a file holds it: the agent by name (``None``: everyone's)."""

    text: str
    agent: str | None = None
    pinned: bool = False
    local_only: bool = False
    made_at: float | None = None
    last_used_at: float | None = None
    thread_id: str | None = None
    message_id: str | None = None


def memory_file_bytes(memories: Sequence[FileMemory]) -> bytes:
    """``memories`` as a memory file (UTF-8 JSON, one memory a line)."""
    items = []
    for memory in memories:
        source = (
            None
            if memory.thread_id is None
            else {"thread": memory.thread_id, "message": memory.message_id}
        )
        item = {
            "text": memory.text,
            "agent": memory.agent,
            "pinned": memory.pinned,
            "local_only": memory.local_only,
            "made_at": memory.made_at,
            "last_used_at": memory.last_used_at,
            "source": source,
        }
        items.append(json.dumps(item, ensure_ascii=False))
    head = f'{{"format": "{FILE_FORMAT}", "version": {FILE_VERSION}, "memories": ['
    body = ",\n  ".join(items)
    return (head + ("\n  " + body + "\n" if items else "") + "]}\n").encode("utf-8")


def _refuse(sentence: str) -> UserError:
    return UserError(f"This is not a memory file Parley can read: {sentence}.")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _refuse(f"the key {_shown(key)} is given twice in one object")
        found[key] = value
    return found


def _constant(name: str) -> Any:
    raise _refuse(f"it holds {name}, which strict JSON does not have")


def _shown(value: str, width: int = 40) -> str:
    text = escape_hidden(value)
    return "'" + (text if len(text) <= width else text[: width - 1] + "…") + "'"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "true or false",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def read_memory_file(data: bytes) -> list[FileMemory]:
    """The memories of the file ``data``; :class:`UserError` with one sentence naming what
    and where when it is not a memory file (see the module docstring)."""
    if len(data) > MAX_FILE_BYTES:
        raise _refuse(f"it is larger than {human_size(MAX_FILE_BYTES)}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _refuse(f"it is not UTF-8 text (byte {exc.start + 1} is not)") from None
    try:
        body = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except RecursionError:
        raise _refuse("its JSON nests too deeply") from None
    except UserError:
        raise
    except json.JSONDecodeError as exc:
        raise _refuse(f"it is not JSON (line {exc.lineno}, column {exc.colno})") from None
    except ValueError:  # a number too long to read
        raise _refuse("it holds a number too long to read") from None
    if not isinstance(body, dict):
        raise _refuse(f"it holds {_kind(body)}, not an object")
    for key in body:
        if key not in _TOP:
            raise _refuse(f"it has a key {_shown(key)} a memory file does not have")
    if body.get("format") != FILE_FORMAT:
        raise _refuse(f'its "format" is not "{FILE_FORMAT}"')
    version = body.get("version")
    if type(version) is not int or version != FILE_VERSION:
        raise _refuse(f"its version is not {FILE_VERSION} (a newer Parley may have written it)")
    return read_memories(body.get("memories"))


def read_memories(memories: Any, most: int = MAX_FILE_MEMORIES) -> list[FileMemory]:
    """The memories of a file's ``"memories"`` list (a memory file's, an agent file's),
    at most ``most``; :class:`UserError` with one sentence naming what and where when one
    cannot be a memory."""
    if not isinstance(memories, list):
        raise _refuse(f'its "memories" is {_kind(memories)}, not a list')
    if len(memories) > most:
        raise _refuse(f"it holds {len(memories):,} memories; a file holds at most {most:,}")
    return [_memory(item, n) for n, item in enumerate(memories, 1)]


def _memory(item: Any, n: int) -> FileMemory:
    where = f"memory {n}"
    if not isinstance(item, dict):
        raise _refuse(f"{where} is {_kind(item)}, not an object")
    for key in item:
        if key not in _KEYS:
            raise _refuse(f"{where} has a key {_shown(key)} a memory does not have")
    text = item.get("text")
    if not isinstance(text, str):
        raise _refuse(f"{where} has {_kind(text)} as its text")
    if len(text) > MAX_MEMORY_CHARS:
        raise _refuse(
            f"the text of {where} is {len(text):,} characters long; a memory holds at most "
            f"{MAX_MEMORY_CHARS:,}"
        )
    problem = memory_text_problem(text.strip())
    if problem is not None:
        raise _refuse(f"the text of {where} cannot be a memory: {problem}")
    agent = _optional(item, "agent", str, where)
    if agent is not None:
        problem = memory_text_problem(agent)
        if problem is not None or len(agent) > 200:
            raise _refuse(f"the agent of {where} is not a name")
    thread_id, message_id = _source(item.get("source"), where)
    return FileMemory(
        text=text.strip(),
        agent=agent,
        pinned=_flag(item, "pinned", where),
        local_only=_flag(item, "local_only", where),
        made_at=_time(item, "made_at", where),
        last_used_at=_time(item, "last_used_at", where),
        thread_id=thread_id,
        message_id=message_id,
    )


def _optional(item: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = item.get(key)
    if value is not None and type(value) is not kind:
        raise _refuse(f'{where} has {_kind(value)} as its "{key}"')
    return value


def _flag(item: dict[str, Any], key: str, where: str) -> bool:
    value = item.get(key, False)
    if type(value) is not bool:
        raise _refuse(f'{where} has {_kind(value)} as "{key}", not true or false')
    return value


def _time(item: dict[str, Any], key: str, where: str) -> float | None:
    value = item.get(key)
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value):
        raise _refuse(f'{where} has {_kind(value)} as "{key}", not a time in seconds')
    if not 0 < value <= time.time() + _LATEST:
        raise _refuse(f'{where} has a "{key}" that is no time Parley could have written')
    return float(value)


def _source(value: Any, where: str) -> tuple[str | None, str | None]:
    if value is None:
        return None, None
    if not isinstance(value, dict) or set(value) != {"thread", "message"}:
        raise _refuse(f'{where} has a "source" that is not a thread and a message')
    thread, message = value["thread"], value["message"]
    for part in (thread, message):
        if part is None and part is message:
            continue
        if not isinstance(part, str) or not 0 < len(part) <= 200 or memory_text_problem(part):
            raise _refuse(f'{where} has a "source" that is not a thread and a message')
    return thread, message
