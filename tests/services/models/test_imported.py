"""The check an import makes of a thread's model: only what the user set up is kept."""

from __future__ import annotations

import pytest

from app.services.models.imported import imported_model_check
from app.services.settings import AppSettings

SETTINGS = AppSettings(
    default_model="local",
    ollama_url="http://127.0.0.1:11434",
    endpoints=["openai:qwen@http://192.168.1.5:8080/v1"],
)
INSTALLED = ["gguf:/data/models/qwen2.5-0.5b.gguf", "download:smollm2"]


@pytest.mark.parametrize(
    "spec",
    [
        "gguf:/data/models/qwen2.5-0.5b.gguf",
        "gguf:/data/models/./qwen2.5-0.5b.gguf",
        "openai:qwen@http://192.168.1.5:8080/v1",
        "openai:qwen@192.168.1.5:8080/v1/",
        "ollama:llava@127.0.0.1:11434",
    ],
)
def test_downloaded_models_and_added_endpoints_are_kept(spec: str) -> None:
    assert imported_model_check(SETTINGS, INSTALLED)(spec) == (spec, None)


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("openai:qwen@http://192.168.1.5:8081/v1", "it talks to the server"),
        ("openai:other@http://[::1", "it talks to the server 'http://[::1'"),
        ("ollama:llava@https://127.0.0.1:11434", "it talks to the server"),
        ("gguf:/data/models/../../etc/passwd.gguf", "it reads the file"),
        ("download:smollm2", "it is not a model spec this Parley knows"),
        ("ollama:x@" + "h" * 500, "…"),
    ],
)
def test_anything_else_falls_back_to_the_default_and_says_why(spec: str, why: str) -> None:
    kept, note = imported_model_check(SETTINGS, INSTALLED)(spec)
    assert kept == "local"
    assert note is not None and why in note and len(note) < 500 and "\n" not in note
    assert note.endswith(
        "The thread uses the default model (local) until you pick another in the model picker."
    )


def test_an_imported_model_address_with_a_password_is_dropped_and_not_repeated() -> None:
    spec = "openai:qwen@http://alice:hunter2secret@192.168.1.5:8080/v1"
    kept, note = imported_model_check(SETTINGS, INSTALLED)(spec)
    assert kept == "local"
    assert note is not None and note.startswith(
        "The thread's model 'openai:qwen@http://192.168.1.5:8080/v1' was not kept: its address "
        "holds a user name or password, which Parley never keeps."
    )
