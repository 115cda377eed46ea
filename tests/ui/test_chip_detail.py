"""A chip's detail line is read whole: the chip widens once for it, and what is longer still
is elided with the whole line in its tooltip and spoken description."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.core.state.message_block import DataBlock, MediaRef
from app.ui.attachments.chip import MAX_TEXT_WIDTH, AttachmentChip


def _data(mime: str) -> DataBlock:
    media = MediaRef(kind="file_id", file_id="f1", mime_type=mime, size_bytes=126_000)
    return DataBlock(mime_type=mime, media=media)


def test_a_detail_a_little_long_is_shown_whole_in_a_wider_chip(qtbot: QtBot) -> None:
    chip = AttachmentChip("memo.bin")
    qtbot.addWidget(chip)
    before = chip.detail.minimumWidth()
    chip.set_block(_data("application/x-ndjson"), None)
    assert chip.detail.text() == "application/x-ndjson · 126.0 kB"
    assert chip.detail.fontMetrics().horizontalAdvance(chip.detail.text()) <= (
        chip.detail.minimumWidth()
    )
    assert chip.detail.minimumWidth() >= before
    assert chip.detail.toolTip() == ""


def test_a_detail_too_long_is_elided_and_whole_in_its_tooltip(qtbot: QtBot) -> None:
    chip = AttachmentChip("sheet.xlsx")
    qtbot.addWidget(chip)
    mime = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    chip.set_block(_data(mime), None)
    whole = f"{mime} · 126.0 kB"
    assert chip.detail.text().endswith("…")
    assert whole.startswith(chip.detail.text()[:-1])
    assert chip.detail.minimumWidth() == MAX_TEXT_WIDTH
    assert chip.detail.toolTip() == whole
    assert chip.accessibleDescription() == f"sheet.xlsx, {whole}"
