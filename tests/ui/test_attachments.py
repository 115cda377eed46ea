"""Attaching files in the real window: drops, paste, the file dialog, chips, sending, and what
the model will not see, with real files on disk and the real store."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QFileDialog, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QWidget

from app.core.state import AudioBlock, DocumentBlock, ImageBlock
from app.ui.attachments.chip import AttachmentChip
from app.ui.attachments.describe import human_size
from app.ui.attachments.tray import summary
from app.ui.window import MainWindow
from tests.media import corpus
from tests.ui.attach_helpers import drag_mime, drag_over, drop_on, make_files
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    shortcut,
    type_text,
    wait_until,
)


def chips(window: MainWindow) -> list[AttachmentChip]:
    return list(window.attachments.tray.chips)


def drop_target(window: MainWindow) -> QWidget:
    current = window.stack.currentWidget()
    return window.chat.viewport() if current is window.chat else current


async def settled(window: MainWindow) -> None:
    await wait_until(lambda: not window.attachments.tray.busy, what="the files to be read")
    await wait_until(lambda: window.attachments.tray._pending == {}, what="the batch to end")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def media_rows(data_dir: Path, sha: str) -> int:
    with sqlite3.connect(data_dir / "parley.db") as conn:
        return int(
            conn.execute("SELECT COUNT(*) FROM media WHERE sha256 = ?", (sha,)).fetchone()[0]
        )


async def test_a_mixed_drop_attaches_the_good_files_and_names_each_bad_one(
    tmp_path: Path,
) -> None:
    files = make_files(tmp_path / "files")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["Got them."]}))
    try:
        target = drop_target(window)
        assert drag_over(target, drag_mime([files["png"]]))
        overlay = find(window, QLabel, "dropOverlay")
        assert overlay.isVisible() and overlay.text() == "Drop files to attach them"
        order = ["png", "bad", "pdf", "empty", "dir", "wav"]
        assert drop_on(target, [files[k] for k in order])
        assert not overlay.isVisible()
        await settled(window)
        bar = find(window, QWidget, "attachmentBar")
        assert bar.isVisible()
        assert [c.name for c in chips(window)] == ["screenshot.png", "report.pdf", "memo.wav"]
        size = {k: human_size(files[k].stat().st_size) for k in ("png", "pdf", "wav")}
        assert [c.detail.text() for c in chips(window)] == [
            f"320 × 200 · {size['png']}",
            f"2 pages · {size['pdf']}",
            f"0:02 · {size['wav']}",
        ]
        assert chips(window)[0].icon.pixmap() is not None
        assert not chips(window)[0].icon.pixmap().isNull()  # a real thumbnail
        problems = find(window, QLabel, "attachmentProblems")
        assert problems.isVisible()
        assert problems.text().splitlines() == [
            "broken.jpg: it is not a readable image: the file is damaged or cut off",
            "empty.txt: the file is empty (0 bytes)",
            "photos: it is a folder, not a file; attach the files inside it instead",
        ]
    finally:
        await close_test_window(window)


async def test_sending_stores_the_blocks_with_the_files_bytes_once(tmp_path: Path) -> None:
    files = make_files(tmp_path / "files")
    data = tmp_path / "data"
    window = await open_test_window(data, Models({"scripted:a": ["Seen."]}))
    try:
        twin = tmp_path / "files" / "copy of screenshot.png"
        twin.write_bytes(files["png"].read_bytes())
        drop_on(drop_target(window), [files["png"], twin, files["pdf"]])
        await settled(window)
        assert len(chips(window)) == 3
        composer = find(window, QPlainTextEdit, "composer")
        type_text(composer, "What do these show?")
        press(composer, Qt.Key.Key_Return)
        await wait_until(lambda: len(window.chat_vm.model.messages()) >= 2, what="the reply")
        assert not find(window, QWidget, "attachmentBar").isVisible()
        assert chips(window) == []
        page = await window.workspace.threads.read_messages(window.chat_vm.thread_id or "")
        user = next(m for m in page.messages if m.role == "user")
        assert user.text() == "What do these show?"
        images = [b for b in user.content if isinstance(b, ImageBlock)]
        docs = [b for b in user.content if isinstance(b, DocumentBlock)]
        assert [b.media.filename for b in images] == ["screenshot.png", "copy of screenshot.png"]
        sha = hashlib.sha256(files["png"].read_bytes()).hexdigest()
        assert images[0].media.sha256 == images[1].media.sha256 == sha
        stored = await window.workspace.attachments.media(images[0].media)
        assert stored == files["png"].read_bytes()
        assert media_rows(data, sha) == 1  # the same bytes twice, stored once
        assert docs[0].pages == [1, 2] and "Quarterly revenue rose 12 percent" in (
            docs[0].text or ""
        )
        pdf = await window.workspace.attachments.media(docs[0].media)
        assert pdf == files["pdf"].read_bytes()
    finally:
        await close_test_window(window)


async def test_pasting_an_image_attaches_it_and_text_still_pastes(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        image = QImage(120, 80, QImage.Format.Format_RGB32)
        image.fill(Qt.GlobalColor.darkCyan)
        QGuiApplication.clipboard().setImage(image)
        composer = find(window, QPlainTextEdit, "composer")
        composer.setFocus()
        press(composer, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        await settled(window)
        [chip] = chips(window)
        assert chip.name == "pasted image.png"
        assert isinstance(chip.block, ImageBlock)
        assert (chip.block.width, chip.block.height) == (120, 80)
        assert composer.toPlainText() == ""
        QGuiApplication.clipboard().setText("just words")
        press(composer, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        assert composer.toPlainText() == "just words"
        assert len(chips(window)) == 1
    finally:
        await close_test_window(window)


async def test_the_attach_button_opens_a_file_dialog_without_blocking(tmp_path: Path) -> None:
    files = make_files(tmp_path / "files")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        find(window, QPushButton, "attachButton").click()
        dialog = await wait_until(lambda: window.attachments.intake.dialog, what="the dialog")
        assert isinstance(dialog, QFileDialog) and dialog.isVisible()
        assert dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
        dialog.selectFile(str(files["wav"]))
        name = dialog.findChild(QLineEdit, "fileNameEdit")
        name.setText(str(files["wav"]))  # what a person types into the file name box
        dialog.accept()
        await wait_until(lambda: chips(window), what="a chip")
        await settled(window)
        [chip] = chips(window)
        assert isinstance(chip.block, AudioBlock) and chip.block.duration_s == 2.0
    finally:
        await close_test_window(window)


async def test_chips_are_removed_by_keyboard_and_by_their_button(tmp_path: Path) -> None:
    files = make_files(tmp_path / "files")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        drop_on(drop_target(window), [files["png"], files["pdf"], files["wav"]])
        await settled(window)
        first, second, third = chips(window)
        assert first.focusPolicy() & Qt.FocusPolicy.TabFocus
        first.setFocus()
        press(first, Qt.Key.Key_Delete)
        assert chips(window) == [second, third]
        second.setFocus()
        press(second, Qt.Key.Key_Backspace)
        assert chips(window) == [third]
        assert third.remove.accessibleName() == "Remove memo.wav"
        third.remove.click()
        assert chips(window) == []
        assert not find(window, QWidget, "attachmentBar").isVisible()
        assert window.attachments.tray.blocks() == []
    finally:
        await close_test_window(window)


async def test_the_warm_up_after_start_leaves_no_chip_and_the_first_drop_still_attaches(
    tmp_path: Path,
) -> None:
    from app.ui.app import warm_up
    from app.ui.chat.math.cache import math_images

    files = make_files(tmp_path / "files")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        typesetters = math_images().process.started
        await warm_up(window)
        # no formula yet: the typesetter's process is not started for nothing
        assert math_images().process.started == typesetters
        await asyncio.sleep(0)  # the warm-up's chip is deleted later
        assert chips(window) == []
        assert not find(window, QWidget, "attachmentBar").isVisible()
        drop_on(drop_target(window), [files["png"], files["pdf"]])
        await settled(window)
        assert [chip.name for chip in chips(window)] == ["screenshot.png", "report.pdf"]
        assert len(window.attachments.tray.blocks()) == 2
    finally:
        await close_test_window(window)


async def test_a_text_only_model_says_before_sending_that_it_will_not_see_an_image(
    tmp_path: Path,
) -> None:
    files = make_files(tmp_path / "files")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        drop_on(drop_target(window), [files["png"], files["pdf"]])
        await settled(window)
        fit = find(window, QLabel, "attachmentFit")
        await wait_until(lambda: fit.isVisible(), what="the note")
        assert fit.text() == "screenshot.png will be left out: scripted cannot take images."
        chips(window)[0].remove.click()
        await wait_until(lambda: not fit.isVisible(), what="the note to go")
    finally:
        await close_test_window(window)


async def test_only_attachments_can_be_sent_and_a_file_still_reading_holds_the_send(
    tmp_path: Path,
) -> None:
    files = make_files(tmp_path / "files")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["Nice."]}))
    try:
        drop_on(drop_target(window), [files["png"]])
        # Enter right away: the file may still be being read; then nothing is sent yet
        composer = find(window, QPlainTextEdit, "composer")
        if window.attachments.tray.busy:
            press(composer, Qt.Key.Key_Return)
            notice = window.notice.label
            await wait_until(lambda: "is still being read" in notice.text(), what="the notice")
            assert notice.text() == (
                "screenshot.png is still being read: wait a moment, or remove it to send now."
            )
            assert window.chat_vm.model.rowCount() == 0
        await settled(window)
        press(composer, Qt.Key.Key_Return)
        await wait_until(lambda: window.chat_vm.model.rowCount() >= 2, what="the reply")
        user = window.chat_vm.model.messages()[0]
        assert user.text() == "" and isinstance(user.content[0], ImageBlock)
    finally:
        await close_test_window(window)


async def test_cancelling_a_big_file_while_it_is_read_keeps_nothing_of_it(tmp_path: Path) -> None:
    big = tmp_path / "files" / "panorama.jpg"
    big.parent.mkdir()
    big.write_bytes(corpus.big_jpeg())
    data = tmp_path / "data"
    window = await open_test_window(data, Models({"scripted:a": []}))
    try:
        drop_on(drop_target(window), [big])
        [chip] = chips(window)
        await wait_until(lambda: chip.progress.value() > 0, what="progress on the chip")
        assert chip.busy and chip.progress.isVisible()
        assert chip.remove.accessibleName() == "Cancel reading panorama.jpg"
        chip.remove.click()
        assert chips(window) == []
        # the drop's reading ends either way: at once when the cancel stopped the file, after
        # reading and storing it when it did not
        await wait_until(lambda: not window.attachments.tray._batches, what="the drop to end")
        with sqlite3.connect(data / "parley.db") as conn:
            assert conn.execute("SELECT COUNT(*) FROM media").fetchone()[0] == 0
        assert window.attachments.tray.problems == []
    finally:
        await close_test_window(window)


async def test_ctrl_o_opens_the_attach_dialog(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        shortcut(window, "Ctrl+O")
        dialog = await wait_until(lambda: window.attachments.intake.dialog, what="the dialog")
        assert dialog.windowTitle() == "Attach files"
        dialog.reject()
        await wait_until(lambda: window.attachments.intake.dialog is None, what="it to close")
        assert chips(window) == []
    finally:
        await close_test_window(window)


async def test_files_dropped_on_the_message_box_attach_instead_of_pasting_their_paths(
    tmp_path: Path,
) -> None:
    files = make_files(tmp_path / "files")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        composer = find(window, QPlainTextEdit, "composer")
        assert drop_on(composer.viewport(), [files["pdf"]])
        await settled(window)
        assert [c.name for c in chips(window)] == ["report.pdf"]
        assert composer.toPlainText() == ""
    finally:
        await close_test_window(window)


def test_what_a_screen_reader_hears_after_a_drop() -> None:
    assert summary(1, []) == "1 file attached."
    assert summary(
        2, ["broken.jpg: it is not a readable image: the file is damaged or cut off"]
    ) == (
        "2 files attached. broken.jpg: it is not a readable image: the file is damaged or cut off."
    )


async def test_many_files_dropped_at_once_attach_in_order_and_a_clear_stops_the_rest(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    names = [f"note-{i:02}.txt" for i in range(13)]
    for i, name in enumerate(names):
        (folder / name).write_text(f"Note number {i}.\n")
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": []}))
    try:
        target = drop_target(window)
        assert drop_on(target, [folder / n for n in names])
        assert 0 < len(chips(window)) < len(names)  # the first chips at once, the rest after
        await settled(window)
        assert [chip.name for chip in chips(window)] == names
        texts = [b.text for b in window.attachments.tray.blocks() if isinstance(b, DocumentBlock)]
        assert texts == [f"Note number {i}.\n" for i in range(13)]
        window.attachments.tray.clear()
        others = [folder / f"other-{i:02}.txt" for i in range(13)]
        for i, path in enumerate(others):
            path.write_text(f"Another note, number {i}.\n")
        assert drop_on(target, others)
        window.attachments.tray.clear()  # sent, or cleared, before its chips were all made
        # the drop's chips would have been made, and its files read, before its batch ends
        await wait_until(lambda: not window.attachments.tray._batches, what="the drop to end")
        await settled(window)
        assert chips(window) == []
        assert window.attachments.tray.blocks() == []
        stored = [media_rows(tmp_path / "data", sha256_of(path)) for path in others]
        assert stored == [0] * 13, "nothing of the cleared drop was read into the store"
    finally:
        await close_test_window(window)
