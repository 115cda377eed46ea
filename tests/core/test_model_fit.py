"""What a model is sent in place of media it cannot take, and the note the user sees."""

from __future__ import annotations

from app.core.models.fit import left_out, stand_in
from app.core.models.protocol import ModelInfo
from app.core.state import (
    AudioBlock,
    ContentBlock,
    DataBlock,
    DocumentBlock,
    ImageBlock,
    MediaRef,
    TextBlock,
    VideoBlock,
)


def _ref(name: str, mime: str) -> MediaRef:
    return MediaRef(kind="file_id", file_id="a" * 64, filename=name, mime_type=mime)


BLOCKS: list[ContentBlock] = [
    TextBlock(text="Have a look"),
    ImageBlock(media=_ref("cat.png", "image/png")),
    VideoBlock(media=_ref("clip.mp4", "video/mp4")),
    AudioBlock(media=_ref("memo.wav", "audio/wav")),
    AudioBlock(media=_ref("talk.mp3", "audio/mpeg"), transcript="Hello all."),
    DocumentBlock(media=_ref("scan.pdf", "application/pdf")),
    DocumentBlock(media=_ref("notes.txt", "text/plain"), text="Buy milk."),
    DataBlock(mime_type="application/zip", media=_ref("site.zip", "application/zip")),
    DataBlock(mime_type="application/json", data={"a": 1}),
]


def _info(*kinds: str) -> ModelInfo:
    return ModelInfo(spec="x", name="tiny", provider="x", input_kinds=frozenset(kinds))


def test_a_text_only_model_is_noted_for_each_thing_it_cannot_see() -> None:
    assert left_out(BLOCKS, _info("text")) == [
        "cat.png was left out: tiny cannot take images.",
        "clip.mp4 was left out: tiny cannot take video.",
        "memo.wav was left out: tiny cannot take audio.",
        "scan.pdf was left out: tiny cannot take documents.",
        "site.zip was left out: tiny cannot take files of this type.",
    ]


def test_a_model_that_takes_images_and_documents_misses_less() -> None:
    assert left_out(BLOCKS, _info("text", "image", "document")) == [
        "clip.mp4 was left out: tiny cannot take video.",
        "memo.wav was left out: tiny cannot take audio.",
        "site.zip was left out: tiny cannot take files of this type.",
    ]


def test_stand_in_texts() -> None:
    assert stand_in(BLOCKS[1], "tiny") == (
        "[The user attached an image (cat.png) here, but it is not shown: tiny cannot take "
        "images as input.]"
    )
    assert stand_in(BLOCKS[4], "tiny") == "[Transcript of talk.mp3]\nHello all."
    unnamed = ImageBlock(media=MediaRef(kind="url", url="https://example.com/x.png"))
    assert stand_in(unnamed, "tiny", "it is too big") == (
        "[The user attached an image here, but it is not shown: it is too big.]"
    )
