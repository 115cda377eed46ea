"""One way to build each HTTP adapter against the replay server, for tests run on all three."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.providers._retry import RetryPolicy
from app.providers.anthropic_api import AnthropicChatModel
from app.providers.ollama import OllamaChatModel
from app.providers.openai_compat import OpenAIChatModel
from tests.providers.replay_server import lines, sse_events


@dataclass(frozen=True)
class Kit:
    """How to talk to one provider through the replay server."""

    name: str
    path: str
    text_fixture: Callable[[], list[bytes]]
    content_type: str
    make: Callable[[str, RetryPolicy, float], Any]
    expected_text: str
    malformed: bytes


def _openai(url: str, retry: RetryPolicy, timeout: float) -> OpenAIChatModel:
    return OpenAIChatModel(
        "gpt-4o-mini", base_url=f"{url}/v1", api_key="sk-test", retry=retry, timeout=timeout
    )


def _anthropic(url: str, retry: RetryPolicy, timeout: float) -> AnthropicChatModel:
    return AnthropicChatModel(
        "claude-sonnet-4-6", api_key="sk-ant-test", base_url=url, retry=retry, timeout=timeout
    )


def _ollama(url: str, retry: RetryPolicy, timeout: float) -> OllamaChatModel:
    return OllamaChatModel("llama3.2", base_url=url, retry=retry, timeout=timeout)


KITS = [
    Kit(
        "openai", "/v1/chat/completions", lambda: sse_events("openai_text.sse"),
        "text/event-stream", _openai, "Hello, world!", b"data: {not json\n\n",
    ),
    Kit(
        "anthropic", "/v1/messages", lambda: sse_events("anthropic_text.sse"),
        "text/event-stream", _anthropic, "Hello there!",
        b"event: content_block_delta\ndata: {oops\n\n",
    ),
    Kit(
        "ollama", "/api/chat", lambda: lines("ollama_text.ndjson"),
        "application/x-ndjson", _ollama, "Hello, world!", b"{truncated json\n",
    ),
]  # fmt: skip
