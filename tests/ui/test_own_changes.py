"""A part of the window that changes something shows the change once: the thread list after
the window starts its first thread or imports one, the knowledge folders after the page
removes one. The change's announcement on the event bus, which reaches the same part, is
not read and shown a second time. Real window, real store, real knowledge index."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from app.services.settings import AppSettings
from app.services.workspace import Workspace
from app.ui.app import close_window
from app.ui.settings.knowledge_page import KnowledgePage
from app.ui.settings.page import PageId
from app.ui.window import MainWindow
from tests.ui.harness import Models, close_test_window, open_test_window

FOLLOW_S = 0.6
"""Long enough for a part to follow an announcement it was going to follow (the thread list
gathers them for a tenth of a second), so one it does not follow is seen not to come."""


async def test_the_thread_list_is_read_once_for_a_thread_the_window_made(tmp_path: Path) -> None:
    workspace = await Workspace.open(
        tmp_path / "data",
        resolve_model=Models({"scripted:a": []}),
        secret_resolver=lambda ref: "unused",
    )
    workspace.settings.use(AppSettings(default_model="scripted:a"))
    window = MainWindow(workspace)
    shown: list[list[str]] = []
    rows = window.threads_vm.model
    window.threads_vm.refreshed.connect(lambda: shown.append([r.title for r in rows.rows]))
    window.show()
    try:
        await window.start()  # no thread yet: the window starts one
        await asyncio.sleep(FOLLOW_S)
        assert shown == [[], ["New thread"]]  # the empty list, then the list with the new one

        shown.clear()
        export = tmp_path / "trip.json"
        message = {"message_id": "u1", "role": "user", "content": [{"type": "text", "text": "Hi"}]}
        state = {"context": [message]}
        export.write_text(json.dumps({"format": "parley.thread", "version": 1, "state": state}))
        thread_id = await window.import_thread(export)
        await asyncio.sleep(FOLLOW_S)
        assert thread_id is not None and window.chat_vm.thread_id == thread_id
        assert len(shown) == 1 and len(shown[0]) == 2
    finally:
        await close_window(window)


async def test_the_knowledge_page_shows_a_folder_it_removed_once(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("# Notes\n\nThe lighthouse keeper writes poems.\n")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        dialog = window.open_settings()
        page = await dialog.show_page(PageId.KNOWLEDGE)
        assert isinstance(page, KnowledgePage)
        await page.add_folder(str(docs))
        await window.workspace.knowledge.wait_idle()
        await asyncio.sleep(FOLLOW_S)
        assert page.folders.count() == 1
        rebuilt: list[int] = []
        folders = page.folders.model()

        def shown() -> None:
            rebuilt.append(folders.rowCount())

        folders.modelReset.connect(shown)
        await page.remove_selected()
        await asyncio.sleep(FOLLOW_S)
        folders.modelReset.disconnect(shown)
        assert page.folders.count() == 0 and page.empty.isVisible()
        assert rebuilt == [0]  # shown without the folder once, not again on its announcement
        dialog.close()
    finally:
        await close_test_window(window)
