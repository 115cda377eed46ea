"""Resizing the window keeps the messages' layouts while their text keeps its width (a reply
is not rendered again from scratch when only the height changes), and lays them out again at
the new width when it changes, from the HTML they had (the width changes no word of it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QListView, QStyleOptionViewItem

from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

REPLY = "".join(f"Paragraph {i} with **bold** and `code`.\n\n" for i in range(40))


async def test_a_new_height_keeps_the_layouts_and_a_new_width_redoes_them(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": REPLY}]}))
    try:
        window.resize(1200, 800)
        view = find(window, QListView, "chatView")
        assert await window.chat_vm.send("Write a lot")
        await wait_until(lambda: view.model().rowCount() == 2 and not view.vm.runs.any_running())
        await wait_until(lambda: not view.delegate.behind, what="the whole reply drawn")
        await asyncio.sleep(0.2)
        index = view.model().index(1, 0)
        before = view.delegate._laid(index, view.delegate.text_width())
        window.resize(1200, 600)
        await asyncio.sleep(0.2)
        assert view.delegate._laid(index, view.delegate.text_width()) is before
        window.resize(700, 600)
        await asyncio.sleep(0.2)
        width = view.delegate.text_width()
        after = view.delegate._laid(index, width)
        assert after is not before
        assert {p.doc.textWidth() for p in after.parts} == {width}
        assert after.doc.toPlainText().rstrip().endswith("Paragraph 39 with bold and code.")
        assert after.html is before.html  # laid out anew, not rendered again: same HTML
        reply = view.model().message_at(1)
        view.delegate.forget(str(reply.message_id))  # this row only: rendered anew
        again = view.delegate._laid(index, width)
        assert again is not after and again.html is not after.html
        assert again.html == after.html
    finally:
        await close_test_window(window)


async def test_a_reply_growing_past_the_window_is_followed_to_its_end(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": REPLY}]}, delay=0.002)
    window = await open_test_window(tmp_path, models)
    try:
        window.resize(1200, 500)
        view = find(window, QListView, "chatView")
        bar = view.verticalScrollBar()
        assert await window.chat_vm.send("Write a lot")
        await wait_until(lambda: bar.maximum() > 0, what="the reply to outgrow the window")
        await wait_until(lambda: not view.vm.runs.any_running(), what="the reply's end")
        await asyncio.sleep(0.3)
        assert bar.value() == bar.maximum() > 0
        last = view.visualRect(view.model().index(1, 0))
        assert last.bottom() <= view.viewport().height() + 1
        assert (
            last.height()
            == view.delegate.sizeHint(QStyleOptionViewItem(), view.model().index(1, 0)).height()
        )
    finally:
        await close_test_window(window)
