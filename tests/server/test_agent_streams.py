"""An agent's reply through ``parley serve`` streams as it is made, with the official
``openai`` and ``anthropic`` SDKs: its words arrive in many pieces before the reply ends,
and joined they are the agent's answer, with a note after it when a call was denied."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import anthropic
import openai

from app.services.network import saved_connections
from app.services.workspace import Workspace
from tests.server.harness import ANSWER, USAGE, serving

ASK = [{"role": "user", "content": "Why are there tides?"}]


def test_an_agents_reply_streams_piece_by_piece_to_the_openai_sdk(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        api = openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)
        with api:
            chunks = list(
                api.chat.completions.create(
                    model="agent:Researcher",
                    messages=ASK,
                    stream=True,
                    stream_options={"include_usage": True},
                )
            )
    texts = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(texts) >= 5  # the scripted model makes it four characters at a time
    assert "".join(texts) == ANSWER
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "stop"
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == USAGE["completion_tokens"]


def test_an_agents_reply_streams_piece_by_piece_to_the_anthropic_sdk(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        root = served.base_url.removesuffix("/v1")
        claude = anthropic.Anthropic(base_url=root, api_key=served.key, max_retries=0)
        with (
            claude,
            claude.messages.stream(
                model="agent:Researcher", max_tokens=200, messages=ASK
            ) as stream,
        ):
            texts = [t for t in stream.text_stream if t]
            final = stream.get_final_message()
    assert len(texts) >= 5
    assert "".join(texts) == ANSWER
    assert final.content[0].type == "text"
    assert final.content[0].text == ANSWER
    assert final.stop_reason == "end_turn"
    assert final.usage.output_tokens == USAGE["completion_tokens"]


LONG = "wave " * 3000
"""An answer long enough to be still streaming when the client goes away: 3,750 pieces, one
each 5 ms (19 s in all), however quick the machine."""


def _answers(data_dir: Path) -> list[str]:
    """The texts of the answers kept in the server's threads."""

    async def read() -> list[str]:
        ws = await Workspace.open(data_dir)
        try:
            found = []
            for summary in await ws.threads.list_all():
                state = await ws.threads.saved_state(summary.thread.id)
                found += [
                    m.text() for m in (state.context if state else []) if m.role == "assistant"
                ]
            return found
        finally:
            await ws.aclose()

    return asyncio.run(read())


def test_closing_an_agents_stream_stops_its_run(tmp_path: Path) -> None:
    with serving(tmp_path, script=[{"text": LONG, "usage": USAGE, "pace": 0.005}] * 2) as served:
        api = openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)
        with (
            api,
            api.chat.completions.create(
                model="agent:Researcher", messages=ASK, stream=True
            ) as stream,
        ):
            seen = [next(stream) for _ in range(6)]
        assert "".join(c.choices[0].delta.content or "" for c in seen).startswith("wave wave")
        rows: list[str] = []
        for _ in range(300):  # the ledger's row is written once the request has ended
            rows = [r.purpose for r in asyncio.run(saved_connections(served.data_dir, limit=10))]
            if any(r.endswith("model agent:Researcher: client went away") for r in rows):
                break
            time.sleep(0.1)
        assert any(r.endswith("model agent:Researcher: client went away") for r in rows), rows
    # the run stopped with the client: what arrived is kept, well short of the whole answer
    answers = _answers(served.data_dir)
    assert answers, "nothing of the answer was kept"
    assert all(len(a) < len(LONG.strip()) for a in answers), [len(a) for a in answers]
