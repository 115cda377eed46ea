"""``parley diagnostics`` and ``parley doctor`` as a user runs them: a real process."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_chat import parley
from tests.store.damage import damage_first_thread, make_database


def test_diagnostics_prints_the_report_and_writes_a_log(tmp_path: Path) -> None:
    done = parley("diagnostics", "--model", "ollama:qwen3", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Parley ")
    assert "models in use: ollama:qwen3" in done.stdout
    assert f"logs: {tmp_path / 'logs'}" in done.stdout
    assert "logging to" in (tmp_path / "logs" / "parley.log").read_text()


async def test_doctor_on_a_healthy_database(tmp_path: Path) -> None:
    await make_database(tmp_path / "parley.db", threads=2)
    done = parley("doctor", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "is healthy (SQLite quick check: ok)" in done.stdout
    exported = parley("doctor", "--export", str(tmp_path / "out"), data_dir=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert f"Exported 2 threads to {tmp_path / 'out'}." in exported.stdout


async def test_doctor_on_a_damaged_database_saves_what_it_can(tmp_path: Path) -> None:
    await make_database(tmp_path / "parley.db", threads=3)
    damage_first_thread(tmp_path / "parley.db")
    before = (tmp_path / "parley.db").read_bytes()
    checked = parley("doctor", data_dir=tmp_path)
    assert checked.returncode == 1
    assert "is damaged (SQLite quick check: " in checked.stderr
    assert "Traceback" not in checked.stderr
    saved = parley("doctor", "--export", str(tmp_path / "out"), data_dir=tmp_path)
    assert saved.returncode == 1
    assert "the original is untouched. Exported 2 threads" in saved.stdout
    assert "1 could not be read" in saved.stdout
    assert len(list((tmp_path / "out").glob("*.md"))) == 2
    assert (tmp_path / "parley.db").read_bytes() == before
