"""The terminal approval prompt prints what a call brings (its tool, description, the note
saying why it is asked again, permissions, arguments) with controls and bidi characters
escaped, so none of it can hide or reorder the question."""

from __future__ import annotations

import io

from app.cli.approvals import TerminalApprovalHandler
from app.core.tools import ApprovalRequest
from tests.cli.test_approvals import Keyboard


async def test_every_line_of_the_prompt_shows_controls_and_bidi_characters_escaped() -> None:
    request = ApprovalRequest(
        call_id="c1",
        tool="close\x1b[8m_ticket",
        description="Close a ticket.\x1b]52;c;cm0gLXJm\x07 \u202eyllaer\nMore text.",
        permissions=["crm:write\x9b2K"],
        args={"ticket\u2066": "T-42\r\x08\x08OK", "note": "é 👍\ttab"},
        note="Asked again: it was approved for tool close\u200f_all.",
    )
    out = io.StringIO()
    handler = TerminalApprovalHandler(Keyboard(["n", "no \x1b[2J reason"]), out)
    [decision] = await handler.decide([request])
    assert (decision.decision, decision.reason) == ("deny", "no \x1b[2J reason")
    assert out.getvalue() == (
        "\nTool call 1 of 1 needs your approval: close\\x1b[8m_ticket\n"
        "  Asked again: it was approved for tool close\\u200f_all.\n"
        "  Close a ticket.\\x1b]52;c;cm0gLXJm\\x07 \\u202eyllaer\n"
        "  Permissions: crm:write\\x9b2K\n"
        "  Arguments: {\n"
        '    "note": "é 👍\\ttab",\n'
        '    "ticket\\u2066": "T-42\\r\\b\\bOK"\n'
        "  }\n"
    )
