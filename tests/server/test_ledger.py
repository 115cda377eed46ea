"""Every request ``parley serve`` receives is a row of the network ledger: when, from where,
the key's name, the model, the tokens and the outcome, and never what was asked or answered;
offline, this computer's clients are still answered."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anthropic
import httpx
import openai
import pytest

from app.core.models.scripted import ScriptedChatModel
from app.core.netgate import Connection
from app.server.app import make_app
from app.server.ledger import Inbound
from app.services.network import describe_connection, saved_connections
from tests.server.harness import ANSWER, OneModel, serving

QUESTION = "Why are there tides?"
ASK = [{"role": "user", "content": QUESTION}]


def requests_in_ledger(data_dir: Path) -> list[Connection]:
    """The ledger's rows for requests received, oldest first."""
    rows = asyncio.run(saved_connections(data_dir, limit=100))
    return [row for row in reversed(rows) if row.kind == "request"]


def test_each_request_is_a_ledger_row_without_its_content(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        with openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as api:
            whole = api.chat.completions.create(model="parley", messages=ASK)
            assert whole.choices[0].message.content == ANSWER
        root = served.base_url.removesuffix("/v1")
        claude = anthropic.Anthropic(base_url=root, api_key=served.key, max_retries=0)
        with claude, claude.messages.stream(model="parley", max_tokens=99, messages=ASK) as stream:
            assert "".join(stream.text_stream) == ANSWER
        assert httpx.get(f"{served.base_url}/models").status_code == 401
        unknown = httpx.post(
            f"{served.base_url}/chat/completions",
            json={"model": "gpt-4o", "messages": ASK},
            headers={"Authorization": f"Bearer {served.key}"},
        )
        assert unknown.status_code == 400
    # the server has stopped: its workspace wrote what was left of the ledger as it closed
    rows = requests_in_ledger(served.data_dir)
    assert [row.purpose for row in rows] == [
        "API request /v1/chat/completions by key ci-bot, model parley, 21 tokens in, 17 out: "
        "answered",
        "API request /v1/messages by key ci-bot, model parley, 21 tokens in, 17 out: answered",
        "API request /v1/models by no valid key: refused (401)",
        "API request /v1/chat/completions by key ci-bot, model gpt-4o: refused (400)",
    ]
    assert {(row.host, row.local, row.outcome) for row in rows} == {("127.0.0.1", True, "allowed")}
    assert "local   127.0.0.1:" in describe_connection(rows[0])
    assert describe_connection(rows[0]).endswith("answered  received")
    # neither the question nor the answer was kept anywhere in the database
    kept = b"".join(p.read_bytes() for p in served.data_dir.glob("parley.db*"))
    assert QUESTION.encode() not in kept
    assert ANSWER.encode() not in kept
    assert served.key.encode() not in kept


def test_offline_this_computers_clients_are_still_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_OFFLINE", "1")
    with serving(tmp_path) as served:
        with openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as api:
            whole = api.chat.completions.create(model="parley", messages=ASK)
        assert whole.choices[0].message.content == ANSWER
    rows = requests_in_ledger(served.data_dir)
    assert [(row.purpose.endswith(": answered"), row.outcome) for row in rows] == [
        (True, "allowed")
    ]


async def test_offline_a_client_on_another_computer_is_refused_in_each_apis_shape() -> None:
    rows: list[Inbound] = []
    model = ScriptedChatModel([{"text": ANSWER}] * 4)
    app = make_app(
        OneModel(model),
        lambda sent: "ci-bot" if sent == "pk-right" else None,
        record=rows.append,
        offline=lambda: True,
    )
    chat = {"model": "parley", "messages": ASK}
    messages = {"model": "parley", "max_tokens": 99, "messages": ASK}
    key = {"x-api-key": "pk-right"}
    far = httpx.AsyncClient(transport=httpx.ASGITransport(app, client=("192.0.2.7", 4000)))
    async with far:
        refused = await far.post("http://parley/v1/chat/completions", json=chat, headers=key)
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "offline"
        assert refused.json()["error"]["message"].startswith("Parley is offline, so it answers")
        refused = await far.post("http://parley/v1/messages", json=messages, headers=key)
        assert refused.status_code == 403
        assert refused.json()["error"]["type"] == "permission_error"
    near = httpx.AsyncClient(transport=httpx.ASGITransport(app, client=("127.0.0.1", 4001)))
    async with near:
        answered = await near.post("http://parley/v1/messages", json=messages, headers=key)
    assert answered.json()["content"][0]["text"] == ANSWER
    assert [(r.host, r.status, r.key, r.outcome) for r in rows] == [
        ("192.0.2.7", 403, None, "refused (403)"),
        ("192.0.2.7", 403, None, "refused (403)"),
        ("127.0.0.1", 200, "ci-bot", "answered"),
    ]
