"""The provider registry: specs, model info and prices, keys through the lookup."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.models.scripted import ScriptedChatModel
from app.core.state.message import Message
from app.providers.anthropic_api import AnthropicChatModel
from app.providers.local import LlamaCppChatModel
from app.providers.ollama import OllamaChatModel
from app.providers.openai_compat import OpenAIChatModel
from app.services.models.registry import ModelRegistry, ModelSpec, parse_spec, resolve_model

KEYS = {"openai/api-key": "sk-openai", "anthropic/api-key": "sk-ant", "openai/h:1/api-key": "k2"}


def lookup(name: str) -> str | None:
    return KEYS.get(name)


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("local", ModelSpec("local", "local")),
        ("gguf:/m/x.gguf", ModelSpec("gguf", "/m/x.gguf")),
        ("ollama:llama3.2:1b", ModelSpec("ollama", "llama3.2:1b")),
        ("ollama:qwen3@http://box:11434/", ModelSpec("ollama", "qwen3", "http://box:11434")),
        ("openai:gpt-4o", ModelSpec("openai", "gpt-4o")),
        ("openai:m@http://127.0.0.1:8080/v1", ModelSpec("openai", "m", "http://127.0.0.1:8080/v1")),
        ("anthropic:claude-sonnet-4-6", ModelSpec("anthropic", "claude-sonnet-4-6")),
        ("scripted:demo.json", ModelSpec("scripted", "demo.json")),
    ],
)
def test_parse_spec(spec: str, parsed: ModelSpec) -> None:
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize("bad", ["", "gpt-4o", "cohere:x", "openai:", "ollama:m@"])
def test_bad_specs_name_the_accepted_forms(bad: str) -> None:
    with pytest.raises(UserError):
        parse_spec(bad)


@pytest.mark.parametrize(
    ("spec", "where"),
    [
        (
            "openai:gpt@http://alice:hunter2@10.0.0.5:8080/v1",
            "put the password in the keyring: parley key set openai/10.0.0.5:8080/api-key, "
            "and use 'openai:gpt@http://10.0.0.5:8080/v1'",
        ),
        (
            "openai:gpt@alice:hunter2@box:8080/v1",
            "put the password in the keyring: parley key set openai/box:8080/api-key, and use "
            "'openai:gpt@http://box:8080/v1'",
        ),
        (
            "ollama:qwen3@https://hunter2@box:11434",
            "Ollama takes no password, so leave it out, and use 'ollama:qwen3@https://box:11434'",
        ),
    ],
)
def test_a_password_in_a_model_address_is_refused_and_never_repeated(spec: str, where: str) -> None:
    with pytest.raises(UserError) as refused:
        parse_spec(spec)
    assert str(refused.value) == (
        "the model address holds a user name or password, which Parley never keeps in a model "
        f"spec; {where}"
    )
    assert "hunter2" not in str(refused.value)
    with pytest.raises(UserError, match="parley key set anthropic/api-key"):
        parse_spec("anthropic:claude@http://alice:hunter2@host")


def test_local_resolves_to_one_shared_bundled_model() -> None:
    registry = ModelRegistry(lookup)
    first = registry.resolve("local")
    assert isinstance(first, LlamaCppChatModel)
    assert first.path.name.endswith(".gguf")
    assert ModelRegistry(lookup).resolve("local") is first
    info = registry.info("local")
    assert info.provider == "llama.cpp" and info.price.input_per_mtok == 0
    assert info.input_kinds == frozenset({"text"})


def test_resolving_the_bundled_model_does_not_load_it() -> None:
    # In a process of its own: another test in this one may already have asked it to answer.
    code = (
        "from app.services.models.registry import ModelRegistry\n"
        "model = ModelRegistry(lambda name: None).resolve('local')\n"
        "print('loaded' if model.loaded else 'waiting')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "waiting", "loading waits for the first reply"


def test_gguf_paths_are_checked(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="The model missing is not downloaded"):
        ModelRegistry(lookup).resolve(f"gguf:{tmp_path}/missing.gguf")
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(UserError, match="not a .gguf file"):
        ModelRegistry(lookup).resolve(f"gguf:{tmp_path}/notes.txt")


def test_openai_models_carry_prices_and_the_key() -> None:
    registry = ModelRegistry(lookup)
    model = registry.resolve("openai:gpt-4o-mini-2024-07-18")
    assert isinstance(model, OpenAIChatModel)
    assert model._api_key == "sk-openai"
    info = model.info
    assert info.context_window == 128_000
    assert info.price.input_per_mtok == 0.15 and info.price.cache_read_per_mtok == 0.075
    assert "image" in info.input_kinds


def test_a_custom_base_url_never_gets_the_openai_key() -> None:
    registry = ModelRegistry(lookup)
    other = registry.resolve("openai:qwen@http://127.0.0.1:9/v1")
    assert isinstance(other, OpenAIChatModel)
    assert other._api_key != "sk-openai"
    assert other.info.price.input_per_mtok == 0
    named = registry.resolve("openai:qwen@http://h:1/v1")
    assert isinstance(named, OpenAIChatModel) and named._api_key == "k2"


def test_anthropic_and_ollama() -> None:
    registry = ModelRegistry(lookup)
    claude = registry.resolve("anthropic:claude-sonnet-4-6")
    assert isinstance(claude, AnthropicChatModel) and claude._api_key == "sk-ant"
    assert claude.info.price.cache_write_per_mtok > claude.info.price.input_per_mtok
    assert claude.info.context_window == 200_000
    assert "document" in claude.info.input_kinds
    ollama = registry.resolve("ollama:gemma3:4b")
    assert isinstance(ollama, OllamaChatModel)
    assert ollama.base_url == "http://127.0.0.1:11434"
    assert "image" in ollama.info.input_kinds
    assert "image" not in registry.info("ollama:llama3.2").input_kinds


async def test_scripted_models_play_their_file(tmp_path: Path) -> None:
    script = tmp_path / "demo.json"
    script.write_text(json.dumps(["Hello from the script."]))
    model = resolve_model(f"scripted:{script}", api_key_lookup=lookup)
    assert isinstance(model, ScriptedChatModel)
    reply = await model.agenerate([Message.text_message("hi")])
    assert reply.text() == "Hello from the script."


def test_openai_without_a_key_fails_before_any_connection() -> None:
    from app.core.errors import ModelAuthError
    from app.services.models.registry import resolve_model

    model = resolve_model("openai:gpt-4o-mini", api_key_lookup=lambda ref: None)
    with pytest.raises(ModelAuthError, match="openai/api-key"):
        model.astream([])


def test_a_server_address_without_a_scheme_is_plain_http() -> None:
    # "ollama:llama3.2@localhost:11434" is how people write an address; it must reach the server.
    assert parse_spec("ollama:llama3.2:1b@box:11434") == ModelSpec(
        "ollama", "llama3.2:1b", "http://box:11434"
    )
    model = ModelRegistry(lookup).resolve("openai:qwen@h:1/v1")
    assert isinstance(model, OpenAIChatModel)
    assert model.base_url == "http://h:1/v1"
    assert model._api_key == "k2", "the server's own key, looked up by its host"
