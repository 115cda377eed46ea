"""Several clients at once on the bundled model, through a real ``parley serve``: the model
takes them in turn, and every one gets an answer of its own (its words differ from machine to
machine, so only that there are words, in each API's shape, is checked)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anthropic
import openai

from tests.server.harness import ANSWER, serving

QUESTION = "Name one colour."


def test_clients_at_once_on_the_bundled_model_are_all_answered(tmp_path: Path) -> None:
    with serving(tmp_path) as served, ThreadPoolExecutor(4) as pool:
        chat = openai.OpenAI(base_url=served.base_url, api_key=served.key, timeout=300)
        messages = anthropic.Anthropic(
            base_url=served.base_url.removesuffix("/v1"), api_key=served.key, timeout=300
        )

        def by_openai(_: int) -> str:
            reply = chat.chat.completions.create(
                model="local", messages=[{"role": "user", "content": QUESTION}], max_tokens=8
            )
            assert reply.choices[0].finish_reason in ("stop", "length")
            return reply.choices[0].message.content or ""

        def by_anthropic(_: int) -> str:
            reply = messages.messages.create(
                model="local", max_tokens=8, messages=[{"role": "user", "content": QUESTION}]
            )
            return "".join(b.text for b in reply.content if b.type == "text")

        asks = [pool.submit(by_openai, 0), pool.submit(by_anthropic, 1), pool.submit(by_openai, 2)]
        answers = [ask.result() for ask in asks]
    assert all(answer.strip() for answer in answers), answers
    assert ANSWER not in answers  # the bundled model's words, not the scripted default's
