"""A key's daily tokens through ``parley serve``, with the official ``openai`` and
``anthropic`` SDKs: each reply's tokens (in and out, whole or streamed) count for the key
that asked; once its day's tokens are used, its next request is refused (429, in the API's
own shape, saying when it can ask again) and nothing runs, while another key still
answers; ``parley serve keys list`` shows each key's use and limit."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import anthropic
import httpx
import openai
import pytest

from app.services.network import saved_connections
from tests.server.harness import ANSWER, USAGE, run_parley, serving

ASK = [{"role": "user", "content": "Why are there tides?"}]
SPENT = USAGE["prompt_tokens"] + USAGE["completion_tokens"]  # 38 a reply
REFUSAL = re.compile(
    r"The key ci-bot has used its 50 tokens for today \(76\); it can ask again after "
    r"midnight, local time \(in (\d+ h )?\d+ min\)\."
)


def test_a_key_over_its_daily_tokens_is_refused_until_midnight(tmp_path: Path) -> None:
    with serving(tmp_path, daily_tokens=50) as served:
        api = openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)
        with api:
            assert api.chat.completions.create(model="parley", messages=ASK).choices
            streamed = api.chat.completions.create(
                model="parley", messages=ASK, stream=True, stream_options={"include_usage": True}
            )
            assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == (
                ANSWER
            )
            with pytest.raises(openai.RateLimitError) as refused:
                api.chat.completions.create(model="parley", messages=ASK)
        assert refused.value.status_code == 429
        assert refused.value.code == "daily_token_limit"
        assert isinstance(refused.value.body, dict)
        assert REFUSAL.fullmatch(refused.value.body["message"])
        assert int(refused.value.response.headers["retry-after"]) <= 24 * 3600

        root = served.base_url.removesuffix("/v1")
        claude = anthropic.Anthropic(base_url=root, api_key=served.key, max_retries=0)
        with claude, pytest.raises(anthropic.RateLimitError) as also:
            claude.messages.create(model="parley", max_tokens=99, messages=ASK)
        assert isinstance(also.value.body, dict)
        assert also.value.body["type"] == "error"
        assert also.value.body["error"]["type"] == "rate_limit_error"
        assert REFUSAL.fullmatch(also.value.body["error"]["message"])

        # listing the models costs no tokens; another key has its own day
        listed = httpx.get(f"{served.base_url}/models", headers={"x-api-key": served.key})
        assert listed.status_code == 200
        code, other, _ = run_parley(
            "serve", "keys", "add", "editor", "--data-dir", str(served.data_dir)
        )
        assert code == 0
        with openai.OpenAI(base_url=served.base_url, api_key=other.strip(), max_retries=0) as api:
            reply = api.chat.completions.create(model="parley", messages=ASK)
            assert reply.choices[0].message.content == ANSWER

        code, out, err = run_parley("serve", "keys", "list", "--data-dir", str(served.data_dir))
        assert (code, err) == (0, "")
        assert out == (
            "ci-bot: 76 of 50 tokens used today\n"
            f"editor: {SPENT} tokens used today (no daily limit)\n"
        )
    # nothing ran for the refused requests: no model, no tokens in their rows
    rows = asyncio.run(saved_connections(served.data_dir, limit=50))
    refused_rows = [r.purpose for r in reversed(rows) if r.purpose.endswith("refused (429)")]
    assert refused_rows == [
        "API request /v1/chat/completions by key ci-bot: refused (429)",
        "API request /v1/messages by key ci-bot: refused (429)",
    ]


def test_a_daily_limit_must_be_a_number_of_tokens(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    with pytest.raises(SystemExit):
        run_parley("serve", "keys", "add", "ci-bot", "--daily-tokens", "0", "--data-dir", data)
    code, out, err = run_parley(
        "serve", "keys", "remove", "ci-bot", "--daily-tokens", "5", "--data-dir", data
    )
    assert (code, out, err) == (2, "", "--daily-tokens goes with parley serve keys add\n")
