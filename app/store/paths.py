"""Where the thread database lives: ``--data-dir``, then ``PARLEY_DATA_DIR``, then the
platform's user data directory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

__all__ = ["DATABASE_NAME", "ENV_VAR", "database_path", "resolve_data_dir"]

ENV_VAR = "PARLEY_DATA_DIR"
DATABASE_NAME = "parley.db"


def resolve_data_dir(
    cli_value: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """Return the data directory: the ``--data-dir`` value if given, else ``PARLEY_DATA_DIR``
    if set and not empty, else ``platformdirs.user_data_dir("parley")``. ``~`` is expanded;
    the directory is not created here."""
    environ = os.environ if env is None else env
    chosen: str | os.PathLike[str] | None = cli_value or environ.get(ENV_VAR) or None
    if chosen is None:
        return Path(platformdirs.user_data_dir("parley", appauthor=False))
    return Path(chosen).expanduser().absolute()


def database_path(data_dir: str | os.PathLike[str]) -> Path:
    """Return the path of the thread database inside ``data_dir``."""
    return Path(data_dir) / DATABASE_NAME
