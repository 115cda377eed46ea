"""The settings dialog is built from one tuple of page records: every page id has one
record, and opening a page by its id shows that page under its record's title."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QListWidget

from app.ui.settings.dialog import PAGES, PageId
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


def test_every_page_id_has_one_record() -> None:
    assert [spec.id for spec in PAGES] == list(PageId)


async def test_a_page_opened_by_its_id_is_shown_under_its_title(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        dialog = window.open_settings()
        await wait_until(dialog.isVisible, what="the settings dialog")
        pages = find(dialog, QListWidget, "settingsPageList")
        for spec in reversed(PAGES):
            page = await dialog.show_page(spec.id)
            assert dialog.stack.currentWidget() is page
            assert page.objectName() == spec.id.value
            assert pages.currentItem().text() == spec.title
        dialog.close()
    finally:
        await close_test_window(window)
