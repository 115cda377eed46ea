"""``write_file`` in a real agent run: it pauses for approval, the request carries a diff
against the file as it is, and only an approval changes the file's bytes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from app.core.agent import create_agent
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import Resume
from app.core.models.scripted import ScriptedChatModel
from app.core.state import AgentState, HumanMessage, ToolResultBlock
from app.core.tools import requests_of
from app.tools._diff import MAX_DIFF_INPUT
from app.tools.files import MAX_WRITE_BYTES, file_tools
from tests.tools.helpers import ok, refused

CONFIG = {"thread_id": "t1", "tool_permissions": ["files:read", "files:write"]}


def _agent(root: Path, path: str, content: str) -> Any:
    call = {"name": "write_file", "args": {"path": path, "content": content}, "id": "w1"}
    model = ScriptedChatModel([{"text": "", "tool_calls": [call]}, {"text": "Saved."}])
    return create_agent(model, file_tools([root]), checkpointer=InMemoryCheckpointer())


def _result(state: AgentState) -> ToolResultBlock:
    blocks = [b for m in state.context for b in m.content if isinstance(b, ToolResultBlock)]
    assert len(blocks) == 1
    return blocks[0]


async def test_write_pauses_with_a_diff_and_writes_once_approved(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\n")
    agent = _agent(tmp_path, "notes.txt", "one\n2\nthree\nfour\n")
    paused = await agent.ainvoke({"messages": [HumanMessage("edit my notes")]}, CONFIG)
    assert paused.is_interrupted()
    assert (tmp_path / "notes.txt").read_text() == "one\ntwo\nthree\n"  # nothing written yet
    requests = requests_of(paused.execution_meta.interrupts[0].value)
    assert requests is not None and [r.tool for r in requests] == ["write_file"]
    preview = requests[0].preview
    assert preview is not None and preview.format == "diff" and preview.title == "notes.txt"
    assert preview.text == (
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n"
    )
    done = await agent.ainvoke(Resume({"w1": "approve"}), CONFIG)
    assert (tmp_path / "notes.txt").read_bytes() == b"one\n2\nthree\nfour\n"
    assert _result(done).output == "replaced notes.txt (17 bytes)"
    assert done.context[-1].text() == "Saved."


async def test_a_new_file_is_shown_against_nothing(tmp_path: Path) -> None:
    agent = _agent(tmp_path, "new.txt", "hello")
    paused = await agent.ainvoke({"messages": [HumanMessage("write")]}, CONFIG)
    requests = requests_of(paused.execution_meta.interrupts[0].value)
    assert requests is not None and requests[0].preview is not None
    assert requests[0].preview.text == (
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n\\ No newline at end of file\n"
    )
    assert not (tmp_path / "new.txt").exists()
    done = await agent.ainvoke(Resume({"w1": "approve"}), CONFIG)
    assert (tmp_path / "new.txt").read_bytes() == b"hello"
    assert _result(done).output == "created new.txt (5 bytes)"


async def test_a_denied_write_leaves_the_file_alone(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep me")
    agent = _agent(tmp_path, "notes.txt", "gone")
    await agent.ainvoke({"messages": [HumanMessage("edit")]}, CONFIG)
    done = await agent.ainvoke(Resume({"w1": {"decision": "deny", "reason": "no"}}), CONFIG)
    assert (tmp_path / "notes.txt").read_text() == "keep me"
    assert _result(done).status == "error"
    assert _result(done).output == "The user denied this call to 'write_file': no"


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("../escape.txt", "the path '../escape.txt' uses '..'"),
        ("OUTSIDE", "is outside the shared folders"),
        ("link/escape.txt", "the path 'link/escape.txt' leads through a link to"),
        ("pipe", "'pipe' is not a regular file, so it is not overwritten"),
    ],
)
async def test_a_write_that_cannot_happen_is_refused_before_anyone_is_asked(
    tmp_path: Path, path: str, said: str
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    os.mkfifo(root / "pipe")
    path = path.replace("OUTSIDE", str(outside / "escape.txt"))
    agent = _agent(root, path, "x")
    done = await agent.ainvoke({"messages": [HumanMessage("write")]}, CONFIG)
    assert not done.is_interrupted()
    assert _result(done).status == "error"
    assert str(_result(done).output).startswith("Tool 'write_file' failed: ")
    assert said in str(_result(done).output)
    assert list(outside.iterdir()) == [] and not (tmp_path / "escape.txt").exists()


async def test_write_refuses_what_it_should_not_replace(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    write_file = {t.name: t for t in file_tools([tmp_path])}["write_file"]
    said = await refused(write_file, path="pipe", content="x")
    assert (
        said == "Tool 'write_file' failed: 'pipe' is not a regular file, so it is not overwritten"
    )
    said = await refused(write_file, path="no/such/dir/a.txt", content="x")
    assert said == (
        "Tool 'write_file' failed: the folder 'no/such/dir' does not exist; create files in an "
        "existing folder"
    )
    said = await refused(write_file, path="big.txt", content="x" * (MAX_WRITE_BYTES + 1))
    assert said == (
        "Tool 'write_file' failed: the content is 5,000,001 bytes; at most 5,000,000 bytes may "
        "be written"
    )
    said = await refused(write_file, path="big.txt", content="x" * (MAX_WRITE_BYTES + 4_000))
    assert said == (
        "Tool 'write_file' failed: the content is 5.004 MB; at most 5.000 MB may be written"
    )
    said = await refused(write_file, path="big.txt", content="x" * (2 * MAX_WRITE_BYTES))
    assert said == "Tool 'write_file' failed: the content is 10.0 MB; at most 5.0 MB may be written"
    assert not (tmp_path / "big.txt").exists()
    assert await ok(write_file, path="a.txt", content="ünïcode") == "created a.txt (9 bytes)"
    assert (tmp_path / "a.txt").read_text() == "ünïcode"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "pipe"]  # no temp file left


async def test_replacing_keeps_the_files_mode(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o750)
    write_file = {t.name: t for t in file_tools([tmp_path])}["write_file"]
    assert await ok(write_file, path="run.sh", content="echo new\n") == (
        "replaced run.sh (9 bytes)"
    )
    assert script.read_text() == "echo new\n"
    assert script.stat().st_mode & 0o777 == 0o750


async def test_a_file_too_large_to_compare_is_named_instead_of_diffed(tmp_path: Path) -> None:
    (tmp_path / "big.log").write_bytes(b"x" * (MAX_DIFF_INPUT + 1))
    agent = _agent(tmp_path, "big.log", "short")
    paused = await agent.ainvoke({"messages": [HumanMessage("shrink it")]}, CONFIG)
    requests = requests_of(paused.execution_meta.interrupts[0].value)
    assert requests is not None and requests[0].preview is not None
    assert requests[0].preview.format == "text"
    assert requests[0].preview.text == (
        f"big.log will be replaced; it is {MAX_DIFF_INPUT + 1} bytes, too large to compare, "
        "so no diff is shown."
    )
