""" "Test connection": really ask a provider's server for its model list and say, in one
sentence, whether it answered, refused the key, or could not be reached."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlparse

from app.core.errors import UserError
from app.core.netgate import purpose, refusal_in
from app.core.quoting import quoted
from app.core.userinfo import has_userinfo, without_userinfo

__all__ = ["ConnectionResult", "Provider", "check_url", "probe_connection"]

Provider = Literal["ollama", "openai", "anthropic"]

NAMES: dict[Provider, str] = {
    "ollama": "Ollama",
    "openai": "the OpenAI-compatible server",
    "anthropic": "Anthropic",
}
TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class ConnectionResult:
    """Whether the server answered as expected, and a sentence for the user."""

    ok: bool
    text: str


def check_url(url: str) -> str:
    """``url`` trimmed, or :class:`UserError` when it is not an http(s) address."""
    clean = url.strip().rstrip("/")
    parsed = urlparse(clean)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise UserError(
            f"{url.strip() or 'an empty address'!r} is not a web address; "
            "it should look like http://127.0.0.1:11434"
        )
    if has_userinfo(clean):
        raise UserError(
            "the address holds a user name or password, which Parley never keeps in an "
            "address; put the key in the keyring (Settings > Keys, or parley key set) and use "
            f"{quoted(without_userinfo(clean))}"
        )
    return clean


def _request(provider: Provider, url: str, key: str | None) -> tuple[str, dict[str, str]]:
    if provider == "ollama":
        return f"{url}/api/tags", {}
    if provider == "anthropic":
        headers = {"anthropic-version": "2023-06-01"}
        if key:
            headers["x-api-key"] = key
        return f"{url}/v1/models", headers
    return f"{url}/models", ({"Authorization": f"Bearer {key}"} if key else {})


def _count(provider: Provider, body: Any) -> int | None:
    if not isinstance(body, dict):
        return None
    items = body.get("models") if provider == "ollama" else body.get("data")
    return len(items) if isinstance(items, list) else None


async def probe_connection(
    provider: Provider, url: str, key: str | None = None
) -> ConnectionResult:
    """Ask ``provider`` at ``url`` for its models (with ``key`` when given)."""
    name = NAMES[provider]
    try:
        base = check_url(url)
    except UserError as exc:
        return ConnectionResult(False, f"Not tested: {exc}.")
    target, headers = _request(provider, base, key)
    import httpx  # loads with the first test, not with the window

    try:
        with purpose(f"testing the connection to {name}"):
            async with httpx.AsyncClient(timeout=TIMEOUT_S, trust_env=False) as client:
                response = await client.get(target, headers=headers)
    except httpx.ConnectError as exc:
        if (refusal := refusal_in(exc)) is not None:
            return ConnectionResult(False, f"Not tested: {refusal}")
        return ConnectionResult(
            False, f"Could not connect to {base}: nothing answered there. Is {name} running?"
        )
    except httpx.TimeoutException:
        return ConnectionResult(False, f"{base} did not answer within {TIMEOUT_S:g} seconds.")
    except httpx.HTTPError as exc:
        return ConnectionResult(False, f"Could not reach {base} ({type(exc).__name__}).")
    if response.status_code in (401, 403):
        what = "no API key is set" if not key else "it refused the API key"
        return ConnectionResult(
            False,
            f"Reached {name} at {base}, but {what} (HTTP {response.status_code}). "
            "Set the key on the API keys page.",
        )
    if response.status_code != 200:
        return ConnectionResult(
            False,
            f"Reached {base}, but it answered HTTP {response.status_code}: "
            f"it does not look like {name}. Check the address.",
        )
    try:
        count = _count(provider, response.json())
    except ValueError:
        count = None
    if count is None:
        return ConnectionResult(
            False, f"Reached {base}, but its answer is not a model list: is it {name}?"
        )
    plural = "model" if count == 1 else "models"
    return ConnectionResult(True, f"Connected to {name} at {base}: {count} {plural} available.")
