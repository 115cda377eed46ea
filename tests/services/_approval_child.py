"""Child process for the fresh-process test: starts or resumes an agent turn on a database.

Usage: python -m tests.services._approval_child DB start|resume THREAD_ID
Prints one JSON line describing the state it ended in.
"""

from __future__ import annotations

import asyncio
import json
import sys

from app.core import HumanMessage, Resume, create_agent, tool
from app.core.models import ScriptedChatModel
from app.store import Store


@tool(requires_approval=True)
def send_email(to: str, subject: str) -> str:
    """Send an email."""
    return f"sent to {to}: {subject}"


async def main(db: str, action: str, thread_id: str) -> None:
    model = ScriptedChatModel(
        [
            {
                "tool_calls": [
                    {"id": "c1", "name": "send_email", "args": {"to": "a@b.c", "subject": "hi"}}
                ]
            },
            {"text": "Email sent."},
        ]
    )
    if action == "resume":
        model = ScriptedChatModel([{"text": "Email sent."}])
    store = Store.open(db)
    try:
        agent = create_agent(model, [send_email], checkpointer=store.checkpointer)
        cfg = {"thread_id": thread_id}
        if action == "start":
            await store.create_thread("fresh process", thread_id=thread_id)
            state = await agent.ainvoke({"messages": [HumanMessage("mail a@b.c")]}, cfg)
        else:
            state = await agent.ainvoke(Resume({"c1": "approve"}), cfg)
        print(
            json.dumps(
                {
                    "status": state.execution_meta.status,
                    "interrupts": [i.id for i in state.execution_meta.interrupts],
                    "texts": [m.text() for m in state.context],
                    "results": [str(r.output) for m in state.context for r in m.tool_results()],
                }
            )
        )
    finally:
        await store.aclose()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
