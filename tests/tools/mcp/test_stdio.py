"""Real MCP servers over stdio: the published time server and the SDK-built demo server,
called through the agent, with approvals, errors, timeouts, crashes and restarts."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from app.core.graph import Resume, ToolProgress
from app.core.state import HumanMessage, ImageBlock, TextBlock
from app.core.tools import requests_of
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.tools.mcp import Backoff, McpManager, McpServerError, ServerConfig
from tests.services.memory_keyring import MemoryKeyring
from tests.tools.mcp.helpers import agent_calling, demo_config, results, time_config

CONFIG = {"thread_id": "t1", "tool_permissions": ["mcp:time", "mcp:demo"]}


async def test_the_time_server_converts_a_time_through_the_agent(tmp_path: Path) -> None:
    allowed = time_config().model_copy(update={"policy": "allowed"})
    async with McpManager([allowed], log_dir=tmp_path) as manager:
        assert await manager.start() == {}
        tools = {t.name: t for t in manager.tools()}
        assert set(tools) == {"time__get_current_time", "time__convert_time"}
        convert = tools["time__convert_time"]
        assert convert.policy == "allowed"  # the user allowed the server's tools
        assert convert.spec.parameters["required"] == [
            "source_timezone",
            "time",
            "target_timezone",
        ]
        call = {
            "name": "time__convert_time",
            "args": {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
            "id": "c1",
        }
        agent, _ = agent_calling(list(tools.values()), [call], "It is 21:00 in Tokyo.")
        done = await agent.ainvoke({"messages": [HumanMessage("Noon UTC in Tokyo?")]}, CONFIG)
    [result] = results(done)
    assert result.status == "completed"
    assert "21:00" in str(result.output)
    assert "Asia/Tokyo" in str(result.output)
    assert done.context[-1].text() == "It is 21:00 in Tokyo."


async def test_tools_are_named_by_server_with_the_server_schema_and_policy(
    tmp_path: Path,
) -> None:
    servers = [demo_config(policy=None, tools={"echo": "off", "pid": "allowed"})]
    async with McpManager(servers, log_dir=tmp_path) as manager:
        await manager.start()
        tools = {t.name: t for t in manager.tools()}
    assert "demo__echo" not in tools  # turned off by the user
    assert tools["demo__add"].policy == "approval"  # says it is read-only: a claim, it asks
    assert tools["demo__write_note"].policy == "approval"  # destructive
    assert tools["demo__pid"].policy == "allowed"  # unannotated, but the user allowed it
    assert tools["demo__add"].spec.parameters["properties"]["a"]["type"] == "integer"
    assert tools["demo__add"].description == "Add two whole numbers."
    assert tools["demo__add"].permissions == ("mcp:demo",)


async def test_a_destructive_tool_waits_for_approval_then_runs(tmp_path: Path) -> None:
    call = {"name": "demo__write_note", "args": {"text": "buy tea"}, "id": "c1"}
    async with McpManager([demo_config()], log_dir=tmp_path) as manager:
        await manager.start()
        agent, policy = agent_calling(manager.tools(), [call])
        paused = await agent.ainvoke({"messages": [HumanMessage("Note: buy tea")]}, CONFIG)
        assert paused.is_interrupted()
        [request] = requests_of(paused.execution_meta.interrupts[0].value) or []
        assert (request.tool, request.args) == ("demo__write_note", {"text": "buy tea"})
        assert results(paused) == []  # nothing ran before the decision
        done = await agent.ainvoke(Resume({"c1": "approve"}), CONFIG)
    assert [r.output for r in results(done)] == ["noted: buy tea"]
    assert [e.event for e in policy.audit] == ["requested", "decided"]


async def test_a_denied_call_never_reaches_the_server(tmp_path: Path) -> None:
    call = {"name": "demo__write_note", "args": {"text": "x"}, "id": "c1"}
    async with McpManager([demo_config()], log_dir=tmp_path) as manager:
        await manager.start()
        agent, _ = agent_calling(manager.tools(), [call])
        await agent.ainvoke({"messages": [HumanMessage("Note")]}, CONFIG)
        answer = {"c1": {"decision": "deny", "reason": "not now"}}
        done = await agent.ainvoke(Resume(answer), CONFIG)
    [result] = results(done)
    assert result.status == "error"
    assert result.output == "The user denied this call to 'demo__write_note': not now"


async def test_errors_reach_the_model_as_error_results(tmp_path: Path) -> None:
    calls = [
        {"name": "demo__fail", "args": {"why": "the moon is full"}, "id": "c1"},
        {"name": "demo__add", "args": {"a": "two", "b": 3}, "id": "c2"},
        {"name": "demo__add", "args": {"a": 2, "b": 3}, "id": "c3"},
    ]
    async with McpManager([demo_config(policy="allowed")], log_dir=tmp_path) as manager:
        await manager.start()
        agent, _ = agent_calling(manager.tools(), calls)
        done = await agent.ainvoke({"messages": [HumanMessage("Go")]}, CONFIG)
    fail, bad_args, good = results(done)
    assert fail.status == "error"
    assert fail.output == (
        "Tool 'demo__fail' failed: McpToolError: Error executing tool fail: cannot do that: "
        "the moon is full"
    )
    assert bad_args.status == "error"
    assert "demo__add" in str(bad_args.output) and "a" in str(bad_args.output)
    assert (good.status, good.output) == ("completed", "5")


async def test_a_slow_call_times_out_with_a_reason_and_the_server_stays_usable(
    tmp_path: Path,
) -> None:
    calls = [{"name": "demo__slow", "args": {"seconds": 30}, "id": "c1"}]
    config = demo_config(timeout=0.5, policy="allowed")
    async with McpManager([config], log_dir=tmp_path) as manager:
        await manager.start()
        agent, _ = agent_calling(manager.tools(), calls)
        done = await agent.ainvoke({"messages": [HumanMessage("Wait")]}, CONFIG)
        conn = manager.connection("demo")
        after = await conn.call_tool("add", {"a": 1, "b": 1})
    [result] = results(done)
    assert result.status == "error"
    assert (
        "server 'demo' did not answer the call to 'slow' within 0.5 s; the call was given up"
        in str(result.output)
    )
    assert str(conn.log_path) in str(result.output)
    assert after.structured_content == {"result": 2}


@pytest.mark.slow
async def test_a_crash_mid_call_is_reported_and_the_server_comes_back(tmp_path: Path) -> None:
    servers = [demo_config(tools={"crash": "allowed", "pid": "allowed"})]
    async with McpManager(servers, log_dir=tmp_path) as manager:
        await manager.start()
        conn = manager.connection("demo")
        before = (await conn.call_tool("pid", {})).structured_content
        calls = [{"name": "demo__crash", "args": {}, "id": "c1"}]
        agent, _ = agent_calling(manager.tools(), calls)
        done = await agent.ainvoke({"messages": [HumanMessage("Crash")]}, CONFIG)
        [result] = results(done)
        assert result.status == "error"
        assert (
            "server 'demo' stopped unexpectedly (last words: crashing on purpose), during the "
            "call to 'crash'; it will be restarted" in str(result.output)
        )
        assert done.context[-1].text() == "Done."  # the run went on
        again = (await conn.call_tool("pid", {})).structured_content
        assert conn.state == "running" and conn.starts == 2
    assert again != before  # a new process answers
    log = conn.log_path.read_text()
    assert "crashing on purpose" in log and "crashed:" in log


@pytest.mark.slow
async def test_a_crashed_server_restarts_on_its_own_after_a_pause(tmp_path: Path) -> None:
    backoff = Backoff(first=0.2)
    async with McpManager([demo_config()], log_dir=tmp_path, backoff=backoff) as manager:
        await manager.start()
        conn = manager.connection("demo")
        with pytest.raises(McpServerError, match="stopped unexpectedly"):
            await conn.call_tool("crash", {})
        assert conn.state == "crashed"
        for _ in range(200):  # the first restart comes after 0.2 s, then it starts
            if conn.state == "running":
                break
            await asyncio.sleep(0.05)
        assert (conn.state, conn.starts) == ("running", 2)


async def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    servers = [
        ServerConfig(name="gone", command="parley-no-such-command"),
        demo_config("quits", "--exit-at-start", "DEMO_TOKEN is not set"),
    ]
    async with McpManager(servers, log_dir=tmp_path) as manager:
        failures = await manager.start()
        assert manager.tools() == []
    assert failures["gone"].startswith(
        "server 'gone' could not start: the command 'parley-no-such-command' was not found"
    )
    assert failures["quits"].startswith(
        "server 'quits' exited before it answered (last words: DEMO_TOKEN is not set)"
    )
    assert f"its log is {tmp_path / 'quits.log'}" in failures["quits"]
    assert "DEMO_TOKEN is not set" in (tmp_path / "quits.log").read_text()


async def test_stderr_goes_to_the_log_and_stopping_ends_the_process(tmp_path: Path) -> None:
    async with McpManager([demo_config()], log_dir=tmp_path) as manager:
        await manager.start()
        conn = manager.connection("demo")
        pid = (await conn.call_tool("pid", {})).structured_content["result"]  # type: ignore[index]
        await conn.call_tool("echo", {"text": "hello log"})
    assert conn.state == "stopped"
    with pytest.raises(McpServerError, match="server 'demo' has been shut down with Parley"):
        await conn.call_tool("pid", {})
    assert "echo called with 'hello log'" in conn.log_path.read_text()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass
    else:
        raise AssertionError(f"the server process {pid} is still running")


async def test_a_server_that_never_answers_does_not_hold_up_the_event_loop(
    tmp_path: Path,
) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    mute = ServerConfig(name="mute", command="sleep", args=["60"])
    beat = asyncio.create_task(ticker())
    loop = asyncio.get_running_loop()
    async with McpManager([mute], log_dir=tmp_path, start_timeout=1) as manager:
        started = loop.time()
        failures = await manager.start()
        waited = loop.time() - started
    beat.cancel()
    assert failures["mute"].startswith("server 'mute' did not answer within 1 s of starting")
    assert waited < 30, "start gave up on its own, long before the server's 60 s were over"
    assert ticks >= 10  # the loop kept running other work all along (100 ticks when idle)
    assert manager.connection("mute").state == "stopped"


async def test_resources_and_prompts_can_be_listed_and_attached(tmp_path: Path) -> None:
    async with McpManager([demo_config()], log_dir=tmp_path) as manager:
        resources = await manager.list_resources("demo")
        notes = await manager.read_resource("demo", "notes://today")
        image = await manager.read_resource("demo", "images://dot.png")
        prompts = await manager.list_prompts("demo")
        prompt = await manager.get_prompt("demo", "summarize", {"topic": "tea"})
        with pytest.raises(McpServerError, match="server 'demo' refused reading 'notes://none'"):
            await manager.read_resource("demo", "notes://none")
    assert [(r.uri, r.mime_type) for r in resources] == [
        ("notes://today", "text/plain"),
        ("images://dot.png", "image/png"),
    ]
    assert notes == [TextBlock(text="Buy milk. Call Ada.")]
    [dot] = image
    assert isinstance(dot, ImageBlock)
    assert (dot.media.mime_type, dot.media.size_bytes) == ("image/png", 70)
    assert [p.name for p in prompts] == ["summarize", "greeting"]
    assert prompt == [TextBlock(text="Summarize tea in one sentence.")]


async def test_an_env_value_comes_from_the_keyring_and_is_not_kept(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    backend.set_password("parley", "demo/user", "ada-lovelace")
    resolver = KeyringSecretResolver(backend=backend)
    server = demo_config(env={"DEMO_USER": "{keyring:demo/user}"})
    async with McpManager([server], log_dir=tmp_path, secret_resolver=resolver) as manager:
        conn = manager.connection("demo")
        said = await conn.call_tool("whoami", {})
    assert said.structured_content == {"result": "ada-lovelace"}
    assert conn.config.env == {"DEMO_USER": "{keyring:demo/user}"}
    assert "ada-lovelace" not in conn.log_path.read_text()


async def test_the_servers_progress_reports_reach_the_run_as_tool_progress(
    tmp_path: Path,
) -> None:
    calls = [{"name": "demo__count", "args": {"steps": 3}, "id": "c1"}]
    async with McpManager([demo_config(policy="allowed")], log_dir=tmp_path) as manager:
        await manager.start()
        agent, _ = agent_calling(manager.tools(), calls)
        events = [
            e
            async for e in agent.astream({"messages": [HumanMessage("Count")]}, CONFIG)
            if isinstance(e, ToolProgress)
        ]
    assert [(e.status, e.message, e.progress) for e in events] == [
        ("started", "", None),
        ("progress", "step 1", pytest.approx(1 / 3)),
        ("progress", "step 2", pytest.approx(2 / 3)),
        ("progress", "step 3", 1.0),
        ("finished", "", None),
    ]
    assert {e.tool for e in events} == {"demo__count"}


@pytest.mark.slow
async def test_a_server_that_keeps_dying_is_given_up_after_the_allowed_restarts(
    tmp_path: Path,
) -> None:
    backoff = Backoff(first=0.1, attempts=1)
    servers = [demo_config("flaky", "--exit-after", "0.3")]
    async with McpManager(servers, log_dir=tmp_path, backoff=backoff) as manager:
        await manager.start()
        conn = manager.connection("flaky")
        for _ in range(400):
            if conn.state == "failed":
                break
            await asyncio.sleep(0.05)
        assert conn.state == "failed"
        assert conn.starts == 2  # the first start and the one restart allowed
        assert conn.reason == (
            "server 'flaky' stopped unexpectedly (last words: time is up); gave up restarting "
            "it after 1 attempts"
        )
        assert manager.problems() == {"flaky": conn.reason}
    assert conn.log_path.read_text().splitlines().count("time is up") == 2  # its stderr
