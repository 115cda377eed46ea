"""The window's service: pages of messages, typed events, per-thread models, refusals that
send nothing, deleting one message, and what the model picker is offered."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.errors import ModelConnectionError, UserError
from app.core.models import ScriptedChatModel
from app.core.netgate import GATE, install
from app.core.state import AgentState, Message
from app.services.events import (
    MessageAdded,
    MessageStreamed,
    RunStatusChanged,
    WorkspaceEvent,
)
from app.services.models.choices import list_model_choices
from app.services.problems import remedies_for
from app.services.runs import ThreadBusy
from app.services.settings import AppSettings, load_settings, save_settings
from app.services.workspace import Workspace


async def _open(tmp_path: Path, scripts: dict[str, list[Any]], delay: float = 0.0) -> Workspace:
    models = {spec: ScriptedChatModel(s, delay=delay) for spec, s in scripts.items()}

    def resolve(spec: str) -> Any:
        if spec not in models:
            raise UserError(f"unknown model {spec!r}")
        return models[spec]

    ws = await Workspace.open(tmp_path, resolve_model=resolve, secret_resolver=lambda r: "")
    ws.settings.use(AppSettings(default_model=next(iter(scripts))))
    return ws


async def test_pages_come_newest_first_and_older_on_demand(tmp_path: Path) -> None:
    ws = await _open(tmp_path, {"scripted:a": []})
    try:
        thread = await ws.threads.create(title="long")
        messages = [Message.text_message(f"m{i}") for i in range(250)]
        await ws._store.checkpointer.aput(
            Checkpoint(thread.id, new_checkpoint_id(), None, 0, AgentState(context=messages)),
            None,
        )
        newest = await ws.threads.read_messages(thread.id, limit=100)
        assert [m.text() for m in newest.messages] == [f"m{i}" for i in range(150, 250)]
        assert newest.has_more
        older = await ws.threads.read_messages(thread.id, before=newest.first_position, limit=100)
        assert [m.text() for m in older.messages] == [f"m{i}" for i in range(50, 150)]
        oldest = await ws.threads.read_messages(thread.id, before=older.first_position, limit=100)
        assert [m.text() for m in oldest.messages] == [f"m{i}" for i in range(50)]
        assert not oldest.has_more
    finally:
        await ws.aclose()


async def test_a_turn_reports_typed_events_in_order(tmp_path: Path) -> None:
    ws = await _open(tmp_path, {"scripted:a": [{"text": "Hello there, friend."}]})
    events: list[WorkspaceEvent] = []
    ws.events.subscribe(events.append)
    try:
        thread = await ws.threads.create()
        state = await (await ws.runs.send(thread.id, "Hi"))
        assert state is not None and state.context[-1].text() == "Hello there, friend."
        kinds = [type(e).__name__ for e in events if not type(e).__name__.startswith("Threads")]
        assert kinds[0] == "MessageAdded" and kinds[1] == "RunStatusChanged"
        streamed = [e.message.text() for e in events if isinstance(e, MessageStreamed)]
        assert len(streamed) > 1 and streamed[-1] == "Hello there, friend."
        added = [e.message.text() for e in events if isinstance(e, MessageAdded)]
        assert added == ["Hi", "Hello there, friend."]
        statuses = [e.status for e in events if isinstance(e, RunStatusChanged)]
        assert statuses == ["running", "idle"]
        assert (await ws.threads.get(thread.id)).title == "Hi"
    finally:
        await ws.aclose()


async def test_a_busy_thread_refuses_a_second_send_but_another_thread_runs(tmp_path: Path) -> None:
    ws = await _open(
        tmp_path,
        {"scripted:a": [{"text": "slow " * 50}], "scripted:b": [{"text": "other"}]},
        delay=0.01,
    )
    try:
        one = await ws.threads.create()
        two = await ws.threads.create(model="scripted:b")
        task = await ws.runs.send(one.id, "first")
        with pytest.raises(ThreadBusy):
            await ws.runs.send(one.id, "second")
        other = await (await ws.runs.send(two.id, "meanwhile"))
        assert other is not None and other.context[-1].text() == "other"
        assert ws.runs.is_running(one.id)
        await task
        page = await ws.threads.read_messages(one.id)
        assert [m.text() for m in page.messages] == ["first", "slow " * 50]
    finally:
        await ws.aclose()


async def test_a_model_that_cannot_be_built_refuses_before_anything_is_saved(
    tmp_path: Path,
) -> None:
    ws = await _open(tmp_path, {"scripted:a": []})
    try:
        thread = await ws.threads.create(model="scripted:nope")
        with pytest.raises(UserError, match="unknown model"):
            await ws.runs.send(thread.id, "hello")
        assert (await ws.threads.read_messages(thread.id)).messages == []
    finally:
        await ws.aclose()


async def test_a_model_error_keeps_its_kind_and_remedy(tmp_path: Path) -> None:
    ws = await _open(tmp_path, {"scripted:a": [{"error": "the server went away"}]})
    try:
        thread = await ws.threads.create()
        state = await (await ws.runs.send(thread.id, "hi"))
        assert state is not None
        [error] = [b for b in state.context[-1].content if b.type == "error"]
        assert "the server went away" in error.error
        assert [r.action for r in remedies_for(error.code)] == ["retry"]
        assert [r.action for r in remedies_for("auth:openai/api-key")] == ["set_key", "retry"]
        assert remedies_for("auth:openai/api-key")[0].target == "openai/api-key"
        assert ModelConnectionError("x").code == "connection"
    finally:
        await ws.aclose()


async def test_deleting_a_message_keeps_the_rest(tmp_path: Path) -> None:
    ws = await _open(tmp_path, {"scripted:a": [{"text": "one"}, {"text": "two"}]})
    try:
        thread = await ws.threads.create()
        await (await ws.runs.send(thread.id, "first"))
        await (await ws.runs.send(thread.id, "second"))
        page = await ws.threads.read_messages(thread.id)
        await ws.threads.delete_message(thread.id, str(page.messages[1].message_id))
        after = await ws.threads.read_messages(thread.id)
        assert [m.text() for m in after.messages] == ["first", "second", "two"]
        with pytest.raises(UserError, match="no longer in the thread"):
            await ws.threads.delete_message(thread.id, str(page.messages[1].message_id))
    finally:
        await ws.aclose()


async def test_the_picker_says_which_models_cannot_be_reached(tmp_path: Path) -> None:
    async def refused(url: str) -> list[dict[str, Any]]:
        raise ModelConnectionError(f"Could not connect to Ollama at {url}. Check the server.")

    async def listed(url: str) -> list[dict[str, Any]]:
        return [{"name": "llama3.2"}]

    real = tmp_path / "tiny.gguf"
    real.write_bytes(b"GGUF")
    settings = AppSettings(
        gguf_files=[str(real), str(tmp_path / "gone.gguf")], endpoints=["anthropic:claude-x"]
    )
    choices = {c.spec: c for c in await list_model_choices(settings, refused)}
    assert choices["local"].available
    assert choices[f"gguf:{real}"].available
    assert not choices[f"gguf:{tmp_path / 'gone.gguf'}"].available
    assert choices[f"gguf:{tmp_path / 'gone.gguf'}"].detail == "file not found"
    assert not choices["ollama:"].available
    assert "not running" in choices["ollama:"].detail
    assert choices["anthropic:claude-x"].group == "Anthropic"
    up = {c.spec for c in await list_model_choices(settings, listed)}
    assert f"ollama:llama3.2@{settings.ollama_url}" in up

    async def hangs(url: str) -> list[dict[str, Any]]:
        await asyncio.sleep(30)
        return []

    slow = {c.spec: c for c in await list_model_choices(settings, hangs, wait_s=0.1)}
    assert not slow["ollama:"].available


def test_settings_survive_a_damaged_file(tmp_path: Path) -> None:
    save_settings(tmp_path, AppSettings(default_model="ollama:x", gguf_files=["/m.gguf"]))
    assert load_settings(tmp_path).default_model == "ollama:x"
    (tmp_path / "settings.json").write_text("{broken")
    assert load_settings(tmp_path) == AppSettings()
    assert [p.name.startswith("settings.json.damaged-") for p in tmp_path.iterdir()].count(
        True
    ) == 1


async def test_a_failure_inside_the_turn_is_kept_in_the_thread(tmp_path: Path) -> None:
    ws = await _open(tmp_path, {"scripted:a": []})  # the script is empty: the model fails
    try:
        thread = await ws.threads.create()
        await (await ws.runs.send(thread.id, "hello"))
        page = await ws.threads.read_messages(thread.id)
        assert [m.role for m in page.messages] == ["user", "assistant"]
        [error] = [b for b in page.messages[-1].content if b.type == "error"]
        assert "script" in error.error.lower()
        assert error.code == "model"
    finally:
        await ws.aclose()


async def test_offline_remote_models_are_greyed_out_and_local_ones_stay(tmp_path: Path) -> None:
    settings = AppSettings(
        endpoints=[
            "anthropic:claude-x",
            "openai:gpt-4o-mini",
            "openai:qwen@http://127.0.0.1:8080/v1",
            "openai:far@http://127.0.0.2:8080/v1",
        ]
    )
    install().offline = True
    try:
        choices = {c.spec: c for c in await list_model_choices(settings, None)}
    finally:
        GATE.offline = False
    for remote in (
        "anthropic:claude-x",
        "openai:gpt-4o-mini",
        "openai:far@http://127.0.0.2:8080/v1",
    ):
        assert not choices[remote].available
        assert choices[remote].detail == "offline: it is on another computer"
    assert choices["openai:qwen@http://127.0.0.1:8080/v1"].available
    assert choices["local"].available
    online = {c.spec: c for c in await list_model_choices(settings, None)}
    assert all(online[spec].available for spec in settings.endpoints)
