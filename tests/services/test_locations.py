"""Where Parley keeps its files."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.services.locations import Locations


def test_defaults_are_the_platform_folders_named_parley(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for var, sub in (
        ("XDG_DATA_HOME", "share"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_STATE_HOME", "state"),
    ):
        monkeypatch.setenv(var, str(tmp_path / sub))
    found = Locations.resolve(env={})
    assert found.data == tmp_path / "share" / "parley"
    assert found.config == tmp_path / "config" / "parley"
    assert found.cache == tmp_path / "cache" / "parley"
    assert found.logs == tmp_path / "state" / "parley" / "log"
    assert found.database == tmp_path / "share" / "parley" / "parley.db"
    assert not any(tmp_path.iterdir()), "resolving creates nothing"


def test_a_chosen_data_dir_holds_every_location(tmp_path: Path) -> None:
    found = Locations.resolve(tmp_path / "profile", env={})
    assert found.named() == [
        ("data", tmp_path / "profile"),
        ("config", tmp_path / "profile" / "config"),
        ("cache", tmp_path / "profile" / "cache"),
        ("logs", tmp_path / "profile" / "logs"),
    ]


def test_the_environment_variable_chooses_the_data_dir(tmp_path: Path) -> None:
    found = Locations.resolve(env={"PARLEY_DATA_DIR": str(tmp_path)})
    assert found.logs == tmp_path / "logs"
    assert Locations.resolve(tmp_path / "cli", env={"PARLEY_DATA_DIR": str(tmp_path)}).data == (
        tmp_path / "cli"
    )


def test_the_readme_lists_the_linux_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(var, raising=False)
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for name, path in Locations.resolve(env={}).named():
        shown = "~/" + str(path.relative_to(tmp_path))
        assert f"| {name} | `{shown}` |" in readme
