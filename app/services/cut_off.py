"""Runs that were cut off: the app or the machine stopped while a turn was running.

The last checkpoint of such a thread still says ``running``. Resuming continues from that
checkpoint's pending steps (the engine runs only what had not finished: steps saved before are
not run again, and a tool call keeps its id, so its idempotency key is the same when it runs
again, and calls that finished beside a cut-off one keep the result they saved). Discarding
ends the run where it stopped: each tool call that got no result is answered with the result
it saved when it finished, or else a short note, so the model is never shown a call without
an answer.
"""

from __future__ import annotations

from app.core.errors import UserError
from app.core.state import AgentState, Message, ToolResultBlock
from app.core.state.message_marks import marks
from app.core.tools.node import saved_messages, tool_message_id
from app.services.state_edits import save_edited_state
from app.store import Store

__all__ = ["DISCARDED_NOTE", "discard_cut_off", "is_cut_off"]

DISCARDED_NOTE = "This call did not finish: the run was cut off and the user discarded it."
"""What the model reads for a tool call that a discarded run never answered."""


async def is_cut_off(store: Store, thread_id: str) -> bool:
    """Whether the thread's last saved step belongs to a run that never finished (call it
    only for threads no run of this process is running)."""
    overview = (await store.thread_overviews([thread_id])).get(thread_id)
    return overview is not None and overview.run_status == "running"


def _unanswered(state: AgentState, saved: dict[str, str]) -> list[Message]:
    """Tool messages answering the last assistant message's calls that have no result in the
    state: the result a call saved when it finished (``saved``), else the discarded note."""
    context = state.context
    last = next(  # the thread's own agent's: a delegate's work is not the thread's reply
        (
            i
            for i in range(len(context) - 1, -1, -1)
            if context[i].role == "assistant" and context[i].agent is None
        ),
        None,
    )
    if last is None:
        return []
    message = context[last]
    answered = {r.call_id for m in context[last + 1 :] for r in m.tool_results()}
    task_ids = [t.task_id for t in state.execution_meta.next_tasks]
    added: list[Message] = []
    for c in message.tool_calls():
        if c.id in answered:
            continue
        finished = saved_messages(saved, task_ids, c.id)
        added += finished or [
            Message.tool_message(
                [ToolResultBlock(call_id=c.id, output=DISCARDED_NOTE, status="error", name=c.name)],
                message_id=tool_message_id(message.message_id, c.id),
                metadata=marks(tool_error="discarded"),
            )
        ]
    return added


async def discard_cut_off(store: Store, thread_id: str) -> list[Message]:
    """End the thread's cut-off run without running anything more; return the messages added
    (one per tool call left without a result)."""
    if not await is_cut_off(store, thread_id):
        raise UserError("this thread has no cut-off run to discard")
    latest = await store.checkpointer.aget(thread_id, AgentState)
    if latest is None:
        raise UserError("this thread has nothing saved yet")
    saved = await store.checkpointer.aget_writes(thread_id, latest.checkpoint_id)
    added = _unanswered(latest.state, saved)
    meta = latest.state.execution_meta.model_copy(
        update={"status": "completed", "next_tasks": [], "interrupts": [], "resume": {}}
    )
    state = latest.state.model_copy(
        update={"context": [*latest.state.context, *added], "execution_meta": meta}
    )
    await save_edited_state(store, latest, state)
    return added
