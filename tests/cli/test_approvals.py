"""The terminal approval prompt: whole explicit answers only, re-asking on anything else, and
end of input."""

from __future__ import annotations

import io
from collections.abc import Iterable

import pytest

from app.cli.approvals import TerminalApprovalHandler
from app.core.graph.context import GraphInterrupt
from app.core.tools import ApprovalRequest, ToolNode, answer_approvals, tool
from tests.core.tools.helpers import Run, asking, call, results


class Keyboard:
    """Types the given lines, then ends the input like Ctrl-D."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


def request(call_id: str = "c1", **args: object) -> ApprovalRequest:
    """A pending call of ``close_ticket``."""
    return ApprovalRequest(
        call_id=call_id,
        tool="close_ticket",
        description="Close a CRM ticket.\nMore text.",
        permissions=["crm:write"],
        args={"ticket_id": "T-42", **args},  # type: ignore[dict-item]
    )


async def ask(lines: list[str], *requests: ApprovalRequest) -> tuple[list[object], str]:
    out = io.StringIO()
    handler = TerminalApprovalHandler(Keyboard(lines), out)
    decisions = await handler.decide(list(requests) or [request()])
    return [(d.decision, d.reason, d.args, d.scope) for d in decisions], out.getvalue()


async def test_shows_the_request() -> None:
    _, shown = await ask(["y"])
    assert "needs your approval: close_ticket" in shown
    assert "Close a CRM ticket." in shown and "More text" not in shown
    assert "Permissions: crm:write" in shown
    assert '"ticket_id": "T-42"' in shown


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["y"], ("approve", None, None, "thread")),
        (["Yes"], ("approve", None, None, "thread")),
        (["n", "not today"], ("deny", "not today", None, "thread")),
        (["n", ""], ("deny", None, None, "thread")),
        (["always", "t"], ("always", None, None, "thread")),
        (["ALWAYS", " thread "], ("always", None, None, "thread")),
        (["always", "everywhere"], ("always", None, None, "tool")),
        (["approve"], ("approve", None, None, "thread")),
        (["deny", "no"], ("deny", "no", None, "thread")),
        (["e", '{"ticket_id": "T-43"}'], ("edit", None, {"ticket_id": "T-43"}, "thread")),
        (["maybe", "y"], ("approve", None, None, "thread")),
        (["e", "{oops", "[1]", "", "y"], ("approve", None, None, "thread")),
        ([], ("deny", "no answer given", None, "thread")),
        (["n"], ("deny", None, None, "thread")),
    ],
)
async def test_each_answer(lines: list[str], expected: tuple[object, ...]) -> None:
    decisions, _ = await ask(lines)
    assert decisions == [expected]


@pytest.mark.parametrize(
    "lines",
    [
        ["absolutely not", ""],
        ["abort", ""],
        ["yolo"],
        ["yes please"],
        ["a", "t"],
        ["", "", ""],
        ["always", "", ""],
        ["always", "e"],
        ["always", "yes"],
        ["always", "this"],
    ],
)
async def test_an_unclear_or_empty_answer_grants_nothing(lines: list[str]) -> None:
    keyboard = Keyboard(lines)
    out = io.StringIO()
    decisions = await TerminalApprovalHandler(keyboard, out).decide([request()])
    assert [d.decision for d in decisions] == ["deny"]
    # every typed line was asked about again, and the input then ran out
    assert len(keyboard.prompts) == len(lines) + 1
    assert out.getvalue().count("Please answer with one of:") == len(lines) - lines.count("always")


async def test_the_prompts_name_every_accepted_answer() -> None:
    keyboard = Keyboard(["always", "thread"])
    await TerminalApprovalHandler(keyboard, io.StringIO()).decide([request()])
    assert keyboard.prompts == [
        "Allow this call? [y/yes/approve, n/no/deny, e/edit, always]: ",
        "Always allow in this thread or everywhere? [t/thread, everywhere]: ",
    ]


async def test_bad_json_is_explained() -> None:
    _, shown = await ask(["e", "{oops", "[1]", "", "y"])
    assert "That is not valid JSON" in shown
    assert "must be a JSON object" in shown


async def test_edit_keeps_arguments_left_out() -> None:
    decisions, _ = await ask(["e", '{"reason": "dup"}'], request(reason="done", force=False))
    assert decisions == [
        ("edit", None, {"ticket_id": "T-42", "reason": "dup", "force": False}, "thread")
    ]


async def test_several_requests_in_order() -> None:
    decisions, shown = await ask(["y", "n", "no"], request("c1"), request("c2"))
    assert [d[0] for d in decisions] == ["approve", "deny"]
    assert "Tool call 1 of 2" in shown and "Tool call 2 of 2" in shown


async def test_resumes_a_tool_node_run() -> None:
    @tool(requires_approval=True)
    def close_ticket(ticket_id: str) -> str:
        """Close a ticket."""
        return f"closed {ticket_id}"

    node = ToolNode([close_ticket])
    state = asking(call("close_ticket", "c1", ticket_id="T-1"))
    run = Run()
    with pytest.raises(GraphInterrupt) as caught:
        await run.once(node, state)
    handler = TerminalApprovalHandler(Keyboard(["y"]), io.StringIO())
    run.resume[caught.value.interrupt.id] = await answer_approvals(
        handler, caught.value.interrupt.value
    )
    update = await run.once(node, state)
    assert [r.output for r in results(update)] == ["closed T-1"]


async def test_a_delegates_call_names_it_and_who_asked_it_escaped() -> None:
    asked = request().model_copy(update={"agent": "Re\x1b[2Jsearcher", "asked_by": "Parley"})
    _, shown = await ask(["y"], asked)
    assert "  Re\\x1b[2Jsearcher, asked by Parley, wants to make this call\n" in shown
    assert "\x1b" not in shown


async def test_always_says_which_agents_each_answer_covers() -> None:
    out = io.StringIO()
    delegate = request("c2").model_copy(update={"agent": "Researcher", "asked_by": "Parley"})
    keyboard = Keyboard(["always", "thread", "always", "thread"])
    await TerminalApprovalHandler(keyboard, out).decide([request(), delegate])
    shown = out.getvalue()
    assert (
        "close_ticket runs unasked in this thread only, and only when this thread's agent "
        "calls it. Everywhere: in every thread, for every agent." in shown
    )
    assert "only when Researcher calls it." in shown


def _proposal(text: str = "The user lives in Lyon") -> ApprovalRequest:
    """An agent's ``remember`` call waiting for the person."""
    return ApprovalRequest(
        call_id="m1",
        tool="remember",
        description="Propose a short note to remember.",
        args={"text": text, "why": "to suggest places nearby"},
    )


@pytest.mark.parametrize(
    ("lines", "decision", "reason"),
    [
        (["y"], "approve", None),
        ([" YES "], "approve", None),
        (["n"], "deny", "not kept: the user chose not to keep it"),
        ([""], "deny", "not kept: the user chose not to keep it"),
        (["always"], "deny", "not kept: the user chose not to keep it"),
        ([], "deny", "not kept: no answer was given"),
    ],
)
async def test_a_proposed_memory_is_asked_as_keep_this_memory(
    lines: list[str], decision: str, reason: str | None
) -> None:
    keyboard = Keyboard(lines)
    out = io.StringIO()
    (made,) = await TerminalApprovalHandler(keyboard, out).decide([_proposal()])
    assert (made.decision, made.reason) == (decision, reason)
    assert keyboard.prompts == [
        "\nParley will remember: The user lives in Lyon — Keep this memory? [y/N]: "
    ]
    assert "Why: to suggest places nearby" in out.getvalue()
    assert "Allow this call?" not in out.getvalue()


async def test_a_proposed_memory_is_shown_with_hidden_characters_escaped() -> None:
    keyboard = Keyboard(["n"])
    await TerminalApprovalHandler(keyboard, io.StringIO()).decide([_proposal("I am \x1b[2Jhere")])
    assert "\x1b" not in keyboard.prompts[0] and "I am \\x1b[2Jhere" in keyboard.prompts[0]
