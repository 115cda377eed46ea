"""Approval rules scoped by argument: a rule matches only when the real arguments fall inside
it (paths resolved with symlinks followed, ``..`` refused, hosts exact), and a tool node lets
such a call run unasked, with the rule in the audit log, while asking about any other."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core import HumanMessage, Resume, create_agent, tool
from app.core.checkpoint import InMemoryCheckpointer
from app.core.models import ScriptedChatModel
from app.core.tools import (
    ArgumentRule,
    InMemoryApprovalPolicy,
    RuleSpec,
    requests_of,
    suggest_rule,
)

WRITE = RuleSpec("path", "folder", verb="write", doing="writing")
FETCH = RuleSpec("url", "host", verb="fetch", doing="fetching")


def test_a_folder_rule_matches_paths_inside_the_real_folder_only(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    (notes / "deep").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, notes / "escape")
    rule = ArgumentRule.folder("write_file", "path", str(notes))

    assert rule.matches("write_file", {"path": str(notes / "a.txt")})
    assert rule.matches("write_file", {"path": str(notes / "deep" / "new.txt")})
    assert not rule.matches("write_file", {"path": str(elsewhere / "a.txt")})
    assert not rule.matches("write_file", {"path": str(notes / "escape" / "a.txt")})  # symlink out
    assert not rule.matches("write_file", {"path": f"{notes}/deep/../../elsewhere/a.txt"})
    assert not rule.matches("write_file", {"path": f"{notes}/deep/../a.txt"})  # '..' is asked
    assert not rule.matches("write_file", {"path": "a.txt"})  # relative: asked
    assert not rule.matches("write_file", {"path": str(tmp_path / "notes-old" / "a.txt")})
    assert not rule.matches("read_file", {"path": str(notes / "a.txt")})  # another tool
    assert not rule.matches("write_file", {"content": "x"})  # no path at all


def test_a_folder_rule_made_through_a_symlink_is_the_real_folder(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    rule = ArgumentRule.folder("write_file", "path", str(tmp_path / "link"))
    assert rule.value == str(real)
    assert rule.matches("write_file", {"path": str(real / "x.txt")})
    with pytest.raises(ValueError, match="absolute folder"):
        ArgumentRule.folder("write_file", "path", "notes")
    with pytest.raises(ValueError, match="absolute folder"):
        ArgumentRule.folder("write_file", "path", f"{real}/../real")


def test_a_host_rule_matches_exactly_that_host() -> None:
    rule = ArgumentRule.host("fetch_url", "url", "Docs.Example.com")
    assert rule.matches("fetch_url", {"url": "https://docs.example.com/a?b=c"})
    assert rule.matches("fetch_url", {"url": "http://DOCS.example.com./x"})
    assert not rule.matches("fetch_url", {"url": "https://example.com/"})
    assert not rule.matches("fetch_url", {"url": "https://evil.docs.example.com/"})
    assert not rule.matches("fetch_url", {"url": "https://docs.example.com.evil.net/"})
    assert not rule.matches("fetch_url", {"url": "https://docs.example.com@evil.net/"})
    assert not rule.matches("fetch_url", {"url": "file:///etc/passwd"})
    assert not rule.matches("fetch_url", {"url": 42})


def test_a_value_rule_matches_that_value_only() -> None:
    rule = ArgumentRule.equal("mcp_query", "database", "sales")
    assert rule.matches("mcp_query", {"database": "sales"})
    # another argument beside it could do anything: only a tool's declaration frees it
    assert not rule.matches("mcp_query", {"database": "sales", "sql": "drop table users"})
    assert rule.matches(
        "mcp_query", {"database": "sales", "sql": "x"}, spec=RuleSpec("database", "value")
    )
    assert not rule.matches("mcp_query", {"database": "sales2"})
    assert not rule.matches("mcp_query", {"database": ["sales"]})
    assert rule.describe() == 'mcp_query when database is "sales"'


def test_the_rule_offered_fits_the_call_shown() -> None:
    home = Path.home()
    note = {"path": str(home / "notes" / "oslo.txt"), "content": "x"}
    offered = suggest_rule("write_file", note, WRITE)
    assert offered is not None
    assert offered.offer(WRITE) == "Always allow writing inside ~/notes"
    web = suggest_rule("fetch_url", {"url": "https://docs.example.com/page"}, FETCH)
    assert web is not None and web.offer(FETCH) == "Always allow fetching from docs.example.com"
    mcp = suggest_rule("lookup", {"table": "orders", "limit": 5})  # declares nothing
    assert mcp is not None and (mcp.argument, mcp.value) == ("*", '{"limit":5,"table":"orders"}')
    long = "\x00" * 300  # pinned as JSON escapes, longer than a rule keeps
    assert suggest_rule("write_file", {"path": "relative.txt", "content": long}, WRITE) is None
    top = suggest_rule("write_file", {"path": "/top.txt", "content": "x"}, WRITE)
    assert top is not None and top.pins_every_argument  # never "inside /"


def test_a_rule_value_with_control_characters_is_refused() -> None:
    with pytest.raises(ValueError, match="control characters"):
        ArgumentRule(tool="t", kind="value", argument="a", value='"\x1b[31m"')


async def test_a_kept_rule_lets_calls_inside_run_unasked_and_asks_about_others(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    written: list[str] = []

    @tool(requires_approval=True, rule=WRITE)
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        written.append(path)
        return "ok"

    inside, outside = str(notes / "a.txt"), str(tmp_path / "b.txt")
    script = [
        {
            "tool_calls": [
                {"name": "write_file", "args": {"path": inside, "content": "1"}, "id": "c1"}
            ]
        },
        "first done",
        {
            "tool_calls": [
                {"name": "write_file", "args": {"path": inside, "content": "2"}, "id": "c2"}
            ]
        },
        {
            "tool_calls": [
                {"name": "write_file", "args": {"path": outside, "content": "3"}, "id": "c3"}
            ]
        },
        "second done",
    ]
    policy, saver = InMemoryApprovalPolicy(), InMemoryCheckpointer()
    agent = create_agent(
        ScriptedChatModel(script), [write_file], approval_policy=policy, checkpointer=saver
    )
    config = {"thread_id": "t"}
    paused = await agent.ainvoke({"messages": [HumanMessage("write")]}, config)
    pending = paused.execution_meta.interrupts[0]
    request = (requests_of(pending.value) or [])[0]
    offered = suggest_rule(request.tool, request.args, write_file.rule)
    assert offered is not None and offered.value == str(notes)
    answer = {"c1": {"decision": "always", "scope": "argument", "rule": offered.model_dump()}}
    await agent.ainvoke(Resume(answers={pending.id: answer}), config)
    assert policy.argument_rules == [offered] and written == [inside]

    # the next turn: the call inside runs unasked, the one outside is asked about
    paused = await agent.ainvoke({"messages": [HumanMessage("again")]}, config)
    assert written == [inside, inside]
    asked = requests_of(paused.execution_meta.interrupts[0].value) or []
    assert [r.args["path"] for r in asked] == [outside]
    used = [e for e in policy.audit if e.event == "allowed_by_rule"]
    assert [(e.call_id, e.rule) for e in used] == [("c2", f"write_file inside {notes}")]
    made = [e for e in policy.audit if e.event == "decided" and e.rule]
    assert [e.call_id for e in made] == ["c1"]


async def test_an_argument_rule_that_does_not_hold_for_the_call_is_not_kept(
    tmp_path: Path,
) -> None:
    @tool(requires_approval=True)
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        return "ok"

    call = {"name": "write_file", "args": {"path": str(tmp_path / "a.txt"), "content": "1"}}
    policy = InMemoryApprovalPolicy()
    agent = create_agent(
        ScriptedChatModel([{"tool_calls": [{**call, "id": "c1"}]}, "done"]),
        [write_file],
        approval_policy=policy,
        checkpointer=InMemoryCheckpointer(),
    )
    paused = await agent.ainvoke({"messages": [HumanMessage("w")]}, {"thread_id": "t"})
    wide = ArgumentRule.folder("write_file", "path", "/nowhere-else")
    answer = {"c1": {"decision": "always", "scope": "argument", "rule": wide.model_dump()}}
    iid = paused.execution_meta.interrupts[0].id
    await agent.ainvoke(Resume(answers={iid: answer}), {"thread_id": "t"})
    assert policy.argument_rules == []


def test_a_rule_of_an_agent_allows_that_agents_calls_only(tmp_path: Path) -> None:
    anyone = ArgumentRule.folder("write_file", "path", str(tmp_path))
    writer = anyone.for_agent("Writer")
    args = {"path": str(tmp_path / "a.txt")}
    assert writer.matches("write_file", args, agent="Writer")
    assert not writer.matches("write_file", args, agent="Reader")
    assert not writer.matches("write_file", args)  # a call of no named agent
    assert anyone.matches("write_file", args, agent="Reader")  # a rule of no agent: anyone's
    assert writer.for_agent(None) == anyone
    assert writer.describe() == f"write_file inside {tmp_path} for Writer"
    web = ArgumentRule.host("fetch_url", "url", "docs.example.com").for_agent("Researcher")
    assert web.offer(FETCH) == "Always allow Researcher to fetch from docs.example.com"
    with pytest.raises(ValueError):
        ArgumentRule.model_validate({**writer.model_dump(), "agent": ""})


@pytest.mark.parametrize(("own", "asked"), [("Writer", False), ("Reader", True)])
async def test_a_kept_rule_of_an_agent_runs_only_on_its_turns(
    tmp_path: Path, own: str, asked: bool
) -> None:
    @tool(requires_approval=True, rule=WRITE)
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        return "ok"

    call = {"name": "write_file", "args": {"path": str(tmp_path / "a.txt"), "content": "1"}}
    policy = InMemoryApprovalPolicy(own_agent=own)
    policy.allow_rule(ArgumentRule.folder("write_file", "path", str(tmp_path)).for_agent("Writer"))
    agent = create_agent(
        ScriptedChatModel([{"tool_calls": [{**call, "id": "c1"}]}, "done"]),
        [write_file],
        approval_policy=policy,
        checkpointer=InMemoryCheckpointer(),
    )
    state = await agent.ainvoke({"messages": [HumanMessage("w")]}, {"thread_id": "t"})
    assert bool(state.execution_meta.interrupts) is asked
    used = [e.rule for e in policy.audit if e.event == "allowed_by_rule"]
    assert used == ([] if asked else [f"write_file inside {tmp_path} for Writer"])
