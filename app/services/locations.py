"""Where Parley keeps its files: data, config, cache and logs (platformdirs), and its names.

By default each is the platform's per-user folder for "parley". ``--data-dir`` /
``PARLEY_DATA_DIR`` move all of them into that one folder (``config/``, ``cache/``, ``logs/``
inside it), so a chosen data directory is a complete, self-contained profile.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from app.store.paths import ENV_VAR, database_path, resolve_data_dir

__all__ = ["APP_ID", "APP_NAME", "DISPLAY_NAME", "Locations"]

APP_NAME = "parley"
"""The folder name in every platform directory, and the command's name."""
DISPLAY_NAME = "Parley"
"""The application name a window shows (Qt's applicationName; X11 WM_CLASS)."""
APP_ID = "io.github.parley.Parley"
"""The desktop id: the .desktop file, the AppStream id, the icon name (Qt's desktopFileName)."""


@dataclass(frozen=True)
class Locations:
    """The folders Parley reads and writes; nothing is created until it is used."""

    data: Path
    """Threads, checkpoints and media: the database (and rescued copies of it)."""
    config: Path
    """Settings."""
    cache: Path
    """Files that can be rebuilt (downloads, thumbnails)."""
    logs: Path
    """Rotating log files."""

    @classmethod
    def resolve(
        cls, data_dir: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
    ) -> Locations:
        """The locations for ``--data-dir`` (``data_dir``), ``PARLEY_DATA_DIR`` or the
        platform defaults."""
        environ = os.environ if env is None else env
        data = resolve_data_dir(data_dir, environ)
        if data_dir or environ.get(ENV_VAR):
            return cls(data=data, config=data / "config", cache=data / "cache", logs=data / "logs")
        return cls(
            data=data,
            config=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            cache=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
            logs=Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
        )

    @property
    def database(self) -> Path:
        """The thread database file."""
        return database_path(self.data)

    def named(self) -> list[tuple[str, Path]]:
        """Each location with its name, in the order a person reads them."""
        return [
            ("data", self.data),
            ("config", self.config),
            ("cache", self.cache),
            ("logs", self.logs),
        ]
