"""A server's answer is cut as the web tools cut a page: 8 MB of text reaches the model and
the thread as its first 40,000 characters and a note; an answer over 20 MB is not read past
that (the call fails with a sentence saying so) and the server goes on answering. Over stdio
and over HTTP alike."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.state import HumanMessage
from app.tools.mcp import McpManager, ServerConfig
from app.tools.mcp._cap import MAX_RESULT_CHARS
from tests.tools.mcp.big_server import LINE
from tests.tools.mcp.helpers import agent_calling, calling_model, free_port, results
from tests.tools.mcp.test_http import HttpDemo

BIG = Path(__file__).with_name("big_server.py")
CONFIG = {"thread_id": "t1", "tool_permissions": ["mcp:big"]}


@pytest.fixture(params=["stdio", "http"])
def big(request: pytest.FixtureRequest) -> Iterator[ServerConfig]:
    """The big server run by Parley over stdio, or as its own process over HTTP."""
    if request.param == "stdio":
        yield ServerConfig(name="big", command=sys.executable, args=[str(BIG)], policy="allowed")
        return
    process = HttpDemo(free_port(), BIG)
    process.start()
    yield ServerConfig(name="big", url=process.url, policy="allowed")
    process.stop()


async def test_eight_megabytes_of_text_are_cut_with_a_note(
    tmp_path: Path, big: ServerConfig
) -> None:
    async with McpManager([big], log_dir=tmp_path) as manager:
        assert await manager.start() == {}
        calls = [{"name": "big__blob", "args": {"megabytes": 8}, "id": "c1"}]
        model = calling_model(calls)
        agent, _ = agent_calling(manager.tools(), calls, model=model)
        done = await agent.ainvoke({"messages": [HumanMessage("Big")]}, CONFIG)
    [result] = results(done)
    assert result.status == "completed"
    kept = (LINE * (MAX_RESULT_CHARS // len(LINE) + 1))[:MAX_RESULT_CHARS]
    note = "[... the result was cut at 40000 characters; the server sent 8000000]"
    assert result.output == f"{kept}\n{note}"
    sent = model.calls[-1][-1]
    assert sent.tool_results()[0].output == result.output
    assert len(sent.model_dump_json()) < 50_000


async def test_a_picture_over_five_megabytes_is_left_out_with_a_note(
    tmp_path: Path, big: ServerConfig
) -> None:
    async with McpManager([big], log_dir=tmp_path) as manager:
        assert await manager.start() == {}
        calls = [{"name": "big__picture", "args": {"megabytes": 6}, "id": "c1"}]
        agent, _ = agent_calling(manager.tools(), calls)
        done = await agent.ainvoke({"messages": [HumanMessage("Big")]}, CONFIG)
    [result] = results(done)
    assert result.output == "[... the image of 6.0 MB was left out: at most 5.0 MB is kept]"


async def test_an_answer_over_twenty_megabytes_is_not_read_and_the_server_goes_on(
    tmp_path: Path, big: ServerConfig
) -> None:
    async with McpManager([big], log_dir=tmp_path) as manager:
        assert await manager.start() == {}
        conn = manager.connection("big")
        before = (await conn.call_tool("pid", {})).structured_content
        calls = [{"name": "big__blob", "args": {"megabytes": 50}, "id": "c1"}]
        agent, _ = agent_calling(manager.tools(), calls)
        done = await agent.ainvoke({"messages": [HumanMessage("Huge")]}, CONFIG)
        after = (await conn.call_tool("pid", {})).structured_content
    [result] = results(done)
    assert result.status == "error"
    # the SDK's server sends the text twice (as content and as structured content), escaped;
    # over HTTP the size is not known, as reading stopped at the limit
    size = " (101.4 MB)" if big.transport == "stdio" else ""
    assert result.output == (
        "Tool 'big__blob' failed: McpServerError: server 'big' answered the call to 'blob' "
        f"with more than 20.0 MB{size}, so Parley stopped reading it; ask it for less at a time"
    )
    assert after == before  # the same process answers: nothing had to be restarted
