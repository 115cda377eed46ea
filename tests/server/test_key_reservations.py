"""Requests of one key sent at the same time cannot pass its daily limit together, with the
official ``openai`` SDK against a real ``parley serve``: each holds what it may use of the
key's day before it runs, so while one is answered the others that would not fit are
refused (429, saying why and when to try again); what it held is given back when it ends,
so the next request answers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import openai

from app.core.models.scripted import ScriptedChatModel
from app.services.key_usage import KeyUsage
from app.services.server_keys import ServerKeys
from tests.server.harness import ANSWER, USAGE, OneModel, Served, serving

ASK = [{"role": "user", "content": "Why are there tides?"}]
SPENT = USAGE["prompt_tokens"] + USAGE["completion_tokens"]  # 38 a reply


def _slow_model() -> ScriptedChatModel:
    """The scripted answer, four characters every 50 ms (about a second a reply)."""
    return ScriptedChatModel([{"text": ANSWER, "usage": USAGE}] * 10, chunk_size=4, delay=0.05)


async def _ask_at_once(served: Served, how_many: int) -> list[str | openai.RateLimitError]:
    """Send ``how_many`` requests at the same time (half of them streamed): each one's
    answer, or its refusal."""
    api = openai.AsyncOpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)

    async def one(n: int) -> str | openai.RateLimitError:
        try:
            if n % 2:
                stream = await api.chat.completions.create(
                    model="parley", messages=ASK, max_tokens=20, stream=True
                )
                return "".join([c.choices[0].delta.content or "" async for c in stream])
            reply = await api.chat.completions.create(model="parley", messages=ASK, max_tokens=20)
            return reply.choices[0].message.content or ""
        except openai.RateLimitError as exc:
            return exc

    async with api:
        return list(await asyncio.gather(*(one(n) for n in range(how_many))))


def test_requests_at_once_cannot_pass_a_keys_daily_limit_together(tmp_path: Path) -> None:
    with serving(tmp_path, models=OneModel(_slow_model()), daily_tokens=50) as served:
        outcomes = asyncio.run(_ask_at_once(served, 4))
        answered = [o for o in outcomes if isinstance(o, str)]
        refused = [o for o in outcomes if isinstance(o, openai.RateLimitError)]
        assert answered == [ANSWER]
        assert len(refused) == 3
        for refusal in refused:
            assert refusal.code == "daily_token_limit"
            assert refusal.response.headers["retry-after"] == "2"
            assert isinstance(refusal.body, dict)
            assert refusal.body["message"].startswith(
                "The key ci-bot has 50 of its 50 tokens for today left, and its requests "
                "still being answered hold "
            )
            assert refusal.body["message"].endswith(
                "Try again when they end, or ask for a shorter reply (max_tokens)."
            )
        usage = KeyUsage(served.data_dir, ServerKeys(served.data_dir))
        assert usage.today() == {"ci-bot": SPENT}

        # what the answered request held was given back: the next one answers alone
        with openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as api:
            reply = api.chat.completions.create(model="parley", messages=ASK)
        assert reply.choices[0].message.content == ANSWER
        assert usage.today() == {"ci-bot": 2 * SPENT}
