"""A place's block renderers: dispatch on the block's ``type``, one renderer per type, types left
out on purpose, and the union's members a place does not cover."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel

from app.core.state import ContentBlock, ErrorBlock, ImageBlock, MediaRef, TextBlock
from app.core.state.block_renderers import (
    BlockRenderers,
    NoRenderer,
    block_types,
    coverage_gaps,
    union_with,
)


class StickerBlock(BaseModel):
    """A block type no place knows."""

    type: Literal["sticker"] = "sticker"
    name: str


def test_block_types_come_from_the_union_itself() -> None:
    kinds = block_types()
    assert list(kinds)[:2] == ["text", "image"]
    assert kinds["error"] is ErrorBlock
    assert len(kinds) == 11
    assert set(kinds.values()) == set(ContentBlock.__args__[0].__args__)
    assert list(block_types(TextBlock | StickerBlock)) == ["text", "sticker"]
    assert list(block_types(union_with(StickerBlock))) == [*kinds, "sticker"]
    assert block_types(StickerBlock) == {"sticker": StickerBlock}


def test_a_class_without_a_type_literal_is_refused() -> None:
    class Loose(BaseModel):
        type: str = "loose"

    with pytest.raises(TypeError, match="Loose has no literal 'type' field"):
        block_types(Loose)


def test_render_dispatches_on_the_type_and_passes_the_context() -> None:
    shout: BlockRenderers[str, str] = BlockRenderers("SHOUT")

    @shout.register("text")
    def _text(block: TextBlock, suffix: str) -> str:
        return block.text.upper() + suffix

    @shout.register("image", "audio")
    def _media(block: ImageBlock, suffix: str) -> str:
        return f"[{block.type}]{suffix}"

    image = ImageBlock(media=MediaRef(kind="url", url="https://example.org/a.png"))
    assert shout.render(TextBlock(text="hi"), "!") == "HI!"
    assert shout.render(image, "?") == "[image]?"
    with pytest.raises(NoRenderer, match="SHOUT has no renderer for 'error' blocks"):
        shout.render(ErrorBlock(error="x"), "")


def test_a_type_has_one_renderer() -> None:
    place: BlockRenderers[None, str] = BlockRenderers("PLACE")
    place.register("text")(lambda block, ctx: "a")
    with pytest.raises(ValueError, match="PLACE already renders 'text' blocks"):
        place.register("text")(lambda block, ctx: "b")
    with pytest.raises(ValueError, match="PLACE already renders 'text' blocks"):
        place.ignore("text", because="no", value="")


def test_missing_lists_what_is_neither_rendered_nor_ignored() -> None:
    place: BlockRenderers[None, str] = BlockRenderers("PLACE")
    everything = list(block_types())
    assert place.missing() == everything
    place.register("text")(lambda block, ctx: "t")
    place.ignore("error", "annotation", because="shown elsewhere", value="")
    assert place.missing() == [k for k in everything if k not in ("text", "error", "annotation")]
    assert place.ignored() == {"error": "shown elsewhere", "annotation": "shown elsewhere"}
    assert place.render(ErrorBlock(error="boom"), None) == ""


def test_coverage_gaps_name_each_place_and_a_copy_leaves_the_original_alone() -> None:
    extended = union_with(StickerBlock)
    full: BlockRenderers[None, str] = BlockRenderers("FULL")
    full.register(*block_types())(lambda block, ctx: "")
    half: BlockRenderers[None, str] = BlockRenderers("HALF")
    half.register("text")(lambda block, ctx: "")

    assert coverage_gaps([full]) == {}
    gaps = coverage_gaps([full, half], extended)
    assert gaps["FULL"] == ["sticker"]
    assert "sticker" in gaps["HALF"] and "image" in gaps["HALF"]

    twin = full.copy()
    twin.register("sticker")(lambda block, ctx: "sticker")
    assert coverage_gaps([twin], extended) == {}
    assert twin.render(StickerBlock(name="cat"), None) == "sticker"
    assert full.missing(extended) == ["sticker"]
