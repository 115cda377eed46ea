"""Manage models (from the model picker) lists the models on this computer; Remove asks
first, naming the model and the disk space it frees, then deletes the downloaded file. The
bundled model cannot be removed. A thread that used a removed model keeps its messages and
says, when sent, that the model is not downloaded; the picker offers the download again."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QComboBox, QListWidget, QMessageBox, QPlainTextEdit, QPushButton

from app.core.models.protocol import ChatModel
from app.services.models.catalogue import ModelLibrary
from app.services.models.registry import ModelRegistry
from app.ui.header import PickerCommand
from app.ui.model_manage import ManageModels
from app.ui.window import MainWindow
from tests.services.hub_server import HostedFile, HubServer
from tests.services.models.test_catalogue import DATA, ENTRY, hub
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until
from tests.ui.models.test_model_download import choose, picker_rows

__all__ = ["hub"]  # the local hub server fixture


class RealGguf(Models):
    """Scripted models, and ``gguf:`` specs built by the real registry."""

    def __call__(self, spec: str) -> ChatModel:
        if spec.startswith("gguf:"):
            return ModelRegistry(lambda _provider: None).resolve(spec)
        return super().__call__(spec)


async def downloaded(tmp_path: Path, hub: HubServer) -> MainWindow:
    hub.host(ENTRY.repo, ENTRY.filename, HostedFile(DATA))
    window = await open_test_window(tmp_path, RealGguf({"scripted:a": ["Hello there."]}))
    window.workspace.downloads.library = ModelLibrary(tmp_path, hub_url=hub.url, catalogue=(ENTRY,))
    await window.refresh_models()
    composer = find(window, QPlainTextEdit, "composer")
    composer.setPlainText("Hi")
    find(window, QPushButton, "sendButton").click()
    await wait_until(lambda: window.chat_vm.model.rowCount() == 2, what="the first answer")
    choose(window, "download:tiny")
    await wait_until(lambda: "Downloaded Tiny" in window.notice.label.text(), what="download")
    return window


async def open_manage(window: MainWindow) -> ManageModels:
    choose(window, PickerCommand.MANAGE)
    await wait_until(lambda: window.findChild(ManageModels) is not None, what="the dialog")
    dialog = window.findChild(ManageModels)
    assert isinstance(dialog, ManageModels)
    await wait_until(lambda: dialog.list.count() > 0, what="the model list")
    return dialog


def texts(listing: QListWidget) -> list[str]:
    return [listing.item(i).text() for i in range(listing.count())]


async def test_removing_a_downloaded_model_asks_then_deletes_it_and_its_thread_says_so(
    tmp_path: Path, hub: HubServer
) -> None:
    window = await downloaded(tmp_path, hub)
    target = tmp_path / "models" / ENTRY.filename
    spec = f"gguf:{target}"
    thread = window.chat_vm.thread_id
    assert thread is not None
    try:
        dialog = await open_manage(window)
        listing = find(dialog, QListWidget, "installedModels")
        bundled = "SmolLM2 135M (bundled) — 98 MB, part of Parley"
        assert texts(listing) == [bundled, "Tiny test model — 0 MB, downloaded"]
        remove = find(dialog, QPushButton, "removeModelButton")
        listing.setCurrentRow(0)
        assert not remove.isEnabled()  # the bundled model stays
        listing.setCurrentRow(1)
        assert remove.isEnabled()

        remove.click()  # asked first; Cancel keeps it
        await wait_until(lambda: dialog.confirm is not None, what="the question")
        box = dialog.confirm
        assert box is not None
        assert box.text() == "Remove Tiny test model?"
        assert box.informativeText() == (
            "This deletes its file and frees 0 MB of disk space. Threads that use it keep "
            "their messages; you can download it again or choose another model for them."
        )
        box.button(QMessageBox.StandardButton.Cancel).click()
        await wait_until(lambda: dialog.confirm is None, what="the answer")
        assert target.read_bytes() == DATA

        remove.click()
        await wait_until(lambda: dialog.confirm is not None, what="the question")
        box = dialog.confirm
        assert box is not None
        [yes] = [b for b in box.buttons() if b.text() == "Remove"]
        yes.click()
        await wait_until(lambda: listing.count() == 1, what="the removal")
        assert texts(listing) == [bundled]
        assert window.notice.label.text() == ("Removed Tiny test model; 0 MB of disk space freed.")
        assert not target.exists()
        assert list((tmp_path / "models").iterdir()) == [tmp_path / "models" / "models.json"]
        dialog.reject()
        await wait_until(lambda: window.findChild(ManageModels) is None, what="closing")

        # the thread keeps its model and messages; the picker says it is not downloaded
        assert (await window.workspace.threads.get(thread)).model == spec
        picker = find(window, QComboBox, "modelPicker")
        assert picker.currentData() == spec
        assert picker.currentText() == "   tiny-q4 (not downloaded)"
        assert ("   Tiny test model — 0 MB, needs 500 MB of memory, tool calls poor, Apache-2.0",
                "download:tiny") in picker_rows(window)  # fmt: skip
        composer = find(window, QPlainTextEdit, "composer")
        composer.setPlainText("Are you there?")
        find(window, QPushButton, "sendButton").click()
        await wait_until(lambda: "not downloaded" in window.notice.label.text(), what="refusal")
        assert window.notice.label.text() == (
            f"The model tiny-q4 is not downloaded (its file {target} is gone); download it "
            "again or choose another model in the model picker."
        )
        assert composer.toPlainText() == "Are you there?"  # the unsent message stays
        offer = find(window, QPushButton, "noticeAction")
        assert offer.isVisible() and offer.text() == "Choose another model"
        offer.click()  # the picker opens, offering the download again
        await wait_until(picker.view().isVisible, what="the picker's list")
        picker.hidePopup()
        page = await window.workspace.threads.read_messages(thread)
        assert [m.text() for m in page.messages] == ["Hi", "Hello there."]
    finally:
        await close_test_window(window)
