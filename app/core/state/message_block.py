"""Content blocks: every kind of content a message can carry, each tagged by a literal ``type``.

All blocks form one discriminated union, :data:`ContentBlock`, so any stored block is read back
as exactly the class it was written as.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

__all__ = [
    "AnnotationBlock",
    "AnnotationRef",
    "AudioBlock",
    "ContentBlock",
    "DataBlock",
    "DocumentBlock",
    "ErrorBlock",
    "ImageBlock",
    "MediaRef",
    "ReasoningBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "VideoBlock",
]


class _Model(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=False, allow_inf_nan=False)


class MediaRef(_Model):
    """Where a piece of media lives: a URL, inline base64 data, or a file id in the media store."""

    kind: Literal["url", "data", "file_id"]
    url: str | None = None
    data_base64: str | None = None
    file_id: str | None = None
    mime_type: str | None = None
    filename: str | None = None
    size_bytes: int | None = Field(default=None, ge=0)
    sha256: str | None = None

    @model_validator(mode="after")
    def _check_kind(self) -> MediaRef:
        needed = {"url": self.url, "data": self.data_base64, "file_id": self.file_id}[self.kind]
        if needed is None:
            field = {"url": "url", "data": "data_base64", "file_id": "file_id"}[self.kind]
            raise ValueError(f"a MediaRef of kind {self.kind!r} needs {field!r}")
        return self


class AnnotationRef(_Model):
    """A citation: where a statement comes from."""

    url: str | None = None
    title: str | None = None
    start_index: int | None = None
    end_index: int | None = None
    snippet: str | None = None


class TextBlock(_Model):
    """Plain text, optionally with citations."""

    type: Literal["text"] = "text"
    text: str
    annotations: list[AnnotationRef] = Field(default_factory=list)


class ImageBlock(_Model):
    """An image, e.g. a screenshot the user dropped into the chat."""

    type: Literal["image"] = "image"
    media: MediaRef
    """The image as models are sent it (downscaled and upright when the original was not)."""
    alt_text: str | None = None
    bbox: list[float] | None = None
    thumbnail: MediaRef | None = None
    """A small preview for lists and chips."""
    original: MediaRef | None = None
    """The file as it was attached, when ``media`` is a converted copy of it."""
    width: int | None = None
    height: int | None = None


class AudioBlock(_Model):
    """A sound clip, optionally with its transcript."""

    type: Literal["audio"] = "audio"
    media: MediaRef
    transcript: str | None = None
    sample_rate: int | None = None
    channels: int | None = None
    duration_s: float | None = None


class VideoBlock(_Model):
    """A video clip, optionally with a thumbnail."""

    type: Literal["video"] = "video"
    media: MediaRef
    thumbnail: MediaRef | None = None
    duration_s: float | None = None
    width: int | None = None
    height: int | None = None


class DocumentBlock(_Model):
    """A document such as a PDF, optionally with its extracted text."""

    type: Literal["document"] = "document"
    media: MediaRef
    text: str | None = None
    """The extracted text; a PDF's pages are separated by form feeds (``\\f``)."""
    pages: list[int] | None = None
    """The document's page numbers (1-based), so ``len(pages)`` is its page count."""
    excerpt: str | None = None
    title: str | None = None
    preview: MediaRef | None = None
    """An image of the first page, when one could be made."""


class DataBlock(_Model):
    """Any other binary or structured payload."""

    type: Literal["data"] = "data"
    mime_type: str
    data_base64: str | None = None
    media: MediaRef | None = None
    data: JsonValue = None


class ToolCallBlock(_Model):
    """A request from the model to call a tool.

    While a reply streams, ``partial_args`` collects the raw JSON argument text; once it parses,
    it becomes ``args`` and ``partial_args`` is cleared (also when a call's whole argument text
    arrives in its first, named fragment).
    """

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    tool_type: Literal["web_search", "file_search", "computer_use"] | None = None
    partial_args: str | None = None
    index: int | None = None

    @model_validator(mode="after")
    def _parse_complete_args(self) -> ToolCallBlock:
        # A named block starts a call, so its argument text is a prefix of the whole: if that
        # parses, the arguments arrived in one piece (later fragments have no name and are
        # only parsed once joined).
        if self.partial_args and self.name:
            try:
                parsed = json.loads(self.partial_args)
            except ValueError:
                return self
            if isinstance(parsed, dict):
                self.args = {**self.args, **parsed}
                self.partial_args = None
        return self


class ToolResultBlock(_Model):
    """What a tool returned for one call."""

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    output: JsonValue = None
    status: Literal["completed", "error"] = "completed"
    name: str | None = None


class ReasoningBlock(_Model):
    """A reasoning trace the model produced before answering."""

    type: Literal["reasoning"] = "reasoning"
    text: str
    signature: str | None = None


class ErrorBlock(_Model):
    """An error that happened while processing, shown to the user and the model."""

    type: Literal["error"] = "error"
    error: str
    tool_call_id: str | None = None
    code: str | None = None


class AnnotationBlock(_Model):
    """A structured citation returned by a search-enabled model."""

    type: Literal["annotation"] = "annotation"
    annotation: AnnotationRef


ContentBlock = Annotated[
    TextBlock
    | ImageBlock
    | AudioBlock
    | VideoBlock
    | DocumentBlock
    | DataBlock
    | ToolCallBlock
    | ToolResultBlock
    | ReasoningBlock
    | ErrorBlock
    | AnnotationBlock,
    Field(discriminator="type"),
]
"""Any content block, told apart by its ``type`` tag."""
