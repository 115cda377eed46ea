"""A tool card unfolds and folds by moving its row's height, from where it was to where it
lays out now: the card's state changes at once (what the row says), the height starts where it
was and ends exactly where the new layout asks; nothing moves when the style animates no
widget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QListView, QStyleOptionViewItem

from app.core.state import Message
from app.core.state.message_block import ToolCallBlock
from app.ui.chat.unfolding import StillStyle
from app.ui.window import MainWindow
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until
from tests.ui.test_row_heights import _rows_fit


def _tool_call() -> Message:
    """A reply whose one tool call's card unfolds to a long list of arguments."""
    args = {"expression": "2+2", "n": list(range(40))}
    return Message(role="assistant", content=[ToolCallBlock(id="c1", name="calc", args=args)])


async def _chat(tmp_path: Path) -> tuple[MainWindow, Any]:
    """A window of the test's size and its chat view (a ``ChatView``)."""
    window = await open_test_window(tmp_path, Models({}))
    window.resize(1200, 800)
    return window, find(window, QListView, "chatView")


async def test_a_card_moves_to_its_new_height_and_ends_there(tmp_path: Path) -> None:
    window, view = await _chat(tmp_path)
    try:
        model, delegate = view.model(), view.delegate
        message = _tool_call()
        model.upsert(message)
        await wait_until(lambda: model.rowCount() == 1, what="the tool call's row")
        card = model.index(0, 0)
        await wait_until(lambda: _rows_fit(view), what="rows as tall as their text")
        folded = view.visualRect(card).height()
        assert view.unfolding.enabled()
        option = QStyleOptionViewItem()

        view._on_link(f"toggle:{message.message_id}:0", 0)
        assert "Arguments" in delegate.document(card).toPlainText()  # unfolded at once
        assert delegate.sizeHint(option, card).height() == folded  # the height starts there
        await wait_until(lambda: not view.unfolding.moving(), what="the card unfolded")
        await wait_until(lambda: _rows_fit(view), what="the row as tall as its text")
        unfolded = view.visualRect(card).height()
        assert unfolded > folded

        view._on_link(f"toggle:{message.message_id}:0", 0)
        assert "Arguments" not in delegate.document(card).toPlainText()  # folded at once
        assert delegate.sizeHint(option, card).height() == unfolded
        await wait_until(lambda: not view.unfolding.moving(), what="the card folded")
        await wait_until(lambda: view.visualRect(card).height() == folded, what="folded height")

        still = StillStyle()  # kept while the view uses it: a widget does not own its style
        view.setStyle(still)
        view._on_link(f"toggle:{message.message_id}:0", 0)
        assert not view.unfolding.moving()
        assert delegate.sizeHint(option, card).height() == unfolded
        view.setStyle(None)  # the application's again
    finally:
        await close_test_window(window)


async def test_a_card_unfolding_lays_out_its_own_row_only(tmp_path: Path) -> None:
    window, view = await _chat(tmp_path)
    try:
        model, delegate = view.model(), view.delegate
        for i in range(6):
            model.upsert(Message.text_message(f"Message {i} with **bold** text", role="user"))
        call = _tool_call()
        model.upsert(call)
        await wait_until(lambda: model.rowCount() == 7, what="the rows")
        await wait_until(lambda: _rows_fit(view), what="rows as tall as their text")
        others = [model.index(row, 0) for row in range(6)]
        before = [delegate.document(index) for index in others]

        view._on_link(f"toggle:{call.message_id}:0", 6)
        await wait_until(lambda: not view.unfolding.moving(), what="the card unfolded")
        await wait_until(lambda: _rows_fit(view), what="the row as tall as its text")
        assert "Arguments" in delegate.document(model.index(6, 0)).toPlainText()
        # the other rows kept their layouts (and heights): none was laid out again
        assert all(delegate.document(i) is doc for i, doc in zip(others, before, strict=True))

        card = delegate.document(model.index(6, 0))
        delegate.forget(str(call.message_id))  # that row only is laid out anew
        assert delegate.document(model.index(6, 0)) is not card
        assert all(delegate.document(i) is doc for i, doc in zip(others, before, strict=True))
        await wait_until(lambda: _rows_fit(view), what="rows as tall as their text")
    finally:
        await close_test_window(window)
