"""Generated sample files of every kind Parley attaches (made here, so nothing is shipped)."""

from __future__ import annotations

import io
import struct
import wave
import zipfile
from fractions import Fraction

import av
import docx
from mutagen.ogg import OggPage
from PIL import Image
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject


def image(fmt: str, size: tuple[int, int] = (640, 480), mode: str = "RGB", **save: object) -> bytes:
    """A picture in ``fmt`` (Pillow's name): a red left half, a blue right half."""
    im = Image.new(mode, size, "red" if mode != "RGBA" else (255, 0, 0, 128))
    im.paste("blue" if mode != "RGBA" else (0, 0, 255, 128), (size[0] // 2, 0, *size))
    out = io.BytesIO()
    im.save(out, fmt, **save)
    return out.getvalue()


def rotated_jpeg(orientation: int = 6, size: tuple[int, int] = (400, 300)) -> bytes:
    """A JPEG stored sideways whose EXIF says how to turn it upright."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    return image("JPEG", size, exif=exif)


def big_jpeg(width: int = 6000, height: int = 4000) -> bytes:
    """A camera-sized JPEG (24 megapixels by default) with some detail in it."""
    im = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    out = io.BytesIO()
    im.save(out, "JPEG", quality=90)
    return out.getvalue()


def pdf(pages: list[str], *, password: str | None = None, title: str | None = None) -> bytes:
    """A PDF with one line of text (Helvetica) on each page."""
    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        stream = DecodedStreamObject()
        safe = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream.set_data(f"BT /F1 14 Tf 72 720 Td ({safe}) Tj ET".encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
    if title:
        writer.add_metadata({"/Title": title})
    if password:
        writer.encrypt(password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def word(paragraphs: list[str], table: list[list[str]] | None = None) -> bytes:
    """A .docx with the given paragraphs and, optionally, one table."""
    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, cell in enumerate(row):
                grid.cell(r, c).text = cell
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def wav(seconds: float = 0.5, rate: int = 8000, channels: int = 1) -> bytes:
    """A silent 16-bit PCM WAV file."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\0\0" * channels * int(seconds * rate))
    return out.getvalue()


def audio(fmt: str, codec: str, *, rate: int = 44100, layout: str = "stereo") -> bytes:
    """About half a second of silence encoded by FFmpeg (PyAV) as ``codec`` in ``fmt``."""
    out = io.BytesIO()
    with av.open(out, "w", format=fmt) as container:
        stream = container.add_stream(codec, rate=rate, layout=layout)
        ctx = stream.codec_context
        samples = ctx.frame_size or 1024
        for i in range(int(0.5 * rate / samples) + 1):
            frame = av.AudioFrame(format=ctx.format.name, layout=layout, samples=samples)
            for plane in frame.planes:
                plane.update(bytes(plane.buffer_size))
            frame.sample_rate = rate
            frame.pts = i * samples
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return out.getvalue()


def video(
    fmt: str,
    codec: str,
    *,
    size: tuple[int, int] = (160, 120),
    frames: int = 20,
    lit_from: int | None = None,
    gop: int | None = None,
    audio: bool = False,
) -> bytes:
    """``frames`` at 10 fps (two seconds by default) going from black to green; with
    ``lit_from``, black until that frame and bright green after it; with ``audio``, a silent
    sound track beside the picture (AAC in MP4, Opus otherwise)."""
    out = io.BytesIO()
    with av.open(out, "w", format=fmt) as container:
        stream = container.add_stream(codec, rate=Fraction(10))
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        if gop:
            stream.codec_context.gop_size = gop
        sound = None
        if audio:
            sound = container.add_stream("aac" if fmt == "mp4" else "libopus", rate=48000)
            sound.layout = "stereo"
        for i in range(frames):
            green = min(255, 10 + i * 10) if lit_from is None else 200 * (i >= lit_from)
            frame = av.VideoFrame.from_image(Image.new("RGB", size, (0, green, 0)))
            for packet in stream.encode(frame):
                container.mux(packet)
        if sound is not None:
            ctx = sound.codec_context
            samples = ctx.frame_size or 1024
            for i in range(int(frames / 10 * 48000 / samples)):
                chunk = av.AudioFrame(format=ctx.format.name, layout="stereo", samples=samples)
                for plane in chunk.planes:
                    plane.update(bytes(plane.buffer_size))
                chunk.sample_rate, chunk.pts = 48000, i * samples
                for packet in sound.encode(chunk):
                    container.mux(packet)
            for packet in sound.encode():
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return out.getvalue()


def theora_headers(size: tuple[int, int] = (320, 240), frames: int = 40, fps: int = 10) -> bytes:
    """An Ogg Theora stream's headers and a last page saying ``frames`` frames at ``fps``
    (FFmpeg here has no Theora encoder; the picture itself is never decoded by the reader)."""
    width, height = size
    ident = b"".join(
        [
            b"\x80theora\x03\x02\x01",
            struct.pack(">HH", (width + 15) // 16, (height + 15) // 16),
            width.to_bytes(3, "big") + height.to_bytes(3, "big") + bytes(2),
            struct.pack(">II", fps, 1) + (1).to_bytes(3, "big") * 2 + bytes(4),
            struct.pack(">H", 6 << 5),  # key frame granule shift 6
        ]
    )
    comment = b"\x81theora" + bytes(8)
    out = io.BytesIO()
    for seq, (packet, granule) in enumerate([(ident, 0), (comment, 0), (bytes(10), frames << 6)]):
        page = OggPage()
        page.serial, page.sequence, page.position = 1, seq, granule
        page.first, page.last = seq == 0, seq == 2
        page.packets = [packet]
        out.write(page.write())
    return out.getvalue()


def zipped(files: dict[str, bytes]) -> bytes:
    """A zip archive of ``files``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return out.getvalue()
