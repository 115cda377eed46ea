"""``parley serve`` answering the official ``anthropic`` SDK, as a script pointed at it does:
the same scripted answer whole and streamed (Anthropic's events, in their order), the system
prompt as a string or as blocks, no key refused, and bad requests refused with Anthropic's
error shape while the server stays up."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx
import pytest

from tests.server.harness import ANSWER, USAGE, Served, serving

ASK = [{"role": "user", "content": "Why are there tides?"}]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(tmp_path) as running:
        yield running


def client(served: Served, key: str | None = None) -> anthropic.Anthropic:
    """The official SDK pointed at the server (its base URL is the server's root)."""
    root = served.base_url.removesuffix("/v1")
    return anthropic.Anthropic(base_url=root, api_key=key or served.key, max_retries=0)


def test_the_same_scripted_answer_whole_and_streamed(served: Served) -> None:
    with client(served) as api:
        whole = api.messages.create(model="parley", max_tokens=200, messages=ASK)
        assert whole.type == "message"
        assert whole.role == "assistant"
        assert [(b.type, getattr(b, "text", None)) for b in whole.content] == [("text", ANSWER)]
        assert whole.stop_reason == "end_turn"
        assert (whole.usage.input_tokens, whole.usage.output_tokens) == (
            USAGE["prompt_tokens"],
            USAGE["completion_tokens"],
        )

        with api.messages.stream(model="parley", max_tokens=200, messages=ASK) as stream:
            pieces = list(stream.text_stream)
            final = stream.get_final_message()
        assert "".join(pieces) == ANSWER
        assert len(pieces) > 1  # it came in pieces
        assert final.content[0].type == "text"
        assert final.content[0].text == ANSWER
        assert final.stop_reason == "end_turn"
        assert (final.usage.input_tokens, final.usage.output_tokens) == (
            USAGE["prompt_tokens"],
            USAGE["completion_tokens"],
        )


def test_the_streamed_events_come_in_anthropics_order(served: Served) -> None:
    with client(served) as api:
        events = list(
            api.messages.create(model="parley", max_tokens=200, messages=ASK, stream=True)
        )
    kinds = [e.type for e in events]
    deltas = kinds.count("content_block_delta")
    assert kinds == [
        "message_start",
        "content_block_start",
        *["content_block_delta"] * deltas,
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert deltas > 1
    texts = [e.delta.text for e in events if e.type == "content_block_delta"]
    assert "".join(texts) == ANSWER
    last = events[-2]
    assert last.type == "message_delta"
    assert last.delta.stop_reason == "end_turn"
    assert last.usage.output_tokens == USAGE["completion_tokens"]


@pytest.mark.parametrize(
    "system",
    ["You answer in one sentence.", [{"type": "text", "text": "You answer in one sentence."}]],
)
def test_the_system_prompt_is_taken_as_a_string_or_as_blocks(
    served: Served, system: object
) -> None:
    with client(served) as api:
        reply = api.messages.create(
            model="parley",
            max_tokens=200,
            system=system,
            messages=ASK,
        )
    assert reply.content[0].type == "text"
    assert reply.content[0].text == ANSWER


def test_no_key_and_a_wrong_key_are_refused_in_anthropics_shape(served: Served) -> None:
    raw = httpx.post(
        f"{served.base_url}/messages",
        json={"model": "parley", "max_tokens": 10, "messages": ASK},
    )
    assert raw.status_code == 401
    assert raw.json()["type"] == "error"
    assert raw.json()["error"]["type"] == "authentication_error"
    assert "parley serve keys add NAME" in raw.json()["error"]["message"]

    with (
        client(served, "pk-not-a-key") as api,
        pytest.raises(anthropic.AuthenticationError) as wrong,
    ):
        api.messages.create(model="parley", max_tokens=10, messages=ASK)
    assert wrong.value.status_code == 401
    assert isinstance(wrong.value.body, dict)
    assert wrong.value.body["error"]["type"] == "authentication_error"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"model": "parley", "messages": ASK}, "max_tokens is missing"),
        ({"model": "parley", "max_tokens": 0, "messages": ASK}, "max_tokens must be"),
        ({"model": "parley", "max_tokens": "9", "messages": ASK}, "max_tokens must be"),
        ({"model": "parley", "max_tokens": 10}, "messages is missing"),
        ({"max_tokens": 10, "messages": ASK}, "model is missing"),
        ({"model": "gpt-4o", "max_tokens": 10, "messages": ASK}, "There is no model 'gpt-4o'"),
        (
            {"model": "parley", "max_tokens": 10, "messages": [{"role": "system", "content": "x"}]},
            "messages[0].role must be user or assistant",
        ),
        (
            {"model": "parley", "max_tokens": 10, "messages": ASK, "system": 7},
            "system must be a string or a list of text blocks",
        ),
        (
            {
                "model": "parley",
                "max_tokens": 10,
                "messages": [{"role": "user", "content": [{"type": "image"}]}],
            },
            "messages[0].content[0] has no base64 source",
        ),
        (
            {
                "model": "parley",
                "max_tokens": 10,
                "messages": [{"role": "user", "content": [{"type": "document"}]}],
            },
            "messages[0].content[0] is 'document'",
        ),
        (
            {"model": "parley", "max_tokens": 10, "messages": ASK, "tools": {"name": "now"}},
            "tools must be a list of tools",
        ),
        ([1, 2], "The request body must be a JSON object"),
    ],
)
def test_bad_requests_get_anthropics_error(served: Served, body: object, said: str) -> None:
    headers = {"x-api-key": served.key, "content-type": "application/json"}
    refused = httpx.post(f"{served.base_url}/messages", content=json.dumps(body), headers=headers)
    assert refused.status_code == 400
    shape = refused.json()
    assert set(shape) == {"type", "error"}
    assert shape["type"] == "error"
    assert shape["error"]["type"] == "invalid_request_error"
    assert shape["error"]["message"].startswith(said)
    assert shape["error"]["message"].endswith(".")


def test_malformed_json_is_refused_and_the_sdk_reads_the_next_answer(served: Served) -> None:
    bad = httpx.post(
        f"{served.base_url}/messages",
        content=b'{"model": "parley", "max_tok',
        headers={"x-api-key": served.key, "content-type": "application/json"},
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["message"].startswith("The request body is not valid JSON")
    with client(served) as api:
        with pytest.raises(anthropic.BadRequestError) as unknown:
            api.messages.create(model="gpt-4o", max_tokens=10, messages=ASK)
        assert isinstance(unknown.value.body, dict)
        assert unknown.value.body["error"]["type"] == "invalid_request_error"
        reply = api.messages.create(model="parley", max_tokens=200, messages=ASK)
    assert reply.content[0].type == "text"
    assert reply.content[0].text == ANSWER
