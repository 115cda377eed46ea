"""A Parley process to kill mid-run: it starts a turn whose second tool call hangs (while
``PARLEY_TEST_HANG`` is set), after a first call that finishes. Each call writes its label and
idempotency key to the file named by ``PARLEY_TEST_LOG``.

With ``parallel`` as the second argument the model asks for both calls in one message: the first
finishes while the second hangs, inside one step.

With ``approval`` as the second argument it instead asks for a ``guarded_stamp`` that needs
approval, logs ``paused`` once the run waits, and hangs there (a process killed while its
approval dialog is open).

With ``delegate`` as the second argument the thread's agent asks a delegate agent
(:data:`DELEGATES`), and the delegate makes the two calls: the process dies inside the
delegate's child run.

Run: ``python -m tests.e2e.window.cut_off_child DATA_DIR [approval|parallel|delegate]``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

from app.core.models import ScriptedChatModel
from app.core.tools import Runtime, tool

SCRIPT = [
    {"tool_calls": [{"name": "stamp", "args": {"label": "first"}, "id": "c1"}]},
    {"tool_calls": [{"name": "slow_stamp", "args": {"label": "second"}, "id": "c2"}]},
    {"text": "All done."},
]


def _log(line: str) -> None:
    with Path(os.environ["PARLEY_TEST_LOG"]).open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


@tool
def stamp(label: str, runtime: Runtime) -> str:
    """Write a label to the log."""
    _log(f"{label} {runtime.idempotency_key}")
    return f"stamped {label}"


@tool(timeout=120)
def slow_stamp(label: str, runtime: Runtime) -> str:
    """Write a label to the log, slowly."""
    _log(f"start {label} {runtime.idempotency_key}")
    if os.environ.get("PARLEY_TEST_HANG"):
        time.sleep(60)
    _log(f"done {label} {runtime.idempotency_key}")
    return f"stamped {label} slowly"


@tool(requires_approval=True)
def guarded_stamp(label: str, runtime: Runtime) -> str:
    """Write a label to the log, once a person allowed it."""
    _log(f"guarded {label} {runtime.idempotency_key}")
    return f"stamped {label} with approval"


TOOLS = [stamp, slow_stamp, guarded_stamp]
PARALLEL_SCRIPT = [
    {
        "tool_calls": [
            {"name": "stamp", "args": {"label": "first"}, "id": "c1"},
            {"name": "slow_stamp", "args": {"label": "second"}, "id": "c2"},
        ]
    },
]
APPROVAL_SCRIPT = [
    {"tool_calls": [{"name": "guarded_stamp", "args": {"label": "third"}, "id": "c3"}]},
]


DELEGATE_SCRIPT = [
    {"tool_calls": [{"name": "ask_stamper", "args": {"task": "Stamp twice"}, "id": "d1"}]},
]


def delegates() -> Any:
    """The agents of ``delegate`` mode: the thread's agent asks Stamper, who stamps."""
    from app.services.delegation import AgentChoice, AgentSpec

    agents = {
        "Parley": AgentSpec(name="Parley", delegates=("Stamper",)),
        "Stamper": AgentSpec(
            name="Stamper", model="scripted:stamper", tools=("stamp", "slow_stamp")
        ),
    }

    async def source(_thread: Any) -> AgentChoice:
        return AgentChoice("Parley", agents)

    return source


async def _main(data_dir: str, mode: str) -> None:
    from app.services.workspace import Workspace

    scripts = {
        "approval": APPROVAL_SCRIPT,
        "parallel": PARALLEL_SCRIPT,
        "delegate": DELEGATE_SCRIPT,
    }
    model = ScriptedChatModel(scripts.get(mode, SCRIPT))
    stamper = ScriptedChatModel(SCRIPT[:2])
    ws = await Workspace.open(
        data_dir,
        resolve_model=lambda spec: stamper if spec == "scripted:stamper" else model,
        secret_resolver=lambda ref: "",
        tools=TOOLS,
    )
    ws.settings.use(ws.settings.current.model_copy(update={"default_model": "scripted:a"}))
    if mode == "delegate":
        ws.models.use_agents(delegates())
    thread = await ws.threads.create(title="Cut off")
    await (await ws.runs.send(thread.id, "Stamp twice"))
    if mode == "approval":
        _log("paused")
        await asyncio.sleep(60)


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""))
