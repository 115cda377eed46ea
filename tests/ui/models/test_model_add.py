"""Adding a GGUF file from the model picker: a file dialog, then the file is one of the models
(listed by ``parley models`` too) and the thread's model; adding it again just chooses it; a
file that is not GGUF is refused with one sentence and nothing is added."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QComboBox, QFileDialog, QLineEdit

from app.services.models.catalogue import ModelLibrary
from app.ui.header import PickerCommand
from app.ui.window import MainWindow
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until
from tests.ui.models.test_model_download import choose, picker_rows


def file_dialog(window: MainWindow) -> QFileDialog | None:
    shown = [d for d in window.findChildren(QFileDialog, "addModelFile") if d.isVisible()]
    return shown[0] if shown else None


async def pick_file(window: MainWindow, path: Path) -> None:
    choose(window, PickerCommand.ADD_FILE)
    dialog = await wait_until(lambda: file_dialog(window), what="the file dialog")
    name_box = dialog.findChild(QLineEdit, "fileNameEdit")  # the user types the path
    name_box.setText(str(path))
    await wait_until(lambda: dialog.selectedFiles() == [str(path)], what="the file chosen")
    dialog.accept()
    await wait_until(lambda: file_dialog(window) is None, what="the dialog closing")


async def test_a_gguf_file_is_added_once_and_becomes_the_threads_model(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    gguf = tmp_path / "My-Model.Q4.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 100)
    spec = f"gguf:{gguf.resolve()}"
    await window.refresh_models()
    thread = window.chat_vm.thread_id
    assert thread is not None
    try:
        await pick_file(window, gguf)
        await wait_until(lambda: "now talks to" in window.notice.label.text(), what="chosen")
        assert (await window.workspace.threads.get(thread)).model == spec
        picker = find(window, QComboBox, "modelPicker")
        await wait_until(lambda: picker.currentData() == spec, what="the picker")
        assert ("   My-Model.Q4", spec) in picker_rows(window)
        library = ModelLibrary(tmp_path / "data")
        [added] = library.installed()
        assert (added.name, added.path, added.source) == (
            "My-Model.Q4",
            str(gguf.resolve()),
            "local",
        )

        await pick_file(window, gguf)  # the same file again: chosen, not added twice
        await wait_until(lambda: "already" in window.notice.label.text(), what="the notice")
        assert window.notice.label.text() == (
            "My-Model.Q4 is already in your models; this thread now talks to it."
        )
        assert len(library.installed()) == 1

        text = tmp_path / "notes.gguf"
        text.write_text("hello")
        await pick_file(window, text)
        await wait_until(lambda: "not a GGUF" in window.notice.label.text(), what="the refusal")
        assert window.notice.label.text() == (
            f"{text} is not a GGUF model file (it does not start with 'GGUF')."
        )
        assert len(library.installed()) == 1
        assert (await window.workspace.threads.get(thread)).model == spec
    finally:
        await close_test_window(window)
