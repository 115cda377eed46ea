"""In the terminal a delegate agent's work does not run into the reply: each of its replies
is one bracketed line, escaped, and the thread agent's reply streams as before."""

from __future__ import annotations

import io

from app.cli.chat import _Printer
from app.core.state import ChunkMerge, Message, TextBlock
from app.core.state.message_marks import marks
from app.services.events import MessageAdded, MessageStreamed


def test_a_delegates_reply_is_one_line_and_the_agents_reply_streams() -> None:
    out = io.StringIO()
    printer = _Printer(out, io.StringIO())
    by = marks(agent="Researcher")
    partial = Message(role="assistant", content=[TextBlock(text="It is")], delta=True, metadata=by)
    printer(MessageStreamed("t", ChunkMerge(partial)))
    assert out.getvalue() == ""  # not while it is written
    whole = Message(
        role="assistant", content=[TextBlock(text="It is\n4 °C \x1b[2J now.")], metadata=by
    )
    printer(MessageAdded("t", whole))
    own = Message(role="assistant", content=[TextBlock(text="Researcher says 4 °C.")], delta=True)
    printer(MessageStreamed("t", ChunkMerge(own)))
    assert out.getvalue() == "\n[Researcher: It is 4 °C \\x1b[2J now.]\nResearcher says 4 °C."
