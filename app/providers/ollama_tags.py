""":func:`list_ollama_models`: the models an Ollama server has installed (``GET /api/tags``),
for a model picker.

The window lists them at start-up, so this asks with the standard library (a plain GET on a
worker thread, no proxy) instead of loading an HTTP client library that a session without
Ollama never needs.
"""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.error
from functools import cache
from typing import TYPE_CHECKING, Any

from app.providers._errors import (
    Endpoint,
    Failure,
    offline_failure,
    status_failure,
    to_model_error,
)

__all__ = ["DEFAULT_OLLAMA_URL", "MAX_TAGS_BYTES", "OllamaModelEntry", "list_ollama_models"]

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"

MAX_TAGS_BYTES = 8 * 1024 * 1024
"""The most of a model list read (a server sending more is answering something else)."""

if TYPE_CHECKING:
    from urllib.request import OpenerDirector


@cache
def _opener() -> OpenerDirector:
    """An opener that takes no proxy; ``urllib.request`` (with ``http.client`` and ``email``)
    loads with the first list read, in its worker thread, not with the window."""
    import urllib.request

    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


class OllamaModelEntry(dict[str, Any]):
    """One installed model as ``/api/tags`` describes it (``name``, ``size``, ``details``...)."""


def error_text(body: str) -> str:
    """The error an Ollama reply's body carries (its ``error`` field, or the body itself)."""
    try:
        data = json.loads(body)
    except ValueError:
        return body[:300]
    return str(data.get("error", body))[:300] if isinstance(data, dict) else body[:300]


def _get(url: str, wait_s: float) -> tuple[int, str]:
    try:
        with _opener().open(url, timeout=wait_s) as resp:
            return resp.status, resp.read(MAX_TAGS_BYTES + 1).decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read(64 * 1024).decode("utf-8", "replace")


def _failure(exc: BaseException) -> Failure | None:
    if isinstance(exc, urllib.error.URLError) and isinstance(exc.reason, BaseException):
        exc = exc.reason
    if isinstance(exc, TimeoutError | socket.timeout):
        return Failure("timeout", str(exc) or type(exc).__name__)
    if isinstance(exc, OSError):
        return Failure("connect", str(exc) or type(exc).__name__)
    return None


async def list_ollama_models(
    base_url: str = DEFAULT_OLLAMA_URL, *, wait_s: float = 5.0
) -> list[OllamaModelEntry]:
    """The models installed on an Ollama server, for a model picker (sorted by name)."""
    where = Endpoint("Ollama", base_url.rstrip("/"), "")
    if not where.url.startswith(("http://", "https://")):
        raise to_model_error(Failure("connect", "the address is not an http(s) URL"), where)
    try:
        status, text = await asyncio.to_thread(_get, where.url + "/api/tags", wait_s)
    except Exception as exc:
        failure = offline_failure(exc) or _failure(exc)
        if failure is None:
            raise
        raise to_model_error(failure, where) from exc
    if status >= 400:
        raise to_model_error(status_failure(status, error_text(text)), where)
    try:
        if len(text) > MAX_TAGS_BYTES:
            raise ValueError("too long")
        models = json.loads(text)["models"]
        entries = [OllamaModelEntry(m) for m in models]
    except (ValueError, KeyError, TypeError) as exc:
        raise to_model_error(Failure("request", f"unexpected reply: {text[:120]}"), where) from exc
    return sorted(entries, key=lambda m: str(m.get("name", "")))
