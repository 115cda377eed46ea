"""Model specs: the one string that names a model (``local``, ``gguf:PATH``,
``ollama:NAME[@URL]``, ``openai:NAME[@BASE_URL]``, ``anthropic:NAME``, ``scripted:FILE.json``),
parsed beside the providers it names so every service reads it the same way."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlparse

from app.core.errors import UserError
from app.core.quoting import quoted
from app.core.userinfo import has_userinfo, without_userinfo

__all__ = ["OPENAI_URL", "SPEC_FORMS", "ModelSpec", "parse_spec"]

OPENAI_URL = "https://api.openai.com/v1"
"""OpenAI's own API: the one address the ``openai/api-key`` is sent to."""

SPEC_FORMS = (
    "local, gguf:PATH, ollama:NAME[@URL], openai:NAME[@BASE_URL], anthropic:NAME, "
    "scripted:FILE.json"
)


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec: provider, model name or path, and optional server URL."""

    provider: str
    name: str
    url: str | None = None

    def __str__(self) -> str:
        if self.provider == "local":
            return "local"
        return f"{self.provider}:{self.name}" + (f"@{self.url}" if self.url else "")


def _password_refused(provider: str, name: str, url: str) -> UserError:
    """The refusal of a spec whose address holds a user name or password (never repeated)."""
    clean = without_userinfo(url).rstrip("/")
    if "@" in urlparse(clean).netloc:  # not an address this can take apart: name none of it
        clean = "the server's address"
    safe = f"{provider}:{name}@{clean}"
    if provider == "openai":
        key = (
            "openai/api-key" if clean == OPENAI_URL else f"openai/{urlparse(clean).netloc}/api-key"
        )
        where = f"put the password in the keyring: parley key set {key}"
    else:
        where = "Ollama takes no password, so leave it out"
    return UserError(
        f"the model address holds a user name or password, which Parley never keeps in a "
        f"model spec; {where}, and use {quoted(safe)}"
    )


def parse_spec(spec: str) -> ModelSpec:
    """Parse a spec string; raises :class:`UserError` naming the accepted forms. A server
    address holding a user name or password (``http://USER:PASS@HOST``) is refused: the
    password belongs in the keyring, never in a spec that is saved, shown and exported."""
    text = spec.strip()
    if text == "local":
        return ModelSpec("local", "local")
    provider, sep, rest = text.partition(":")
    if not sep or not rest:
        raise UserError(
            f"unknown model spec {quoted(without_userinfo(spec))}; use one of: {SPEC_FORMS}"
        )
    if provider in ("gguf", "scripted", "anthropic"):
        if "://" in rest and has_userinfo(rest):
            raise UserError(
                "the model spec holds an address with a user name or password, which Parley "
                "never keeps in a model spec; put the key in the keyring: parley key set "
                f"{provider}/api-key"
            )
        return ModelSpec(provider, rest)
    if provider in ("ollama", "openai"):
        name, at, url = rest.partition("@")
        if not name or (at and not url):
            raise UserError(
                f"model spec {quoted(without_userinfo(spec))} needs a model name (and a URL "
                f"after '@')"
            )
        if url and "://" not in url:
            url = f"http://{url}"  # "localhost:11434", as people write a server's address
        if url and has_userinfo(url):
            raise _password_refused(provider, name, url)
        return ModelSpec(provider, name, url.rstrip("/") or None)
    raise UserError(
        f"unknown model provider {quoted(provider)} in {quoted(without_userinfo(spec))}; use "
        f"one of: {SPEC_FORMS}"
    )
