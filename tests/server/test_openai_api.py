"""``parley serve`` answering the official ``openai`` SDK, as a script pointed at it does:
the models listed, the same scripted answer whole and streamed, keys refused when missing,
wrong or removed, and bad requests refused with OpenAI's error while the server stays up."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from app.server.app import MAX_BODY
from tests.server.harness import ANSWER, USAGE, Served, run_parley, serving


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path) as running:
        yield running


_OPEN: list[openai.OpenAI] = []


def client(served: Served, key: str | None = None) -> openai.OpenAI:
    """The official SDK pointed at the server, as a person's script points it."""
    made = openai.OpenAI(base_url=served.base_url, api_key=key or served.key, max_retries=0)
    _OPEN.append(made)
    return made


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def test_the_models_are_listed_with_the_default_as_parley(served: Served) -> None:
    models = list(client(served).models.list())
    # the default model as parley, then by its spec, then what the model picker lists
    assert [(m.id, m.owned_by) for m in models[:2]] == [
        ("parley", "parley"),
        (f"scripted:{served.script}", "scripted"),
    ]
    assert all(m.object == "model" for m in models)
    assert [m.id for m in models if m.owned_by == "agent"] == ["agent:Researcher"]
    # the catalogue's models to download are offered by the picker, but answer nothing yet
    assert [m.id for m in models if m.id.startswith("download:")] == []


def test_one_model_is_found_by_its_id(served: Served) -> None:
    spec = f"scripted:{served.script}"
    assert client(served).models.retrieve(spec).owned_by == "scripted"
    assert client(served).models.retrieve("parley").id == "parley"
    with pytest.raises(openai.NotFoundError) as missing:
        client(served).models.retrieve("gpt-4o")
    assert missing.value.code == "model_not_found"


def test_the_key_is_also_taken_as_x_api_key(served: Served) -> None:
    listed = httpx.get(f"{served.base_url}/models", headers={"x-api-key": served.key})
    assert listed.status_code == 200
    assert listed.json()["data"][0]["id"] == "parley"


def test_the_same_scripted_answer_whole_and_streamed(served: Served) -> None:
    ask = [{"role": "user", "content": "Why are there tides?"}]
    whole = client(served).chat.completions.create(model="parley", messages=ask)
    assert whole.choices[0].message.content == ANSWER
    assert whole.choices[0].finish_reason == "stop"
    assert whole.usage is not None
    assert whole.usage.model_dump(include=set(USAGE)) == USAGE

    stream = client(served).chat.completions.create(
        model="parley", messages=ask, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    pieces = [c.choices[0].delta.content or "" for c in chunks if c.choices]
    assert "".join(pieces) == ANSWER
    assert len([p for p in pieces if p]) > 1  # it came in pieces
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "stop"
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.model_dump(include=set(USAGE)) == USAGE


def test_a_model_named_by_its_spec_answers(served: Served) -> None:
    reply = client(served).chat.completions.create(
        model=f"scripted:{served.script}", messages=[{"role": "user", "content": "Tides?"}]
    )
    assert reply.choices[0].message.content == ANSWER


def test_no_key_a_wrong_key_and_a_removed_key_are_refused(served: Served) -> None:
    raw = httpx.get(f"{served.base_url}/models")
    assert raw.status_code == 401
    assert raw.json()["error"]["code"] == "missing_api_key"
    assert "parley serve keys add NAME" in raw.json()["error"]["message"]

    with pytest.raises(openai.AuthenticationError) as wrong:
        client(served, "pk-not-a-key").models.list()
    assert wrong.value.status_code == 401
    assert wrong.value.code == "invalid_api_key"

    ask = [{"role": "user", "content": "Why are there tides?"}]
    assert client(served).chat.completions.create(model="parley", messages=ask).choices
    code, out, err = run_parley(
        "serve", "keys", "remove", "ci-bot", "--data-dir", str(served.data_dir)
    )
    assert (code, out, err) == (0, "removed ci-bot: it no longer works\n", "")
    with pytest.raises(openai.AuthenticationError) as removed:
        client(served).chat.completions.create(model="parley", messages=ask)
    assert removed.value.code == "invalid_api_key"


def test_malformed_json_is_refused_and_the_next_request_answers(served: Served) -> None:
    headers = {"Authorization": f"Bearer {served.key}", "Content-Type": "application/json"}
    bad = httpx.post(
        f"{served.base_url}/chat/completions",
        content=b'{"model": "parley", "messa',
        headers=headers,
    )
    assert bad.status_code == 400
    error = bad.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request_error", "invalid_json")
    assert error["message"].startswith("The request body is not valid JSON")

    reply = client(served).chat.completions.create(
        model="parley", messages=[{"role": "user", "content": "Why are there tides?"}]
    )
    assert reply.choices[0].message.content == ANSWER


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"model": "parley"}, "missing_messages"),
        ({"model": "parley", "messages": []}, "missing_messages"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "missing_model"),
        ({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}, "model_not_found"),
        (
            {"model": "agent:Nobody", "messages": [{"role": "user", "content": "hi"}]},
            "model_not_found",
        ),
        ({"model": "parley", "messages": [{"role": "wizard", "content": "hi"}]}, "invalid_role"),
        ({"model": "parley", "messages": ["hi"]}, "invalid_message"),
        ({"model": "parley", "messages": [{"role": "user", "content": 7}]}, "invalid_content"),
        (
            {"model": "parley", "messages": [{"role": "tool", "content": "x"}]},
            "invalid_tool_result",
        ),
        (
            {"model": "parley", "messages": [{"role": "function", "content": "x"}]},
            "unsupported_role",
        ),
        (
            {"model": "parley", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
            "invalid_image",
        ),
        (
            {"model": "parley", "messages": [{"role": "user", "content": [{"type": "audio"}]}]},
            "unsupported_content",
        ),
        (
            {"model": "parley", "messages": [{"role": "user", "content": "hi"}], "n": 3},
            "invalid_value",
        ),
        (
            {"model": "parley", "messages": [{"role": "user", "content": "hi"}], "max_tokens": "9"},
            "invalid_value",
        ),
        (
            {"model": "parley", "messages": [{"role": "user", "content": "hi"}] * 1001},
            "too_many_messages",
        ),
        ([1, 2], "invalid_json"),
        (  # NaN is no JSON number, though Python writes and reads it
            {"model": "parley", "messages": [{"role": "user", "content": "hi"}], "seed": math.nan},
            "invalid_json",
        ),
        (
            {"model": "parley", "messages": [{"role": "user", "content": "a\ud800"}]},
            "invalid_content",
        ),
        (
            {
                "model": "parley",
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"type": "function", "function": {"name": "what time"}}],
            },
            "invalid_tool_name",
        ),
    ],
)
def test_bad_requests_get_openais_error(served: Served, body: dict[str, object], code: str) -> None:
    headers = {"Authorization": f"Bearer {served.key}", "Content-Type": "application/json"}
    sent = json.dumps(body)  # escaped as JSON allows, a lone surrogate too
    refused = httpx.post(f"{served.base_url}/chat/completions", content=sent, headers=headers)
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request_error", code)
    assert error["message"].endswith(".")


def test_the_sdk_reads_an_unknown_models_error(served: Served) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client(served).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
        )
    assert refused.value.code == "model_not_found"
    assert "GET /v1/models" in refused.value.message


def test_an_oversized_body_is_refused_and_the_server_stays_up(served: Served) -> None:
    huge = "tide " * (MAX_BODY // 5 + 1)  # just over 16 MB of text
    with pytest.raises(openai.APIStatusError) as refused:
        client(served).chat.completions.create(
            model="parley", messages=[{"role": "user", "content": huge}]
        )
    assert refused.value.status_code == 413
    assert refused.value.code == "body_too_large"
    assert refused.value.message == (
        "Error code: 413 - The request body is over 16,000,000 bytes, the most this server "
        "reads; send less."
    )
    reply = client(served).chat.completions.create(
        model="parley", messages=[{"role": "user", "content": "Why are there tides?"}]
    )
    assert reply.choices[0].message.content == ANSWER
