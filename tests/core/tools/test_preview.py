"""Approval previews: a tool may describe its effect in its approval request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from app.core.graph.context import GraphInterrupt
from app.core.tools import ApprovalPreview, ToolError, ToolNode, requests_of, tool
from app.core.tools._approval_flow import MAX_PREVIEW_CHARS
from tests.core.tools.helpers import Run, asking, call, error_code, result


def _shown(args: Mapping[str, Any]) -> ApprovalPreview:
    return ApprovalPreview(format="diff", title=str(args["label"]), text=f"+{args['label']}\n")


@tool(requires_approval=True, approval_preview=_shown)
def rename(label: str) -> str:
    """Rename the thing."""
    return f"renamed to {label}"


@tool(requires_approval=True)
def plain(label: str) -> str:
    """No preview."""
    return label


async def _pause(*tools: Any, **args: Any) -> Any:
    run = Run()
    with pytest.raises(GraphInterrupt) as caught:
        await run.once(ToolNode(list(tools)), asking(call(tools[0].name, **args)))
    return caught.value.interrupt.value


async def test_a_preview_travels_with_the_request() -> None:
    value = await _pause(rename, label="new")
    assert value["requests"][0]["preview"] == {
        "format": "diff",
        "title": "new",
        "text": "+new\n",
        "truncated": False,
    }
    requests = requests_of(value)
    assert requests is not None and requests[0].preview == _shown({"label": "new"})


async def test_a_request_without_a_preview_is_as_before() -> None:
    value = await _pause(plain, label="x")
    assert "preview" not in value["requests"][0]
    requests = requests_of(value)
    assert requests is not None and requests[0].preview is None


async def test_a_long_preview_is_cut_and_a_text_one_is_plain() -> None:
    @tool(requires_approval=True, approval_preview=lambda args: "y" * (MAX_PREVIEW_CHARS + 5))
    async def big(label: str) -> str:
        """Big."""
        return label

    value = await _pause(big, label="x")
    preview = value["requests"][0]["preview"]
    assert preview["format"] == "text" and preview["truncated"] is True
    assert len(preview["text"]) == MAX_PREVIEW_CHARS


async def test_a_broken_preview_still_asks_and_says_why() -> None:
    def broken(args: Mapping[str, Any]) -> str:
        raise KeyError("gone")

    @tool(requires_approval=True, approval_preview=broken)
    def act(label: str) -> str:
        """Act."""
        return label

    value = await _pause(act, label="x")
    assert value["requests"][0]["preview"]["text"] == "No preview could be made (KeyError: 'gone')."


async def test_a_tool_error_in_the_preview_refuses_the_call_without_asking() -> None:
    async def refuse(args: Mapping[str, Any]) -> None:
        raise ToolError(f"{args['label']!r} is not allowed")

    @tool(requires_approval=True, approval_preview=refuse)
    def act(label: str) -> str:
        """Act."""
        return label

    update = await Run().once(ToolNode([act]), asking(call("act", label="x")))
    assert error_code(update) == "error"
    assert result(update).output == "Tool 'act' failed: 'x' is not allowed"


async def test_a_tool_error_is_the_sentence_the_model_reads() -> None:
    @tool
    def fails(label: str) -> str:
        """Fail."""
        raise ToolError(f"{label!r} is not a known colour")

    update = await Run().once(ToolNode([fails]), asking(call("fails", label="mauve")))
    assert result(update).output == "Tool 'fails' failed: 'mauve' is not a known colour"
