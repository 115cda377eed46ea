"""Tool names every provider accepts, policies (annotations only suggest one), and MCP content
as blocks."""

from __future__ import annotations

import re

import mcp.types as mcp_types

from app.core.state.message_block import DocumentBlock, ImageBlock, TextBlock
from app.tools.mcp import (
    blocks_of,
    effective_policy,
    resource_blocks,
    suggested_policy,
    tool_names,
)

PROVIDER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def _tool(name: str, **hints: bool) -> mcp_types.Tool:
    annotations = mcp_types.ToolAnnotations(**hints) if hints else None
    return mcp_types.Tool(name=name, input_schema={"type": "object"}, annotations=annotations)


def test_names_join_server_and_tool_and_keep_within_provider_limits() -> None:
    names = tool_names(
        "git.hub",
        ["create_issue", "search/code", "x" * 80, "y" * 80 + "a", "y" * 80 + "b", "ünï"],
    )
    assert names["create_issue"] == "git_hub__create_issue"
    assert names["search/code"] == "git_hub__search_code"
    assert names["x" * 80].startswith("git_hub__xxxx")
    taken = set(names.values())
    other = tool_names("git_hub", ["create_issue"], taken)  # another server, same clean name
    assert other["create_issue"].startswith("git_hub__create_issue_")
    assert len(set(names.values())) == len(names)
    assert all(PROVIDER_NAME.match(n) for n in names.values()), names
    assert tool_names("git.hub", ["x" * 80]) == {"x" * 80: names["x" * 80]}  # stable


def test_annotations_suggest_a_policy_but_every_tool_asks_until_the_user_chose() -> None:
    read_only = _tool("look", read_only_hint=True)
    destructive = _tool("drop", read_only_hint=False, destructive_hint=True)
    additive = _tool("add", read_only_hint=False, destructive_hint=False)
    bare = _tool("bare")
    assert [suggested_policy(t) for t in (read_only, destructive, additive, bare)] == [
        "allowed",
        "approval",
        "approval",
        "approval",
    ]
    assert effective_policy(read_only, None, {}) == "approval"  # a hint is only a claim
    assert effective_policy(read_only, "allowed", {}) == "allowed"  # the user's, per server
    assert effective_policy(read_only, "approval", {}) == "approval"  # the server's setting
    assert effective_policy(destructive, "approval", {"drop": "off"}) == "off"  # the tool's
    assert effective_policy(bare, None, {"look": "off"}) == "approval"


def test_content_of_every_kind_becomes_a_block() -> None:
    png = "iVBORw0KGgo="
    blocks = blocks_of(
        [
            mcp_types.TextContent(text="hello"),
            mcp_types.ImageContent(data=png, mime_type="image/png"),
            mcp_types.ResourceLink(name="spec", uri="file:///spec.md", description="the spec"),
            mcp_types.EmbeddedResource(
                resource=mcp_types.BlobResourceContents(
                    uri="file:///r.pdf", blob="JVBERi0=", mime_type="application/pdf"
                )
            ),
        ]
    )
    text, image, link, document = blocks
    assert text == TextBlock(text="hello")
    assert isinstance(image, ImageBlock) and image.media.data_base64 == png
    assert image.media.size_bytes == 8
    assert link == TextBlock(text="[resource spec at file:///spec.md: the spec]")
    assert isinstance(document, DocumentBlock)
    assert (document.media.mime_type, document.media.filename) == ("application/pdf", "r.pdf")
    read = mcp_types.ReadResourceResult(
        contents=[mcp_types.TextResourceContents(uri="notes://a", text="A")]
    )
    assert resource_blocks(read) == [TextBlock(text="A")]
