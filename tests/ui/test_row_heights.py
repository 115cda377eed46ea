"""Row heights are kept per revision of a message, so laying out a long thread's rows again
(which the view does whenever one row grows) is cheap; a kept height is never stale: a row that
changes, a narrower window and a card unfolded all get their new height on screen."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QListView

from app.core.state import Message
from app.core.state.message_block import ToolCallBlock
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until

REPLY = "".join(f"Paragraph {i} with **bold** and `code`, " * 5 + "\n\n" for i in range(12))


def _rows_fit(view: QListView) -> bool:
    """Whether every row is drawn exactly as tall as its laid-out text asks."""
    delegate = view.delegate  # type: ignore[attr-defined]
    for row in range(view.model().rowCount()):
        index = view.model().index(row, 0)
        laid = delegate._laid(index, delegate.text_width())
        # the space above the text (header, or none for a row going on with the reply above),
        # the text, the footer and the gap below
        if view.visualRect(index).height() != delegate.lead(index) + int(laid.height) + 22 + 10:
            return False
    return True


async def test_rows_take_their_new_height_whatever_changed(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": [{"text": REPLY}]}))
    try:
        window.resize(1200, 800)
        view = find(window, QListView, "chatView")
        assert await window.chat_vm.send("Write a little")
        await wait_until(lambda: view.model().rowCount() == 2, what="the reply's row")
        await wait_until(lambda: not view.delegate.behind, what="the whole reply drawn")
        await wait_until(lambda: _rows_fit(view), what="rows as tall as their text")
        model = view.model()
        reply = model.index(1, 0)
        tall = view.visualRect(reply).height()

        window.resize(700, 800)  # narrower: the text wraps onto more lines
        await wait_until(lambda: view.visualRect(reply).height() > tall, what="a taller reply")
        await wait_until(lambda: _rows_fit(view), what="rows as tall as their text")

        question = model.index(0, 0)
        short = view.visualRect(question).height()
        longer = model.message_at(0)
        assert longer is not None
        edited = longer.model_copy(update={"content": Message.text_message(REPLY).content})
        model.upsert(edited)  # the same row, a new revision
        await wait_until(lambda: view.visualRect(question).height() > short, what="a taller row")
        await wait_until(lambda: _rows_fit(view), what="rows as tall as their text")

        call = ToolCallBlock(id="c1", name="calculator", args={"expression": "2+2", "n": [1] * 30})
        model.upsert(Message(role="assistant", content=[call]))
        await wait_until(lambda: model.rowCount() == 3, what="the tool call's row")
        card = model.index(2, 0)
        await wait_until(lambda: _rows_fit(view), what="rows as tall as their text")
        folded = view.visualRect(card).height()
        view._on_link(f"toggle:{model.message_at(2).message_id}:0", 2)  # as a click on its title
        await wait_until(lambda: view.visualRect(card).height() != folded, what="the card unfolded")
        await wait_until(lambda: _rows_fit(view), what="rows as tall as their text")
    finally:
        await close_test_window(window)
