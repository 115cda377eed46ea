"""The settings service: real connections on 127.0.0.1, keys in a real keyring backend (or in
this session only when there is none, never in a file), rules, the audit log, limits, theme."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from keyring.backend import KeyringBackend

from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.services.settings import AppSettings, load_settings
from app.services.workspace import Workspace
from tests.services.memory_keyring import MemoryKeyring, shout
from tests.services.models_server import models_server

KEY = "sk-test-Preferences-marker-7f3a9c"


async def _open(tmp_path: Path, script: list[Any] | None = None) -> Workspace:
    model = ScriptedChatModel(script or [])
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda _s: model, secret_resolver=lambda _r: "", tools=[shout]
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    return ws


def _files_holding(root: Path, needle: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


async def test_connection_ok_names_the_server_and_its_models(tmp_path: Path) -> None:
    ws = await _open(tmp_path)
    try:
        with models_server() as url:
            await ws.preferences.set_url("ollama", url + "/")
            result = await ws.preferences.test_connection("ollama")
            assert result.ok
            assert result.text == f"Connected to Ollama at {url}: 2 models available."
            openai = await ws.preferences.test_connection("openai", url)
            assert openai.text == (
                f"Connected to the OpenAI-compatible server at {url}: 1 model available."
            )
        assert load_settings(tmp_path).ollama_url == url
    finally:
        await ws.aclose()


async def test_connection_failures_say_what_went_wrong(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    ws = await _open(tmp_path)
    try:
        with socket.socket() as s:  # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            closed = f"http://127.0.0.1:{s.getsockname()[1]}"
        refused = await ws.preferences.test_connection("ollama", closed)
        assert not refused.ok
        assert refused.text == (
            f"Could not connect to {closed}: nothing answered there. Is Ollama running?"
        )
        with models_server(key=KEY) as url:
            no_key = await ws.preferences.test_connection("anthropic", url)
            assert no_key.text == (
                f"Reached Anthropic at {url}, but no API key is set (HTTP 401). "
                "Set the key on the API keys page."
            )
            await ws.preferences.set_key("anthropic/api-key", KEY)
            assert (await ws.preferences.test_connection("anthropic", url)).text == (
                f"Connected to Anthropic at {url}: 3 models available."
            )
            wrong = await ws.preferences.test_connection("ollama", url + "/v1")
            assert "it does not look like Ollama" in wrong.text
        bad = await ws.preferences.test_connection("ollama", "localhost:11434")
        assert bad.text.startswith("Not tested: 'localhost:11434' is not a web address")
        with pytest.raises(UserError, match="is not a web address"):
            await ws.preferences.set_url("openai", "ftp://x")
    finally:
        await ws.aclose()


async def test_keys_go_to_the_keyring_masked_replaced_and_deleted(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    ws = await _open(tmp_path)
    try:
        assert await ws.preferences.keyring_message() == (
            False,
            "Keys are kept in the system keyring.",
        )
        where = await ws.preferences.set_key("openai/api-key", KEY)
        assert where == "Key saved in the system keyring."
        assert memory_keyring.items[("parley", "openai/api-key")] == KEY
        keys = {k.ref: k for k in await ws.preferences.keys()}
        assert keys["openai/api-key"].masked == "•" * 8 + KEY[-4:]
        assert KEY not in repr(keys)
        assert not keys["anthropic/api-key"].is_set
        await ws.preferences.set_key("openai/api-key", KEY + "2")
        assert memory_keyring.items[("parley", "openai/api-key")] == KEY + "2"
        await ws.preferences.delete_key("openai/api-key")
        assert ("parley", "openai/api-key") not in memory_keyring.items
        with pytest.raises(UserError, match="cannot be empty"):
            await ws.preferences.set_key("openai/api-key", "  ")
    finally:
        await ws.aclose()
    assert _files_holding(tmp_path, KEY) == []


async def test_without_a_keyring_keys_live_for_the_session_and_never_in_a_file(
    tmp_path: Path, no_keyring: KeyringBackend
) -> None:
    ws = await _open(tmp_path)
    try:
        session_only, text = await ws.preferences.keyring_message()
        assert session_only
        assert text.startswith("Keys are kept for this session only: no system keyring")
        where = await ws.preferences.set_key("anthropic/api-key", KEY)
        assert where == "Key kept for this session only: no system keyring is available."
        keys = {k.ref: k for k in await ws.preferences.keys()}
        assert keys["anthropic/api-key"].is_set
        await ws.preferences.set_theme("dark")  # something is written to the data dir
    finally:
        await ws.aclose()
    assert (tmp_path / "settings.json").exists()
    assert _files_holding(tmp_path, KEY) == []


async def test_revoking_a_rule_makes_the_next_call_ask_again(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "shout", "args": {"text": "hi"}}]}
    ws = await _open(tmp_path, [call, {"text": "said HI"}, call, {"text": "said HI again"}, call])
    try:
        thread = await ws.threads.create(title="Loud")
        await (await ws.runs.send(thread.id, "shout hi"))
        pending = await ws.runs.pending_approvals(thread.id)
        request = pending[0].requests[0]
        answer = {
            request.call_id: {
                "decision": "always",
                "scope": "tool",
                "tool": request.tool,
                "fingerprint": request.fingerprint,
                "thread_id": thread.id,
            }
        }
        await (await ws.runs.answer(thread.id, {pending[0].interrupt_id: answer}))
        rules = await ws.preferences.rules()
        assert [(r.tool, r.thread_id) for r in rules] == [("shout", None)]
        await (await ws.runs.send(thread.id, "again"))  # runs unasked under the rule
        assert await ws.runs.pending_approvals(thread.id) == []
        await ws.preferences.revoke_rule("shout", None)
        assert await ws.preferences.rules() == []
        await (await ws.runs.send(thread.id, "once more"))
        assert [r.tool for r in (await ws.runs.pending_approvals(thread.id))[0].requests] == [
            "shout"
        ]
        audit = await ws.preferences.audit()
        assert [(r.decision, r.scope) for r in audit][:2] == [
            ("requested", "once"),
            ("allowed_by_rule", "once"),
        ]
        assert {r.thread_title for r in audit} == {"Loud"}
        assert [r.decision for r in await ws.preferences.audit(decision="always")] == ["always"]
        assert await ws.preferences.audit("no such thing") == []
        assert len(await ws.preferences.audit("loud", tool="shout")) == len(audit)
        with pytest.raises(UserError, match="no always-allow rule for shout"):
            await ws.preferences.revoke_rule("shout", None)
    finally:
        await ws.aclose()


async def test_default_limits_and_theme_are_saved(tmp_path: Path) -> None:
    ws = await _open(tmp_path)
    try:
        limits = await ws.preferences.set_default_limits(max_model_calls=5, max_cost=None)
        assert limits.max_model_calls == 5
        assert load_settings(tmp_path).default_limits.max_model_calls == 5
        with pytest.raises(UserError, match="more than 0"):
            await ws.preferences.set_default_limits(max_tool_calls=0)
        await ws.preferences.set_theme("light")
        assert load_settings(tmp_path).theme == "light"
        with pytest.raises(UserError, match="the theme must be one of system, light, dark"):
            await ws.preferences.set_theme("pink")
    finally:
        await ws.aclose()
