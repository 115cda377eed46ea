"""A thread an agent's run asked through the local server made is marked API in the
sidebar, beside its agent's name; a thread made in the window is not."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView

from app.services.agents import Agent
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


async def test_a_thread_asked_through_the_api_is_marked_api(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        ws = window.workspace
        researcher = await ws.agents.add(Agent(name="Researcher"))
        await ws.threads.create(title="Asked here", agent_id=researcher.id)
        await ws.threads.create(title="Asked by a script", agent_id=researcher.id, origin="api")
        view = find(window, QListView, "threadList")
        model = view.model()

        def texts() -> dict[str, str]:
            found = {}
            for row in range(model.rowCount()):
                index = model.index(row, 0)
                found[index.data()] = index.data(Qt.ItemDataRole.AccessibleTextRole)
            return found

        await wait_until(
            lambda: {"Asked here", "Asked by a script"} <= texts().keys(),
            what="both threads in the sidebar",
        )
        shown = texts()
        assert shown["Asked by a script"].startswith("Asked by a script, with Researcher · API")
        assert shown["Asked here"].startswith("Asked here, with Researcher")
        assert "API" not in shown["Asked here"]
    finally:
        await close_test_window(window)
