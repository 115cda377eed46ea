"""The user's settings: a small JSON file beside the database, written atomically.

Secrets never go here: API keys live in the keyring. A damaged file is set aside (renamed, not
deleted) and the defaults are used, so a bad edit never stops Parley from starting.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.core.budget import BudgetLimits

__all__ = ["AppSettings", "load_settings", "save_settings"]

FILE_NAME = "settings.json"


class AppSettings(BaseModel):
    """What the user chose: default model, added model files and endpoints, theme."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    default_model: str = "local"
    gguf_files: list[str] = Field(default_factory=list)
    """Paths of GGUF files the user added to the model picker."""
    endpoints: list[str] = Field(default_factory=list)
    """Model specs of configured remote models (``openai:NAME@URL``, ``anthropic:NAME``)."""
    ollama_url: str = "http://127.0.0.1:11434"
    openai_url: str = "https://api.openai.com/v1"
    """Base URL of the OpenAI-compatible server the settings test and offer."""
    anthropic_url: str = "https://api.anthropic.com"
    theme: str = "system"
    default_limits: BudgetLimits = Field(
        default_factory=lambda: BudgetLimits(max_model_calls=20, max_tool_calls=40)
    )
    """The budget each new run starts with (a paused run can be given more)."""
    granted_folders: list[str] = Field(default_factory=list)
    """Folders the file tools may work in (none: every path is refused)."""
    allow_private_network: bool = False
    """Let the web tools reach this computer and the local network."""
    offline: bool = False
    """Refuse every connection to another computer (see :mod:`app.core.netgate`)."""
    knowledge_embedding: str = ""
    """The model that makes knowledge folders searchable by meaning: ``""`` (none: by words
    alone), ``bundled`` or ``gguf:PATH`` (see :mod:`app.services.knowledge.embedders`)."""
    memory_paused: bool = False
    """Memory paused for everyone: no memory goes before a question and none is kept."""
    memory_paused_agents: list[str] = Field(default_factory=list)
    """The ids of the agents whose memory is paused: their turns use no memory and keep none
    (the built-in agent's id for "Parley")."""
    run_in_background: bool = False
    read_aloud_voice: str = ""
    """The voice read-aloud speaks with (an installed voice's name; ``""``: the first one)."""
    read_aloud_speed: float = Field(default=1.0, ge=0.25, le=4.0)
    """How fast read-aloud speaks (1: the voice's own pace)."""
    send_on_pause: bool = False
    """Dictation ends and sends its words after a pause in speech ("Send when I stop talking")."""
    """Closing the window keeps Parley in the system tray, running the schedules."""
    memory_keep_unasked: list[str] = Field(default_factory=list)
    """The ids of the agents whose proposed memories are kept without asking (the built-in
    agent's id for "Parley")."""

    def provider_urls(self) -> dict[str, str]:
        """The base URL of each provider, for models whose spec names none."""
        return {
            "ollama": self.ollama_url,
            "openai": self.openai_url,
            "anthropic": self.anthropic_url,
        }


def load_settings(data_dir: Path) -> AppSettings:
    """Read the settings in ``data_dir``; defaults when there are none or they are damaged."""
    path = data_dir / FILE_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return AppSettings()
    except OSError:
        return AppSettings()
    try:
        return AppSettings.model_validate(json.loads(raw))
    except (ValueError, ValidationError):
        # keep the damaged file for the user to look at; start from the defaults
        aside = path.with_name(f"{FILE_NAME}.damaged-{int(time.time())}")
        with contextlib.suppress(OSError):
            path.rename(aside)
        return AppSettings()


def save_settings(data_dir: Path, settings: AppSettings) -> None:
    """Write the settings atomically (a crash leaves the old file or the new one)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    data = settings.model_dump_json(indent=2).encode()
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=data_dir)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, data_dir / FILE_NAME)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
