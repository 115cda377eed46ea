"""``check_store`` and ``export_database``: what ``parley doctor`` runs before any workspace
opens, on real SQLite files, healthy and damaged."""

from __future__ import annotations

from pathlib import Path

from app.services.data.actions import check_store, export_database
from app.services.data.export_delete import ExportReport
from app.services.data.recovery import RescueResult
from tests.store.damage import damage_first_thread, make_database


async def test_a_healthy_database_is_exported_from_itself(tmp_path: Path) -> None:
    await make_database(tmp_path / "parley.db", threads=2)
    health = check_store(tmp_path)
    assert health.healthy and health.exists
    result = await export_database(health, tmp_path / "out")
    assert isinstance(result, ExportReport)
    assert result.summary() == f"Exported 2 threads to {tmp_path / 'out'}."
    assert len(list((tmp_path / "out").glob("*.json"))) == 2
    assert not (tmp_path / "rescued").exists()  # no copy was needed


async def test_a_damaged_database_is_exported_from_a_copy_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    await make_database(tmp_path / "parley.db", threads=3)
    damage_first_thread(tmp_path / "parley.db")
    before = (tmp_path / "parley.db").read_bytes()
    health = check_store(tmp_path)
    assert health.exists and not health.healthy
    result = await export_database(health, tmp_path / "out")
    assert isinstance(result, RescueResult)
    assert result.copy.parent == tmp_path / "rescued"
    assert result.export is not None and result.export.thread_count == 2
    assert len(result.export.failed) == 1
    assert (tmp_path / "parley.db").read_bytes() == before
