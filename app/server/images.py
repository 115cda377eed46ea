"""Images a client sends inline: base64 data of a named type, decoded with a cap, checked to
be an image of that type (read as an attachment is, through :mod:`app.media`) and turned
into Parley's image blocks, for a model that takes images. The server fetches nothing: a
link or a file's name is refused."""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

from app.core.models.protocol import ChatModel
from app.core.state.message_block import ImageBlock, MediaRef
from app.media import BytesSource, IngestLimits, Ingestor
from app.server.chat import ChatRequest, SentImage, bad
from app.server.errors import ApiError

__all__ = [
    "IMAGE_TYPES",
    "MAX_IMAGE",
    "MAX_IMAGES",
    "check_images",
    "data_url_image",
    "refuse_link",
    "sent_image",
]

MAX_IMAGE = 5 * 1024 * 1024
"""The largest image a request may hold, in bytes once decoded."""

MAX_IMAGES = 100
"""How many images one request may hold."""

IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")
"""The image types a client may send."""

_SAME = {"image/jpg": "image/jpeg"}


def refuse_link(where: str) -> ApiError:
    """The refusal of an image given by a link or a file rather than its bytes."""
    return bad(
        f"{where} points at a link or a file, and Parley's server fetches nothing: send the "
        "image itself, base64-encoded.",
        "unsupported_image_source",
    )


def sent_image(data: Any, mime: Any, where: str) -> SentImage:
    """The image ``data`` (base64 text) of type ``mime`` found at ``where``, decoded but not
    checked yet (:func:`check_images` does that)."""
    named = _SAME.get(mime, mime) if isinstance(mime, str) else None
    if named not in IMAGE_TYPES:
        shown = repr(mime[:60]) if isinstance(mime, str) else "not named"
        raise bad(
            f"{where}'s type is {shown}: Parley takes {', '.join(IMAGE_TYPES)} images.",
            "unsupported_image_type",
        )
    if not isinstance(data, str) or not data:
        raise bad(f"{where} holds no image data: send it base64-encoded.", "invalid_image")
    too_big = bad(
        f"{where} is over {MAX_IMAGE // (1024 * 1024)} MB, the most Parley takes for one "
        "image; send a smaller one.",
        "image_too_large",
    )
    if len(data) > (MAX_IMAGE + 2) // 3 * 4 + 4:  # too long before it is decoded
        raise too_big
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise bad(
            f"{where} is not valid base64: send the image's bytes base64-encoded.",
            "invalid_image",
        ) from None
    if len(decoded) > MAX_IMAGE:
        raise too_big
    ref = MediaRef(kind="data", data_base64=data, mime_type=named, size_bytes=len(decoded))
    return SentImage(where, ImageBlock(media=ref), decoded, named)


def data_url_image(url: Any, where: str) -> SentImage:
    """The image of a ``data:image/...;base64,...`` URL (OpenAI's ``image_url``); any other
    URL is refused."""
    if not isinstance(url, str) or not url:
        raise bad(f"{where} has no url: send the image as a data: URL.", "invalid_image")
    head, comma, data = url.partition(",")
    if not url.startswith("data:") or not comma:
        raise refuse_link(where)
    mime, _, encoding = head.removeprefix("data:").partition(";")
    if encoding != "base64":
        raise bad(
            f"{where} is a data: URL that is not base64: send "
            f"data:{mime or 'image/png'};base64,...",
            "invalid_image",
        )
    return sent_image(data, mime, where)


async def check_images(request: ChatRequest, model: ChatModel) -> None:
    """Check each image of ``request`` for ``model``: a model that takes no images gets
    none (a bad request), and each image must really be one of the type named; its block
    then holds the copy models are sent (upright, scaled down when it is big)."""
    if not request.images:
        return
    if "image" not in model.info.input_kinds:
        raise bad(
            f"The model {request.model[:200]} takes no images; send the request without them, "
            "or name a model that takes images.",
            "images_unsupported",
        )
    if len(request.images) > MAX_IMAGES:
        raise bad(
            f"The request holds {len(request.images)} images; Parley takes at most {MAX_IMAGES}.",
            "too_many_images",
        )
    for sent in request.images:
        await _check(sent)


async def _check(sent: SentImage) -> None:
    kept: dict[str, bytes] = {}

    async def keep(data: bytes, mime: str) -> str:
        digest = hashlib.sha256(data).hexdigest()
        kept[digest] = data
        return digest

    ingestor = Ingestor(keep, IngestLimits(max_bytes=MAX_IMAGE))
    result = await ingestor.ingest(BytesSource(sent.data, "image"))
    block = result.block
    if result.error or not isinstance(block, ImageBlock):
        why = result.error or "it is not an image"
        raise bad(f"{sent.where} cannot be used: {why}.", "invalid_image")
    found = (block.original or block.media).mime_type
    if found != sent.mime_type:
        raise bad(
            f"{sent.where} is named {sent.mime_type} but holds {found or 'another kind of'} "
            "data; name its real type.",
            "invalid_image",
        )
    main = block.media
    data = kept[main.file_id or ""]
    sent.block.media = MediaRef(
        kind="data",
        data_base64=base64.b64encode(data).decode("ascii"),
        mime_type=main.mime_type,
        size_bytes=len(data),
    )
    sent.block.width = block.width
    sent.block.height = block.height
