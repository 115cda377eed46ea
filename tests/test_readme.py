"""The README's library example runs as written; its table of folders says where settings
really go."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from app.services.locations import Locations
from app.services.settings import AppSettings
from app.services.workspace import Workspace

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_library_example_runs_and_prints_the_answer() -> None:
    [code] = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    assert out.getvalue().strip() == "Ticket T-42 is closed."


def _folder_table() -> dict[str, str]:
    """The "Where your data lives" table: each folder's name and what the README says it holds."""
    text = README.read_text(encoding="utf-8").split("## Where your data lives", 1)[1]
    rows = re.findall(r"^\| (\w+) \| `[^`]+` \| (.*) \|$", text, re.MULTILINE)
    return dict(rows)


async def test_the_folder_the_readme_names_for_settings_is_where_they_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PARLEY_DATA_DIR", raising=False)
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    workspace = await Workspace.open(None, secret_resolver=lambda ref: None)
    try:
        await workspace.settings.save(AppSettings(theme="dark"))
    finally:
        await workspace.aclose()
    holders = [name for name, holds in _folder_table().items() if "`settings.json`" in holds]
    assert holders == ["data"]
    written = Locations.resolve().data / "settings.json"
    assert json.loads(written.read_text(encoding="utf-8"))["theme"] == "dark"
    assert not Locations.resolve().config.exists()
    assert "nothing yet" in _folder_table()["config"]
