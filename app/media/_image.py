"""Images: upright, a thumbnail, and a copy small enough for models (the original is kept)."""

from __future__ import annotations

import io
import re
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from app.core.state.message_block import ImageBlock, MediaRef
from app.media._draft import MAIN, Blob, Draft
from app.media._limits import ImageLimits
from app.media._sniff import IMAGE_FORMATS
from app.media._util import Job
from app.media.errors import IngestError

# A picture big enough for Pillow to warn about is refused, never decoded.
warnings.filterwarnings("error", category=Image.DecompressionBombWarning)

_MODEL_FORMATS = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "WEBP": "image/webp",
    "GIF": "image/gif",
}
_MIME = {**_MODEL_FORMATS, "BMP": "image/bmp", "TIFF": "image/tiff"}
_MODEL_MODES = {"RGB", "RGBA", "L", "LA", "P", "1"}
"""Pixel formats every model reads (not CMYK JPEGs, nor 16-bit or float images)."""
_ORIENTATION = 0x0112
_DAMAGED = "it is not a readable image: the file is damaged or cut off"


def _megapixels(pixels: float) -> str:
    return f"{pixels / 1e6:.0f}"


def _open(data: bytes, name: str, limits: ImageLimits) -> Image.Image:
    try:
        im = Image.open(io.BytesIO(data), formats=IMAGE_FORMATS)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        found = re.search(r"\((\d+) pixels\)", str(exc))
        size = f" of {_megapixels(int(found.group(1)))} megapixels" if found else ""
        raise IngestError(
            name,
            f"it is an image{size}, over the {_megapixels(limits.max_pixels)} megapixel limit "
            "(a decompression bomb?)",
        ) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        raise IngestError(name, _DAMAGED) from None
    width, height = im.size
    if width * height > limits.max_pixels:
        im.close()
        raise IngestError(
            name,
            f"it is an image of {width} × {height} pixels, over the "
            f"{_megapixels(limits.max_pixels)} megapixel limit (a decompression bomb?)",
        )
    return im


def _encode(im: Image.Image) -> Blob:
    """PNG when the image has transparency, else JPEG."""
    out = io.BytesIO()
    if im.mode in ("RGBA", "LA", "PA") or (im.mode == "P" and "transparency" in im.info):
        im.convert("RGBA").save(out, "PNG", optimize=False, compress_level=3)
        return Blob(out.getvalue(), "image/png")
    im.convert("RGB").save(out, "JPEG", quality=88)
    return Blob(out.getvalue(), "image/jpeg")


def _full_size(im: Image.Image) -> tuple[int, int]:
    """The image's size as shown (sideways EXIF orientations swap the sides)."""
    width, height = im.size
    return (height, width) if im.getexif().get(_ORIENTATION, 1) in (5, 6, 7, 8) else (width, height)


def _decode(im: Image.Image, limits: ImageLimits, size: int, job: Job) -> tuple[Image.Image, bool]:
    """The decoded image turned upright, and whether models need a converted copy of it."""
    fmt = im.format or ""
    orientation = im.getexif().get(_ORIENTATION, 1)
    width, height = im.size
    convert = (
        fmt not in _MODEL_FORMATS
        or im.mode not in _MODEL_MODES
        or max(width, height) > limits.model_side
        or size > limits.model_bytes
        or orientation not in (0, 1)
    )
    side = limits.model_side if convert else limits.thumbnail_side
    scale = min(1.0, 0.75 * side / max(width, height))
    if fmt == "JPEG":
        # decode at 1/2, 1/4 or 1/8 scale when that is still big enough: far faster
        im.draft(im.mode, (max(1, round(width * scale)), max(1, round(height * scale))))
    job.progress(0.4, "decoding")
    im.load()
    upright = ImageOps.exif_transpose(im) if orientation not in (0, 1) else im
    return upright, convert


def extract_image(data: bytes, name: str, limits: ImageLimits, job: Job) -> Draft:
    """Read an image: the model copy (upright, downscaled), a thumbnail, and the original."""
    im = _open(data, name, limits)
    with im:
        fmt = im.format or ""
        try:
            width, height = _full_size(im)
            upright, convert = _decode(im, limits, len(data), job)
        except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError):
            raise IngestError(name, _DAMAGED) from None
        job.progress(0.7, "resizing")
        blobs: dict[str, Blob] = {}
        if convert:
            model = upright.copy()
            model.thumbnail((limits.model_side, limits.model_side), Image.Resampling.BICUBIC)
            blobs[MAIN] = _encode(model)
            blobs["original"] = Blob(data, _MIME.get(fmt, "application/octet-stream"), name)
        else:
            model = upright
            blobs[MAIN] = Blob(data, _MODEL_FORMATS[fmt], name)
        thumb = model.copy()
        thumb.thumbnail((limits.thumbnail_side,) * 2, Image.Resampling.BICUBIC)
        blobs["thumbnail"] = _encode(thumb)
    job.progress(0.9, "storing")

    def build(refs: dict[str, MediaRef]) -> ImageBlock:
        return ImageBlock(
            media=refs[MAIN],
            thumbnail=refs["thumbnail"],
            original=refs.get("original"),
            width=width,
            height=height,
        )

    return Draft(blobs, build)
