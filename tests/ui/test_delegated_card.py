"""A delegate's work in the thread is one foldable card: "Researcher — 3 steps, 2 tool
calls", its task shown while folded, its messages and tool calls inside when unfolded."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QListView, QStyleOptionViewItem

from app.core.state import Message, TextBlock, ToolCallBlock, ToolResultBlock
from app.core.state.message_marks import marks
from app.ui.chat.delegate import MessageDelegate
from app.ui.chat.message_model import MessageListModel


def by(agent: str | None, role: str, *content: object, mid: str) -> Message:
    meta = marks(agent=agent) if agent else {}
    return Message(role=role, content=list(content), metadata=meta, message_id=mid)  # type: ignore[arg-type]


def call(cid: str, name: str, **args: object) -> ToolCallBlock:
    return ToolCallBlock(id=cid, name=name, args=dict(args))


def result(cid: str, name: str, output: str) -> ToolResultBlock:
    return ToolResultBlock(call_id=cid, name=name, output=output, status="completed")


THREAD = [
    by(None, "user", TextBlock(text="Weather in Oslo?"), mid="u1"),
    by(None, "assistant", call("d1", "ask_researcher", task="Find it."), mid="a1"),
    by("Researcher", "user", TextBlock(text="Find it."), mid="r0"),
    by("Researcher", "assistant", call("s1", "search_web", query="oslo"), mid="r1"),
    by("Researcher", "tool", result("s1", "search_web", "4 °C"), mid="r2"),
    by("Researcher", "assistant", call("p1", "read_page", url="https://yr.no"), mid="r3"),
    by("Researcher", "tool", result("p1", "read_page", "light rain"), mid="r4"),
    by("Researcher", "assistant", TextBlock(text="4 °C and light rain."), mid="r5"),
    by(None, "tool", result("d1", "ask_researcher", "4 °C and light rain."), mid="t1"),
    by(None, "assistant", TextBlock(text="It will be 4 °C."), mid="a2"),
]


def view_of(messages: list[Message]) -> tuple[QListView, MessageListModel, MessageDelegate]:
    view = QListView()
    view.resize(900, 700)
    model = MessageListModel(view)
    view.setModel(model)
    delegate = MessageDelegate(view)
    view.setItemDelegate(delegate)
    model.reset(messages)
    return view, model, delegate


def heights(model: MessageListModel, delegate: MessageDelegate) -> list[int]:
    option = QStyleOptionViewItem()
    return [delegate.sizeHint(option, model.index(r, 0)).height() for r in range(model.rowCount())]


def test_a_delegates_work_is_one_folded_card_that_unfolds(qapp: QApplication) -> None:
    view, model, delegate = view_of(THREAD)
    card = model.index(2, 0)
    assert card.data() == "Researcher — 3 steps, 2 tool calls. Task: Find it."
    text = delegate.document(card).toPlainText()
    assert "Researcher — 3 steps, 2 tool calls" in text and "Task: Find it." in text
    folded = heights(model, delegate)
    # the card's rows are folded, and every result is drawn on its call's card
    assert [h == 0 for h in folded] == [False, False, False, *[True] * 5, True, False]

    delegate.expanded.add("r0:delegated")  # what the card's fold link toggles
    unfolded = heights(model, delegate)
    results = [3 + 1, 3 + 3, 8]  # the rows that hold only results of calls shown above
    assert [h == 0 for h in unfolded] == [r in results for r in range(len(THREAD))]
    inner = delegate.document(model.index(3, 0)).toPlainText()
    assert "search_web" in inner
    assert delegate.actions_for(THREAD[5]) == ("copy",)  # not the person's to edit or delete
    view.deleteLater()


def test_a_new_step_of_the_delegate_updates_its_cards_title(qapp: QApplication) -> None:
    view, model, delegate = view_of(THREAD[:5])
    assert model.index(2, 0).data().startswith("Researcher — 1 step, 1 tool call.")
    before = delegate.document(model.index(2, 0)).toPlainText()
    for message in THREAD[5:8]:
        model.upsert(message)
    after = delegate.document(model.index(2, 0)).toPlainText()
    assert "1 step, 1 tool call" in before and "3 steps, 2 tool calls" in after
    view.deleteLater()


def test_two_delegations_in_a_row_are_two_cards_and_a_nested_one_stays_inside(
    qapp: QApplication,
) -> None:
    nested = [
        by(None, "assistant", call("d1", "ask_a"), call("d2", "ask_b"), mid="p"),
        by("A", "user", TextBlock(text="task a"), mid="a0"),
        by("A", "assistant", call("g1", "ask_c", task="deeper"), mid="a1"),
        by("C", "user", TextBlock(text="deeper"), mid="c0"),
        by("C", "assistant", TextBlock(text="c says"), mid="c1"),
        by("A", "tool", result("g1", "ask_c", "c says"), mid="a2"),
        by("A", "assistant", TextBlock(text="a says"), mid="a3"),
        by("B", "user", TextBlock(text="task b"), mid="b0"),
        by("B", "assistant", TextBlock(text="b says"), mid="b1"),
    ]
    view, model, _ = view_of(nested)
    cards = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert cards[1] == "A — 2 steps, 1 tool call. Task: task a"
    assert cards[7] == "B — 1 step, 0 tool calls. Task: task b"
    assert not cards[3].startswith("C —")  # C's work is inside A's card
    view.deleteLater()
