"""Choosing the data directory: --data-dir, then PARLEY_DATA_DIR, then the platform default."""

from __future__ import annotations

from pathlib import Path

import platformdirs

from app.store import Store, database_path, resolve_data_dir


def test_cli_value_wins_over_environment(tmp_path: Path) -> None:
    env = {"PARLEY_DATA_DIR": str(tmp_path / "env")}
    assert resolve_data_dir(tmp_path / "cli", env=env) == tmp_path / "cli"
    assert resolve_data_dir(None, env=env) == tmp_path / "env"


def test_default_is_the_platform_user_data_dir() -> None:
    expected = Path(platformdirs.user_data_dir("parley", appauthor=False))
    assert resolve_data_dir(None, env={}) == expected
    assert resolve_data_dir(None, env={"PARLEY_DATA_DIR": ""}) == expected


def test_home_is_expanded() -> None:
    assert "~" not in str(resolve_data_dir("~/parley-data", env={}))


def test_open_data_dir_creates_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    with Store.open_data_dir(folder) as store:
        assert store.path == database_path(folder)
    assert (folder / "parley.db").is_file()
