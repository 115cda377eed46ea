"""Which model an imported thread may keep: only one the user set up in Parley.

An export names its thread's model, and a spec can name a server (``ollama:NAME@URL``,
``openai:NAME@BASE_URL``) or a file (``gguf:PATH``, ``scripted:FILE.json``). Importing a file
must not make Parley talk to a server or load a file the user never chose, so a spec naming one
that the settings do not hold (the providers' URLs, the added endpoints and model files, the
downloaded models, the default model) is replaced by the default model until the user picks it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from app.core.errors import UserError
from app.core.quoting import quoted
from app.core.userinfo import has_userinfo, without_userinfo
from app.providers.spec import parse_spec
from app.services.settings import AppSettings
from app.store import ModelCheck

__all__ = ["imported_model_check"]


def _url_key(url: str) -> tuple[str, str, str] | None:
    text = url.strip()
    if "://" not in text:
        text = f"http://{text}"  # as parse_spec reads "localhost:11434"
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    return parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/")


def _path_key(path: str) -> str:
    return os.path.normpath(Path(path).expanduser())


def _spec_key(spec: str) -> str | None:
    try:
        return str(parse_spec(spec))
    except UserError:
        return None


class _SetUp:
    """What the user set up: the specs, provider URLs and model files Parley may use."""

    def __init__(self, settings: AppSettings, installed: Iterable[str]) -> None:
        specs = [settings.default_model, *settings.endpoints, *installed]
        self.specs = {key for key in map(_spec_key, specs) if key is not None}
        self.urls = {name: _url_key(url) for name, url in settings.provider_urls().items()}
        self.files = {_path_key(p) for p in settings.gguf_files}
        self.files |= {_path_key(s[5:]) for s in self.specs if s.startswith("gguf:")}

    def why_not(self, spec: str) -> str | None:
        """Why ``spec`` may not be used without the user choosing it (``None``: it may)."""
        try:
            parsed = parse_spec(spec)
        except UserError:
            if has_userinfo(spec):
                return "its address holds a user name or password, which Parley never keeps"
            return "it is not a model spec this Parley knows"
        if parsed.provider == "local" or str(parsed) in self.specs:
            return None
        if parsed.provider in ("ollama", "openai"):
            if parsed.url is None or _url_key(parsed.url) == self.urls[parsed.provider]:
                return None
            return f"it talks to the server {quoted(parsed.url)}, which is not set up in Parley"
        if parsed.provider == "anthropic":
            if "@" not in parsed.name:
                return None
            return f"it names a server ({quoted(parsed.name)}), which is not set up in Parley"
        if parsed.provider == "gguf" and _path_key(parsed.name) in self.files:
            return None
        return f"it reads the file {quoted(parsed.name)}, which is not one of your models"


def imported_model_check(settings: AppSettings, installed: Iterable[str] = ()) -> ModelCheck:
    """The store's check of an imported thread's model spec: kept when the user set up what
    it names (``installed``: the specs of the downloaded models), else the default model and
    a sentence saying why."""
    set_up = _SetUp(settings, installed)

    def check(spec: str | None) -> tuple[str | None, str | None]:
        why = None if spec is None else set_up.why_not(spec)
        if spec is None or why is None:
            return spec, None
        default = settings.default_model
        return default, (
            f"The thread's model {quoted(without_userinfo(spec))} was not kept: {why}. The "
            f"thread uses the default model ({default}) until you pick another in the model "
            f"picker."
        )

    return check
