"""An agent's run through ``parley serve`` makes as many model calls as it needs, so what it
will use is not known when it starts: it holds all its key has left of the day, and stops
before a step that could pass that, telling the client in one sentence (asked with the
official ``openai`` SDK, the agent on a scripted model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
from openai.types.chat import ChatCompletionMessageParam

from app.services.key_usage import KeyUsage
from app.services.server_keys import ServerKeys
from tests.server.harness import serving
from tests.server.test_agents_api import _writer

FIRST = {"prompt_tokens": 60, "completion_tokens": 20, "total_tokens": 80}
ASK: list[ChatCompletionMessageParam] = [
    {"role": "user", "content": "Write the tide table to notes."}
]


def _script(target: Path) -> list[dict[str, Any]]:
    call = {"name": "write_file", "args": {"path": str(target), "content": "tide table"}}
    done = {"prompt_tokens": 90, "completion_tokens": 10, "total_tokens": 100}
    return [
        {"text": "", "tool_calls": [call], "usage": FIRST},
        {"text": "Done: the tide table is written.", "usage": done},
    ] * 3


def test_an_agents_run_stops_before_it_would_pass_what_its_key_has_left(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    target = notes / "tides.txt"
    with (
        serving(
            tmp_path, script=_script(target), prepare=_writer(notes, rule=True), daily_tokens=100
        ) as served,
        openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as client,
    ):
        reply = client.chat.completions.create(model="agent:Writer", messages=ASK)
        text = reply.choices[0].message.content or ""
        # the first step ran (the file is written); the answer's step could have passed
        # the 20 tokens left, so it was not taken
        assert target.read_text(encoding="utf-8") == "tide table"
        assert "Done" not in text
        assert text.startswith(
            "The run stopped before its next step, which could pass the 100 tokens the key "
            "ci-bot had left for today (it used 80); it is kept in Parley's window (thread "
        )
        usage = KeyUsage(served.data_dir, ServerKeys(served.data_dir))
        assert usage.today() == {"ci-bot": 80}

        # streamed, with 20 tokens left: the first step cannot fit, so nothing runs
        stream = client.chat.completions.create(model="agent:Writer", messages=ASK, stream=True)
        streamed = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert streamed.startswith(
            "The run stopped before its next step, which could pass the 20 tokens the key "
            "ci-bot had left for today (it used 0)"
        )
        assert usage.today() == {"ci-bot": 80}


def test_an_agent_under_a_key_with_room_enough_answers_in_full(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    target = notes / "tides.txt"
    with (
        serving(
            tmp_path, script=_script(target), prepare=_writer(notes, rule=True), daily_tokens=5000
        ) as served,
        openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as client,
    ):
        reply = client.chat.completions.create(model="agent:Writer", messages=ASK)
        assert reply.choices[0].message.content == "Done: the tide table is written."
        usage = KeyUsage(served.data_dir, ServerKeys(served.data_dir))
        assert usage.today() == {"ci-bot": 180}
