"""The window answers an approval through the engine's one binding, as every front end does,
and the approval it is asked about is read back from the database once: by the run that
resumes it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QPushButton

from app.core.tools import ApprovalHandler
from app.store import Store
from app.ui.app import close_window
from tests.services.pause_reads import count_pause_reads
from tests.ui.approval_harness import Recorder, approval_dialog, audit, open_tool_window, send
from tests.ui.harness import find, wait_until


async def test_an_approved_call_runs_and_its_pause_is_read_once(tmp_path: Path) -> None:
    note = tmp_path / "oslo.txt"
    call = {"name": "write_note", "args": {"path": str(note), "content": "Pack a jacket"}}
    model = Recorder([{"tool_calls": [{**call, "id": "c1"}]}, {"text": "Saved your note."}])
    store = Store.open(tmp_path / "parley.db")
    reads = count_pause_reads(store)  # before the workspace hands its checkpointer to models
    window = await open_tool_window(tmp_path / "data", model, store=store)
    try:
        assert isinstance(window.approvals, ApprovalHandler)
        await send(window, "Note: pack a jacket")
        dialog = await approval_dialog(window)
        find(dialog, QPushButton, "approveButton").click()
        await wait_until(lambda: note.exists(), what="the note to be written")
        vm = window.chat_vm
        await wait_until(
            lambda: vm.thread_id and not vm.runs.is_running(vm.thread_id), what="the run to end"
        )
        assert note.read_text() == "Pack a jacket\n"
        assert await audit(window, vm.thread_id) == [
            ("write_note", "requested", "once", None),
            ("write_note", "approve", "once", None),
        ]
        assert reads.reads == 1
    finally:
        await close_window(window)
