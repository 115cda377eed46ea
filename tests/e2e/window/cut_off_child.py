"""A Parley process to kill mid-run: it starts a turn whose second tool call hangs (while
``PARLEY_TEST_HANG`` is set), after a first call that finishes. Each call writes its label and
idempotency key to the file named by ``PARLEY_TEST_LOG``.

With ``parallel`` as the second argument the model asks for both calls in one message: the first
finishes while the second hangs, inside one step.

With ``approval`` as the second argument it instead asks for a ``guarded_stamp`` that needs
approval, logs ``paused`` once the run waits, and hangs there (a process killed while its
approval dialog is open).

With ``delegate`` as the second argument the thread is one of a saved agent, Planner, who asks
the saved agent Stamper; Stamper makes the two calls through the tools of an MCP server
(:mod:`tests.e2e.window.stamp_server`, whose slow call waits while the file ``hold`` beside the
log is there): the process dies inside the delegate's child run.

Run: ``python -m tests.e2e.window.cut_off_child DATA_DIR [approval|parallel|delegate]``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from app.core.models import ScriptedChatModel
from app.core.tools import Runtime, tool
from app.services.agents import Agent
from app.services.mcp.config import McpConfig
from app.services.workspace import Workspace
from app.store import Thread
from tests.e2e.window.stamp_server import SLOW_STAMP, STAMP, stamp_config

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
STAMPER_SCRIPT = [
    {"tool_calls": [{"name": STAMP, "args": {"label": "first"}, "id": "c1"}]},
    {"tool_calls": [{"name": SLOW_STAMP, "args": {"label": "second"}, "id": "c2"}]},
]


def hold_file(log: Path) -> Path:
    """The file the MCP server's slow call waits on, beside ``log``."""
    return log.with_name("hold")


def configure_stamps(data_dir: str) -> None:
    """Put the MCP server in ``mcp.json``, its slow call waiting until the hold file goes."""
    log = Path(os.environ["PARLEY_TEST_LOG"])
    hold_file(log).touch()
    McpConfig.for_data_dir(data_dir).add(stamp_config(log, hold_file(log)))


async def delegating_thread(ws: Workspace) -> Thread:
    """A thread of Planner, saved as a person saves agents, who asks Stamper, who stamps
    through the MCP server's tools."""
    await ws.mcp.start_servers()
    await ws.agents.add(Agent(name="Stamper", model="scripted:stamper", tools=(STAMP, SLOW_STAMP)))
    planner = await ws.agents.add(Agent(name="Planner", delegates=("Stamper",)))
    return await ws.threads.create(title="Cut off", agent_id=planner.id)


async def _main(data_dir: str, mode: str) -> None:
    scripts = {
        "approval": APPROVAL_SCRIPT,
        "parallel": PARALLEL_SCRIPT,
        "delegate": DELEGATE_SCRIPT,
    }
    model = ScriptedChatModel(scripts.get(mode, SCRIPT))
    stamper = ScriptedChatModel(STAMPER_SCRIPT)
    if mode == "delegate":
        configure_stamps(data_dir)
    ws = await Workspace.open(
        data_dir,
        resolve_model=lambda spec: stamper if spec == "scripted:stamper" else model,
        secret_resolver=lambda ref: "",
        tools=TOOLS,
    )
    ws.settings.use(ws.settings.current.model_copy(update={"default_model": "scripted:a"}))
    if mode == "delegate":
        thread = await delegating_thread(ws)
    else:
        thread = await ws.threads.create(title="Cut off")
    await (await ws.runs.send(thread.id, "Stamp twice"))
    if mode == "approval":
        _log("paused")
        await asyncio.sleep(60)


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""))
