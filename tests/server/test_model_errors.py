"""A model that fails while answering: the client reads the model's sentence in OpenAI's
error shape, whole or streamed, and the server answers the next request."""

from __future__ import annotations

import asyncio
from pathlib import Path

import openai
import pytest

from app.core.models.scripted import ScriptedChatModel
from app.services.network import saved_connections
from tests.server.harness import OneModel, serving

FAILURE = "the model's server went away"
ASK = [{"role": "user", "content": "Why are there tides?"}]


def test_a_failing_model_is_an_error_the_client_reads_and_the_next_answer_comes(
    tmp_path: Path,
) -> None:
    model = ScriptedChatModel([{"error": FAILURE}, {"error": FAILURE}, {"text": "Moon."}])
    with serving(tmp_path, models=OneModel(model)) as served:
        api = openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)
        with api:
            with pytest.raises(openai.InternalServerError) as whole:
                api.chat.completions.create(model="parley", messages=ASK)
            assert whole.value.message == f"Error code: 500 - {FAILURE}"
            assert whole.value.code == "model_error"

            with pytest.raises(openai.APIError) as streamed:
                list(api.chat.completions.create(model="parley", messages=ASK, stream=True))
            assert streamed.value.message == FAILURE

            after = api.chat.completions.create(model="parley", messages=ASK)
            assert after.choices[0].message.content == "Moon."
    rows = asyncio.run(saved_connections(served.data_dir, limit=10))
    outcomes = [r.purpose.rpartition(": ")[2] for r in reversed(rows) if r.kind == "request"]
    assert outcomes == ["failed (500)", "failed", "answered"]
