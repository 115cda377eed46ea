"""Settings > Knowledge in a real window: adding a folder shows progress, then the folder's
status and the files it could not read; Cancel stops indexing; Remove forgets the folder."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from app.services.events import KnowledgeProgress, WorkspaceEvent
from app.services.models.catalogue import ModelLibrary
from app.store.knowledge import FolderRecord
from app.ui.settings.knowledge_page import KnowledgePage, folder_status
from app.ui.settings.page import PageId
from app.ui.tasks import spawn
from tests.knowledge.corpus import make_corpus
from tests.services.hub_server import HostedFile, HubServer
from tests.services.knowledge.test_embedders import DATA as BGE_DATA
from tests.services.knowledge.test_embedders import TINY_BGE, hub
from tests.ui.harness import Models, close_test_window, open_test_window, wait_until

__all__ = ["hub"]  # the local hub server fixture


async def test_add_a_folder_watch_progress_and_see_its_status(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        dialog = window.open_settings()
        page = await dialog.show_page(PageId.KNOWLEDGE)
        assert isinstance(page, KnowledgePage)
        assert page.empty.isVisible() and not page.folders.isVisible()
        seen: list[bool] = []

        def watch(event: WorkspaceEvent) -> None:
            if isinstance(event, KnowledgeProgress) and event.state == "indexing":
                seen.append(page.progress.isVisible() and page.cancel_button.isVisible())

        unsubscribe = window.workspace.events.subscribe(watch)
        await page.add_folder(str(root))
        await window.workspace.knowledge.wait_idle()
        unsubscribe()
        assert seen and all(seen)
        await wait_until(lambda: "5 files" in page.folders.item(0).text(), what="the status")
        item = page.folders.item(0).text()
        assert item.startswith(str(root.resolve()))
        assert "could not be read" in item and "synced" in item
        assert not page.progress.isVisible()
        assert "locked.pdf: it is a password-protected PDF" in page.problems.text()
        assert "loop-a: it is a link that loops" in page.problems.text()
        await page.add_folder(str(tmp_path / "missing"))
        assert "does not exist" in page.error.text() and page.error.isVisible()
        page.folders.setCurrentRow(0)
        QTest.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: page.folders.count() == 0, what="the folder to go")
        assert page.empty.isVisible()
        dialog.close()
    finally:
        await close_test_window(window)


async def test_cancel_stops_indexing_and_keeps_what_was_read(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for n in range(300):
        (root / f"note-{n:03}.md").write_text(f"# Note {n}\n\n" + "Some words here. " * 400)
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        dialog = window.open_settings()
        page = await dialog.show_page(PageId.KNOWLEDGE)
        assert isinstance(page, KnowledgePage)
        clicked = False

        def press_cancel(event: WorkspaceEvent) -> None:
            nonlocal clicked
            if isinstance(event, KnowledgeProgress) and event.files_done >= 2 and not clicked:
                clicked = True
                QTest.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)

        unsubscribe = window.workspace.events.subscribe(press_cancel)
        await page.add_folder(str(root))
        await window.workspace.knowledge.wait_idle()
        unsubscribe()
        assert clicked
        assert "Stopped indexing" in page.progress_text.text()
        await wait_until(lambda: "not fully indexed yet" in page.folders.item(0).text())
        (folder,) = await window.workspace.knowledge.folders()
        assert 2 <= folder.files < 300
        dialog.close()
    finally:
        await close_test_window(window)


async def test_the_page_says_which_search_is_in_use_and_changes_it(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        dialog = window.open_settings()
        page = await dialog.show_page(PageId.KNOWLEDGE)
        assert isinstance(page, KnowledgePage)
        line = page.findChild(QLabel, "knowledgeSearchMode")
        assert line is not None and line.isVisible()
        assert line.text() == "Search: words (BM25)"
        assert page.embedding.currentText() == "None: words only (BM25)"
        page.embedding.setCurrentIndex(page.embedding.findData("bundled"))
        await page.choose_embedding()
        assert line.text() == "Search: words and meaning (SmolLM2 135M (bundled))"
        saved = json.loads((tmp_path / "data" / "settings.json").read_text())
        assert saved["knowledge_embedding"] == "bundled"
        page.embedding.setCurrentIndex(page.embedding.findData(""))
        await page.choose_embedding()
        assert line.text() == "Search: words (BM25)"
        dialog.close()
    finally:
        await close_test_window(window)


async def test_the_catalogue_s_embedding_model_is_downloaded_from_the_page(
    tmp_path: Path, hub: HubServer
) -> None:
    hub.host(TINY_BGE.repo, TINY_BGE.filename, HostedFile(BGE_DATA))
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        window.workspace.downloads.library = ModelLibrary(
            tmp_path / "data", hub_url=hub.url, catalogue=(TINY_BGE,)
        )
        dialog = window.open_settings()
        page = await dialog.show_page(PageId.KNOWLEDGE)
        assert isinstance(page, KnowledgePage)
        row = page.embedding.findData("download:bge-small-en-v1.5")
        assert page.embedding.itemText(row).endswith(": download, 0 MB")
        page.embedding.setCurrentIndex(row)
        await page.choose_embedding()
        path = tmp_path / "data" / "models" / TINY_BGE.filename
        assert path.read_bytes() == BGE_DATA
        line = page.findChild(QLabel, "knowledgeSearchMode")
        assert line is not None
        assert line.text() == f"Search: words and meaning ({TINY_BGE.filename})"
        assert page.embedding.currentText() == TINY_BGE.title
        assert page.embedding.findData("download:bge-small-en-v1.5") == -1
        assert not page.progress.isVisible() and not page.error.isVisible()
        saved = json.loads((tmp_path / "data" / "settings.json").read_text())
        assert saved["knowledge_embedding"] == f"gguf:{path}"
        dialog.close()
    finally:
        await close_test_window(window)


async def test_cancel_stops_the_download_and_keeps_the_choice(
    tmp_path: Path, hub: HubServer
) -> None:
    # the hub cuts the file short again and again, so the download is still going on
    slow = HostedFile(BGE_DATA, drop_after=1000, drops=50)
    hub.host(TINY_BGE.repo, TINY_BGE.filename, slow)
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        window.workspace.downloads.library = ModelLibrary(
            tmp_path / "data", hub_url=hub.url, catalogue=(TINY_BGE,)
        )
        dialog = window.open_settings()
        page = await dialog.show_page(PageId.KNOWLEDGE)
        assert isinstance(page, KnowledgePage)
        page.embedding.setCurrentIndex(page.embedding.findData("download:bge-small-en-v1.5"))
        choosing = spawn(page.choose_embedding())
        await wait_until(lambda: page.cancel_button.isVisible(), what="the download's Cancel")
        assert page.progress_text.text().startswith("Downloading BGE small English v1.5")
        QTest.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
        await choosing
        assert "Stopped downloading BGE small English v1.5" in page.error.text()
        assert not page.cancel_button.isVisible()
        line = page.findChild(QLabel, "knowledgeSearchMode")
        assert line is not None and line.text() == "Search: words (BM25)"
        assert window.workspace.settings.current.knowledge_embedding == ""
        assert page.embedding.currentData() == ""
        dialog.close()
    finally:
        await close_test_window(window)


def test_a_folder_s_line_says_how_many_passages_have_their_meaning() -> None:
    record = FolderRecord(1, "/docs", None, 0.0, None, 2, 2048, 120, (), 40)
    assert folder_status(record, meaning=True).startswith(
        "2 files, 2.0 kB, 120 passages (40 with meaning so far) · not fully indexed yet"
    )
    assert folder_status(record).startswith("2 files, 2.0 kB, 120 passages · ")
