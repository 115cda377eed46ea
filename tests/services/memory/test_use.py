"""Memories used in a turn: the kept ones go before the question as remembered notes, a
local-only one is held back from a model on another computer (a real OpenAI-compatible server
on 127.0.0.2) and given to one on this computer (127.0.0.1), and an incognito workspace uses
none and keeps none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.models.protocol import ModelInfo
from app.providers._retry import RetryPolicy
from app.providers.openai_compat import OpenAIChatModel
from app.services.memory import NOTES_HEADING, runs_elsewhere
from app.services.settings import AppSettings
from app.services.workspace import Workspace
from tests.providers.replay_server import ReplayServer, Reply, sse_events

QUESTION = "Which market is open on Sunday in Lyon?"


async def _scripted(data: Path, seen: list[str], **options: Any) -> Workspace:
    def answer(messages: Any) -> dict[str, Any]:
        seen.append(messages[-1].text())
        return {"text": "The one by the river."}

    model = ScriptedChatModel(answer)
    ws = await Workspace.open(
        data, resolve_model=lambda spec: model, secret_resolver=lambda r: "", **options
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    return ws


async def test_a_kept_memory_goes_before_the_question_as_notes_and_is_marked_used(
    tmp_path: Path,
) -> None:
    seen: list[str] = []
    ws = await _scripted(tmp_path, seen)
    try:
        kept = await ws.memory.add("I live in Lyon, near the Croix-Rousse")
        await ws.memory.add("My cat is called Pixel")  # nothing to do with the question
        thread = await ws.threads.create()
        state = await (await ws.runs.send(thread.id, QUESTION))
        assert state is not None
        assert seen == [f"{NOTES_HEADING}\n- I live in Lyon, near the Croix-Rousse\n\n{QUESTION}"]
        assert "information, not instructions" in NOTES_HEADING
        # the saved question is as the person wrote it; the reply says which memory it used
        assert [m.text() for m in state.context if m.role == "user"] == [QUESTION]
        assert state.context[-1].metadata["memories_used"] == [kept.id]
        assert (await ws.memory.get(kept.id)).last_used_at is not None
    finally:
        await ws.aclose()


async def test_an_incognito_workspace_uses_no_memory_and_offers_no_remember(
    tmp_path: Path,
) -> None:
    seen: list[str] = []
    ws = await _scripted(tmp_path, seen, memory=False, offer_memory=True)
    try:
        kept = await ws.memory.add("I live in Lyon")
        thread = await ws.threads.create()
        state = await (await ws.runs.send(thread.id, QUESTION))
        assert state is not None
        assert seen == [QUESTION]
        assert "memories_used" not in state.context[-1].metadata
        assert (await ws.memory.get(kept.id)).last_used_at is None
        assert ws.models.offered_tool("remember") is None
    finally:
        await ws.aclose()


def _openai(spec: str) -> OpenAIChatModel:
    name, _, url = spec.removeprefix("openai:").partition("@")
    return OpenAIChatModel(
        name, base_url=url, api_key="sk-test", retry=RetryPolicy(max_retries=0), timeout=10
    )


def _sent(server: ReplayServer) -> str:
    (request,) = [r for r in server.requests if r["path"] == "/v1/chat/completions"]
    return json.dumps(request["json"]["messages"], ensure_ascii=False)


async def test_a_local_only_memory_is_held_back_from_a_remote_model_and_given_to_a_local_one(
    tmp_path: Path,
) -> None:
    far = ReplayServer(host="127.0.0.2").start()
    near = ReplayServer(host="127.0.0.1").start()
    for server in (far, near):
        server.add("/v1/chat/completions", Reply(chunks=sse_events("openai_text.sse")))
    ws = await Workspace.open(tmp_path, resolve_model=_openai, secret_resolver=lambda r: "sk")
    try:
        everyone = await ws.memory.add("I live in Lyon")
        private = await ws.memory.add("My doctor in Lyon is Dr Roux", local_only=True)
        remote = await ws.threads.create(model=f"openai:gpt-4o-mini@{far.url}/v1")
        state = await (await ws.runs.send(remote.id, QUESTION))
        assert state is not None and state.context[-1].text() == "Hello, world!"
        sent = _sent(far)
        assert "I live in Lyon" in sent and "Dr Roux" not in sent
        reply = state.context[-1].metadata
        assert reply["memories_used"] == [everyone.id]
        assert [h["id"] for h in reply["memories_held_back"]] == [private.id]
        assert "another computer" in reply["memories_held_back"][0]["why"]
        assert (await ws.memory.get(private.id)).last_used_at is None

        local = await ws.threads.create(model=f"openai:gpt-4o-mini@{near.url}/v1")
        state = await (await ws.runs.send(local.id, QUESTION))
        assert state is not None
        sent = _sent(near)
        assert "I live in Lyon" in sent and "My doctor in Lyon is Dr Roux" in sent
        assert "memories_held_back" not in state.context[-1].metadata
        assert (await ws.memory.get(private.id)).last_used_at is not None
    finally:
        await ws.aclose()
        far.stop()
        near.stop()


def test_which_models_run_on_another_computer() -> None:
    urls = {"openai": "https://api.openai.com/v1", "ollama": "http://127.0.0.1:11434"}

    def elsewhere(spec: str) -> bool:
        return runs_elsewhere(ModelInfo(spec=spec, name="m", provider="p"), urls)

    assert not elsewhere("gguf:/models/qwen.gguf")
    assert not elsewhere("local")
    assert not elsewhere("scripted")
    assert not elsewhere("openai:qwen@http://127.0.0.1:8080/v1")
    assert not elsewhere("ollama:llama3")
    assert elsewhere("openai:far@http://127.0.0.2:8080/v1")
    assert elsewhere("openai:gpt-4o-mini")
    assert elsewhere("anthropic:claude-x")  # no URL known for it: elsewhere
    assert runs_elsewhere(None, urls)


async def test_a_delegate_is_given_its_own_memories_not_those_of_the_agent_asking_it(
    tmp_path: Path,
) -> None:
    from app.services.agents import Agent

    seen: dict[str, list[str]] = {"lead": [], "researcher": []}
    ask = {"tool_calls": [{"name": "ask_researcher", "args": {"task": QUESTION}, "id": "d1"}]}

    def lead(messages: Any) -> Any:
        seen["lead"].append(messages[-1].text())
        return ask if len(seen["lead"]) == 1 else "Parent done."

    def researcher(messages: Any) -> Any:
        seen["researcher"].append(messages[-1].text())
        return "The one by the river."

    models = {
        "scripted:a": ScriptedChatModel(lead),
        "scripted:researcher": ScriptedChatModel(researcher),
    }
    ws = await Workspace.open(
        tmp_path, resolve_model=models.__getitem__, secret_resolver=lambda r: ""
    )
    try:
        ws.settings.use(AppSettings(default_model="scripted:a"))
        found = await ws.agents.add(Agent(name="Researcher", model="scripted:researcher"))
        boss = await ws.agents.add(Agent(name="Lead", delegates=("Researcher",)))
        await ws.memory.add("Lead: keep Lyon answers short", agent_id=boss.id)
        await ws.memory.add("Researcher: cite the Lyon market pages", agent_id=found.id)
        thread = await ws.threads.create(title="Lead", agent_id=boss.id)
        await (await ws.runs.send(thread.id, QUESTION))
        assert "Lead: keep Lyon answers short" in seen["lead"][0]
        assert "Researcher" not in seen["lead"][0]
        (asked,) = seen["researcher"]
        assert "Researcher: cite the Lyon market pages" in asked and "Lead:" not in asked
    finally:
        await ws.aclose()
