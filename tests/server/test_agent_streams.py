"""An agent's reply through ``parley serve`` streams as it is made, with the official
``openai`` and ``anthropic`` SDKs: its words arrive in many pieces before the reply ends,
and joined they are the agent's answer, with a note after it when a call was denied."""

from __future__ import annotations

from pathlib import Path

import anthropic
import openai

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
