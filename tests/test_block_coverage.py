"""Every place that turns content blocks into something renders every member of the
content-block union, or says on purpose that it leaves a type out; a new block type is
rendered everywhere or named, place by place, by this check."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from app.core.state import ContentBlock
from app.core.state.block_renderers import (
    BlockRenderers,
    block_types,
    coverage_gaps,
    union_with,
)
from app.providers._anthropic_messages import ANTHROPIC_REQUEST
from app.providers._content import MODEL_TEXT
from app.providers._llama_reply import LLAMA_PROMPT
from app.providers._openai_messages import OPENAI_REQUEST
from app.providers.ollama import OLLAMA_REQUEST
from app.store._markdown import MARKDOWN_EXPORT
from app.ui.attachments.describe import ATTACHMENT_DESCRIPTION, ATTACHMENT_DETAIL
from app.ui.chat.message_html import CHAT_HTML

APP = Path(__file__).resolve().parents[1] / "app"

PLACES: dict[str, tuple[str, BlockRenderers[Any, Any]]] = {
    "CHAT_HTML": ("app/ui/chat/message_html.py", CHAT_HTML),
    "ATTACHMENT_DESCRIPTION": ("app/ui/attachments/describe.py", ATTACHMENT_DESCRIPTION),
    "ATTACHMENT_DETAIL": ("app/ui/attachments/describe.py", ATTACHMENT_DETAIL),
    "MARKDOWN_EXPORT": ("app/store/_markdown.py", MARKDOWN_EXPORT),
    "ANTHROPIC_REQUEST": ("app/providers/_anthropic_messages.py", ANTHROPIC_REQUEST),
    "OPENAI_REQUEST": ("app/providers/_openai_messages.py", OPENAI_REQUEST),
    "OLLAMA_REQUEST": ("app/providers/ollama.py", OLLAMA_REQUEST),
    "LLAMA_PROMPT": ("app/providers/_llama_reply.py", LLAMA_PROMPT),
    "MODEL_TEXT": ("app/providers/_content.py", MODEL_TEXT),
}
"""Each place that turns blocks into something: where it is declared, and its registry."""


def check_every_place_renders(
    union: object = ContentBlock, places: dict[str, BlockRenderers[Any, Any]] | None = None
) -> None:
    """Fail, naming each place and the block types it lacks, unless every place in ``places``
    (every place in Parley when not given) renders or ignores every member of ``union``."""
    registries = places or {name: reg for name, (_, reg) in PLACES.items()}
    gaps = coverage_gaps(registries.values(), union)
    if gaps:
        lines = [
            f"{place} ({PLACES[place][0]}) renders no {', '.join(map(repr, kinds))} blocks: "
            "register a renderer for each there, or ignore the type on purpose."
            for place, kinds in gaps.items()
        ]
        raise AssertionError("\n".join(lines))


class StickerBlock(BaseModel):
    """A block type Parley does not have."""

    type: Literal["sticker"] = "sticker"
    name: str


def test_every_place_renders_every_block_type() -> None:
    check_every_place_renders()
    assert len(block_types()) == 11


def test_each_place_is_named_as_its_registry() -> None:
    for name, (path, registry) in PLACES.items():
        assert registry.place == name
        assert re.search(rf"^{name}: BlockRenderers\[", (APP.parent / path).read_text(), re.M)


def test_every_registry_in_the_app_is_checked() -> None:
    """A new place that declares a registry is in :data:`PLACES`, so it is checked too."""
    declared = re.compile(r"^([A-Z][A-Z0-9_]*)\s*(?::[^=\n]*)?=\s*BlockRenderers\b", re.M)
    found = {
        match: str(path.relative_to(APP.parent))
        for path in APP.rglob("*.py")
        for match in declared.findall(path.read_text(encoding="utf-8"))
    }
    assert found == {name: path for name, (path, _) in PLACES.items()}


def test_a_new_block_type_is_named_by_each_place_until_it_renders_it() -> None:
    extended = union_with(StickerBlock)
    with pytest.raises(AssertionError) as failed:
        check_every_place_renders(extended)
    message = str(failed.value)
    for name, (path, _) in PLACES.items():
        assert f"{name} ({path}) renders no 'sticker' blocks" in message

    # Registering a renderer in a place takes the place off the list (on copies, so the
    # places themselves are left as they are).
    places = {name: registry.copy() for name, (_, registry) in PLACES.items()}

    @places["MARKDOWN_EXPORT"].register("sticker")
    def _sticker(block: StickerBlock, _: None) -> str:
        return f"Sticker {block.name}"

    places["CHAT_HTML"].ignore("sticker", because="shown as its own widget", value="")
    with pytest.raises(AssertionError) as failed:
        check_every_place_renders(extended, places)
    message = str(failed.value)
    assert "MARKDOWN_EXPORT" not in message and "CHAT_HTML" not in message
    assert "ATTACHMENT_DESCRIPTION (app/ui/attachments/describe.py)" in message
    assert places["MARKDOWN_EXPORT"].render(StickerBlock(name="cat"), None) == "Sticker cat"

    for registry in places.values():
        if not registry.covers("sticker"):
            registry.register("sticker")(lambda block, ctx: None)
    check_every_place_renders(extended, places)
    check_every_place_renders()  # the real places were not changed
    assert MARKDOWN_EXPORT.missing(extended) == ["sticker"]
