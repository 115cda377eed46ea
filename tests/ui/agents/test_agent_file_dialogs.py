"""The window's agent files with hostile ones: the import question lists every folder it
leaves out and why, in plain text, and Export says what it left out of the file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialog, QLabel, QPushButton

from app.core.tools import ArgumentRule
from app.services.agents import Agent
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / "papers").mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


async def test_the_import_question_names_each_folder_it_leaves_out(
    tmp_path: Path, home: Path
) -> None:
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        ws = window.workspace
        researcher = await ws.agents.add(Agent(name="Researcher"))
        await ws.knowledge.add_folder(home / "papers", researcher.id)
        path = tmp_path / "scout.agent.json"
        path.write_text(
            json.dumps(
                {
                    "format": "parley.agent",
                    "version": 1,
                    "name": "Scout",
                    "knowledge": ["~/.config/gh", "/etc", "~/papers"],
                }
            )
        )
        task = asyncio.ensure_future(window.agent_part.import_agent(path))
        question = await wait_until(
            lambda: (d := window.findChild(QDialog, "agentImportDialog")) and d.isVisible() and d,
            what="the import question",
        )
        asks = find(question, QLabel, "agentImportAsks").text()
        assert "Knowledge folders: ~/.config/gh, /etc, ~/papers" in asks
        warnings = find(question, QLabel, "agentImportWarnings")
        assert warnings.isVisible()
        assert warnings.text() == (
            "The knowledge folder ~/.config/gh is a hidden folder or inside one (.config), so it "
            "is left out.\n"
            "The knowledge folder /etc is outside your home folder, so it is left out.\n"
            "~/papers is already a knowledge folder of Researcher; it is left as it is."
        )
        QTest.mouseClick(find(question, QPushButton, "addAgentButton"), Qt.MouseButton.LeftButton)
        scout = await task
        assert scout is not None
        assert ws.agents.knowledge_of(scout) == []
        assert ws.agents.knowledge_of(researcher) == [str((home / "papers").resolve())]
    finally:
        await close_test_window(window)


async def test_export_says_what_it_left_out_and_refuses_a_key(tmp_path: Path, home: Path) -> None:
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        ws = window.workspace
        writer = await ws.agents.add(Agent(name="Writer", tools=("write_file",)))
        outside = tmp_path / "srv"
        outside.mkdir()
        rule = ArgumentRule.folder("write_file", "path", str(outside)).for_agent("Writer")
        await ws.agents._store.add_argument_rule(rule)
        target = tmp_path / "Writer.agent.json"
        assert await window.agent_part.export_agent(writer.id, target) == target
        assert json.loads(target.read_bytes())["rules"] == []
        assert find(window, QLabel, "noticeText").text() == (
            f"Exported Writer to {target}. The rule write_file inside {outside} is left out: "
            "its folder is outside your home folder, and an agent file holds only folders "
            "inside the home folder, never hidden ones."
        )
        key = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx"
        await ws.agents.edit(writer.id, writer.model_copy(update={"instructions": key}))
        target.unlink()
        assert await window.agent_part.export_agent(writer.id, target) is None
        assert not target.exists()
        assert find(window, QLabel, "noticeText").text() == (
            f"Could not export Writer: Writer's instructions hold what looks like a key (ghp_…, "
            f"{len(key)} characters); keys belong in the keyring, so nothing was exported: take "
            "it out and export again."
        )
    finally:
        await close_test_window(window)
