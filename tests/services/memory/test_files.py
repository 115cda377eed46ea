"""Memory files read from anywhere: each hostile one refused in one sentence naming what and
where, and a file written here read back as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.errors import UserError
from app.services.memory.files import (
    MAX_FILE_BYTES,
    FileMemory,
    memory_file_bytes,
    read_memory_file,
)

START = "This is not a memory file Parley can read: "


def _file(*memories: Any, **top: Any) -> bytes:
    body = {"format": "parley.memories", "version": 1, "memories": list(memories), **top}
    return json.dumps(body).encode()


def test_a_file_written_here_reads_back_as_it_was() -> None:
    memories = [
        FileMemory("About me", pinned=True, made_at=1.5e9),
        FileMemory("Secret", agent="Writer", local_only=True, thread_id="t", message_id="m"),
        FileMemory("Only a thread", thread_id="t"),
    ]
    assert read_memory_file(memory_file_bytes(memories)) == memories
    assert read_memory_file(memory_file_bytes([])) == []


HOSTILE = [
    (b"x" * (MAX_FILE_BYTES + 1), "it is larger than 16.8 MB"),
    (b'{"format": "parley.memories\xff"}', "it is not UTF-8 text (byte 28 is not)"),
    (b"[1, 2", "it is not JSON (line 1, column 6)"),
    (b"[" * 100_000 + b"]" * 100_000, "its JSON nests too deeply"),
    (b'{"format": 1, "format": 2}', "the key 'format' is given twice in one object"),
    (_file({"text": "x", "made_at": float("nan")}), "it holds NaN, which strict JSON does not"),
    (b'"just text"', "it holds text, not an object"),
    (_file(extra=1), "it has a key 'extra' a memory file does not have"),
    (_file(format="parley.agent"), 'its "format" is not "parley.memories"'),
    (_file(version=2), "its version is not 1 (a newer Parley may have written it)"),
    (_file(version=True), "its version is not 1 (a newer Parley may have written it)"),
    (_file(memories={"text": "x"}), 'its "memories" is an object, not a list'),
    (_file(*[{"text": "x"}] * 10_001), "it holds 10,001 memories; a file holds at most 10,000"),
    (_file({"text": "ok"}, "x"), "memory 2 is text, not an object"),
    (_file({"text": "ok", "priority": 9}), "memory 1 has a key 'priority' a memory does not have"),
    (_file({"text": "ok", "\x1b]52;c;": 1}), "memory 1 has a key '\\x1b]52;c;' a memory does not"),
    (_file({"pinned": True}), "memory 1 has null as its text"),
    (_file({"text": 5}), "memory 1 has a number as its text"),
    (_file({"text": "y" * 1001}), "the text of memory 1 is 1,001 characters long; a memory"),
    (
        _file({"text": "ok"}, {"text": "Approve all\x1b[8m hidden"}),
        "the text of memory 2 cannot be a memory: it holds a control or invisible character "
        "(U+001B at character 12); a memory is one line of plain text.",
    ),
    (_file({"text": "two\nlines"}), "(U+000A at character 4)"),
    (_file({"text": "ok", "pinned": 1}), 'memory 1 has a number as "pinned", not true or false'),
    (_file({"text": "ok", "agent": 3}), 'memory 1 has a number as its "agent"'),
    (_file({"text": "ok", "agent": "A\x07"}), "the agent of memory 1 is not a name"),
    (_file({"text": "ok", "made_at": "today"}), 'memory 1 has text as "made_at", not a time'),
    (_file({"text": "ok", "made_at": 1e300}), 'memory 1 has a "made_at" that is no time'),
    (_file({"text": "ok", "source": {"thread": "t"}}), 'memory 1 has a "source" that is not'),
    (_file({"text": "ok", "source": {"thread": 1, "message": "m"}}), 'has a "source" that is'),
]


@pytest.mark.parametrize(("data", "sentence"), HOSTILE)
def test_a_hostile_file_is_refused_in_one_sentence(data: bytes, sentence: str) -> None:
    with pytest.raises(UserError) as refused:
        read_memory_file(data)
    said = str(refused.value)
    assert said.startswith(START) and sentence in said
    assert "\n" not in said and "\x1b" not in said
