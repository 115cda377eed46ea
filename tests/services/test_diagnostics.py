"""The diagnostics report: what a bug report needs, nothing of the person's content or keys."""

from __future__ import annotations

import importlib.metadata
import platform
from pathlib import Path

from app.secrets.keyring_resolver import KeyringSecretResolver
from app.services.diagnostics import QtInfo, diagnostics_report, safe_spec
from app.services.locations import Locations
from app.store import SCHEMA_VERSION, Store
from tests.services.memory_keyring import MemoryKeyring
from tests.store.damage import damage_first_thread, make_database


async def test_the_report_names_versions_paths_models_and_database(tmp_path: Path) -> None:
    where = Locations.resolve(tmp_path / "data", env={})
    async with Store.open(where.database) as store:
        await store.create_thread("SECRET-PLAN for the surprise party", model="ollama:qwen3")
    resolver = KeyringSecretResolver(backend=MemoryKeyring())
    resolver.set("openai/api-key", "sk-never-in-a-report")
    report = diagnostics_report(
        where,
        model_specs=["local", "openai:gpt-4o@https://user:pw@example.test/v1?key=abc"],
        qt=QtInfo("6.12.0", "offscreen"),
        keyring_status=resolver.status(),
    )
    lines = report.splitlines()
    assert lines[0] == f"Parley {importlib.metadata.version('parley')}"
    assert lines[1].startswith(f"Python {platform.python_version()}")
    pyside = importlib.metadata.version("PySide6-Essentials")
    assert f"Qt 6.12.0, platform plugin offscreen, PySide6 {pyside}" in lines
    assert "keyring: tests.services.memory_keyring.MemoryKeyring (available)" in lines
    assert "models in use: local, ollama:qwen3, openai:gpt-4o@https://example.test/v1" in lines
    assert f"data: {where.data}" in lines
    assert f"logs: {where.logs}" in lines
    assert f"database: {where.database}" in lines
    assert f"  schema version: {SCHEMA_VERSION} (this Parley: {SCHEMA_VERSION})" in lines
    assert "  threads: 1" in lines
    files = (where.database, where.database.with_name("parley.db-wal"))
    size = sum(p.stat().st_size for p in files if p.exists())
    assert f"  size: {size / 1000:.1f} KB" in lines
    assert "  quick check: ok" in lines
    for private in ("SECRET-PLAN", "sk-never", "pw@", "key=abc"):
        assert private not in report


async def test_the_report_shows_damage_and_a_missing_window(tmp_path: Path) -> None:
    where = Locations.resolve(tmp_path, env={})
    await make_database(where.database, threads=2)
    damage_first_thread(where.database)
    report = diagnostics_report(where)
    assert "(no window: Qt platform plugin unknown)" in report
    assert "  quick check: DAMAGED (" in report
    assert "invalid page number" in report
    assert "word-" not in report and "filler" not in report


def test_no_database_yet(tmp_path: Path) -> None:
    report = diagnostics_report(Locations.resolve(tmp_path, env={}))
    assert "models in use: none yet" in report
    assert "  not created yet" in report.splitlines()


def test_safe_spec_keeps_only_what_names_the_model() -> None:
    assert safe_spec("local") == "local"
    assert safe_spec("gguf:/models/a.gguf") == "gguf:/models/a.gguf"
    assert (
        safe_spec("ollama:llama3@http://127.0.0.1:11434") == "ollama:llama3@http://127.0.0.1:11434"
    )
    assert (
        safe_spec("openai:m@https://u:p@h.test:8443/v1?t=1#x") == "openai:m@https://h.test:8443/v1"
    )
