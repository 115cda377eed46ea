"""A thread exported as Markdown says which messages a delegate agent wrote."""

from __future__ import annotations

from app.core.checkpoint.base import Checkpoint, new_checkpoint_id
from app.core.state import AgentState, Message
from app.core.state.agent_state import apply_update
from app.core.state.message_marks import marks
from app.store import Store


async def test_a_delegates_task_and_answer_are_headed_with_its_name(store: Store) -> None:
    await store.create_thread("Oslo", thread_id="t")
    researcher = marks(agent="Web\nResearcher")
    messages = [
        Message.text_message("Weather?"),
        Message.text_message("Find it.", metadata=researcher),
        Message.text_message("4 °C.", role="assistant", metadata=researcher),
        Message.text_message("It is 4 °C.", role="assistant"),
    ]
    state = apply_update(AgentState(), {"context": messages})
    await store.checkpointer.aput(Checkpoint("t", new_checkpoint_id(), None, 0, state), None)
    text = await store.export_markdown("t")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [
        "## You",
        "## Task for Web Researcher",
        "## Web Researcher",
        "## Assistant",
    ]
