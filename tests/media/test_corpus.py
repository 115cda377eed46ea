"""Every supported kind of file becomes the right block, with its media in the store."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from app.core.state import AudioBlock, DataBlock, DocumentBlock, ImageBlock, VideoBlock
from app.media import BytesSource, Ingestor, page_texts
from app.store import Store
from tests.media import corpus
from tests.media.conftest import stored_bytes


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("fmt", "mime", "kept"),
    [
        ("PNG", "image/png", True),
        ("JPEG", "image/jpeg", True),
        ("WEBP", "image/webp", True),
        ("GIF", "image/gif", True),
        ("BMP", "image/jpeg", False),
        ("TIFF", "image/jpeg", False),
    ],
)
async def test_images(
    tmp_path: Path, ingestor: Ingestor, store: Store, fmt: str, mime: str, kept: bool
) -> None:
    data = corpus.image(fmt)
    result = await ingestor.ingest(_write(tmp_path, f"picture.{fmt.lower()}", data))
    block = result.block
    assert isinstance(block, ImageBlock), result.error
    assert (block.width, block.height) == (640, 480)
    assert block.media.kind == "file_id"
    assert block.media.filename == f"picture.{fmt.lower()}"
    assert block.media.mime_type == mime
    model_bytes = await stored_bytes(store, block.media.file_id)
    assert Image.open(io.BytesIO(model_bytes)).size == (640, 480)
    if kept:  # models take this format as it is: the file itself is sent
        assert model_bytes == data
        assert block.original is None
    else:  # BMP and TIFF are converted for models; the original is kept byte for byte
        assert block.original is not None
        assert await stored_bytes(store, block.original.file_id) == data
        assert block.original.mime_type == f"image/{fmt.lower()}"
    assert block.thumbnail is not None
    thumb = Image.open(io.BytesIO(await stored_bytes(store, block.thumbnail.file_id)))
    assert thumb.size == (256, 192)
    assert thumb.getpixel((10, 10))[0] > 200  # the red half stays on the left


@pytest.mark.parametrize(
    ("name", "mode", "fmt", "mime", "thumb_mime"),
    [
        ("print.jpg", "CMYK", "JPEG", "image/jpeg", "image/jpeg"),
        ("gray.jpg", "L", "JPEG", "image/jpeg", "image/jpeg"),
        ("depth.png", "I;16", "PNG", "image/jpeg", "image/jpeg"),
        ("float.tiff", "F", "TIFF", "image/jpeg", "image/jpeg"),
        ("icon.png", "LA", "PNG", "image/png", "image/png"),
        ("mono.bmp", "1", "BMP", "image/jpeg", "image/jpeg"),
    ],
)
async def test_pixel_formats_models_may_not_read_are_converted(
    ingestor: Ingestor, store: Store, name: str, mode: str, fmt: str, mime: str, thumb_mime: str
) -> None:
    out = io.BytesIO()
    Image.new(mode, (300, 200)).save(out, fmt)
    result = await ingestor.ingest(BytesSource(out.getvalue(), name))
    block = result.block
    assert isinstance(block, ImageBlock), result.error
    assert block.media.mime_type == mime
    assert block.thumbnail is not None and block.thumbnail.mime_type == thumb_mime
    sent = Image.open(io.BytesIO(await stored_bytes(store, block.media.file_id)))
    assert sent.mode in ("RGB", "RGBA", "L", "LA")
    assert (block.original is None) == (mode in ("L", "LA"))


async def test_an_animated_gif_is_sent_as_it_is(ingestor: Ingestor) -> None:
    frames = [Image.new("P", (100, 100), i) for i in range(5)]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    result = await ingestor.ingest(BytesSource(out.getvalue(), "spinner.gif"))
    assert isinstance(result.block, ImageBlock)
    assert result.block.media.size_bytes == len(out.getvalue())
    assert result.block.original is None


async def test_transparent_png_keeps_its_alpha_in_the_thumbnail(
    ingestor: Ingestor, store: Store
) -> None:
    result = await ingestor.ingest(BytesSource(corpus.image("PNG", mode="RGBA"), "glass.png"))
    assert isinstance(result.block, ImageBlock)
    assert result.block.thumbnail is not None
    assert result.block.thumbnail.mime_type == "image/png"
    thumb = Image.open(io.BytesIO(await stored_bytes(store, result.block.thumbnail.file_id)))
    assert thumb.mode == "RGBA"
    assert thumb.getpixel((5, 5))[3] == 128


async def test_exif_orientation_is_applied(ingestor: Ingestor, store: Store) -> None:
    data = corpus.rotated_jpeg(6, size=(400, 300))  # stored 400 wide, shown 300 wide
    result = await ingestor.ingest(BytesSource(data, "phone.jpg"))
    block = result.block
    assert isinstance(block, ImageBlock)
    assert (block.width, block.height) == (300, 400)
    shown = Image.open(io.BytesIO(await stored_bytes(store, block.media.file_id)))
    assert shown.size == (300, 400)
    assert block.original is not None
    assert await stored_bytes(store, block.original.file_id) == data
    # the red half was on the left of the stored pixels: upright, it is at the top
    assert shown.getpixel((150, 20))[0] > 200
    assert shown.getpixel((150, 380))[2] > 200


async def test_a_big_photo_is_downscaled_for_models_and_kept_whole(
    ingestor: Ingestor, store: Store
) -> None:
    data = corpus.big_jpeg(4000, 3000)
    result = await ingestor.ingest(BytesSource(data, "camera.jpg"))
    block = result.block
    assert isinstance(block, ImageBlock)
    assert (block.width, block.height) == (4000, 3000)
    model = Image.open(io.BytesIO(await stored_bytes(store, block.media.file_id)))
    assert model.size == (1568, 1176)
    assert block.original is not None
    assert block.original.size_bytes == len(data)
    assert await stored_bytes(store, block.original.file_id) == data


async def test_content_wins_over_the_extension(ingestor: Ingestor) -> None:
    result = await ingestor.ingest(BytesSource(corpus.image("PNG"), "really-a-png.jpg"))
    assert isinstance(result.block, ImageBlock)
    assert result.block.media.mime_type == "image/png"


async def test_pdf_text_per_page_preview_and_title(
    tmp_path: Path, ingestor: Ingestor, store: Store
) -> None:
    data = corpus.pdf(["First page says hello", "Second page says goodbye"], title="Greetings")
    result = await ingestor.ingest(_write(tmp_path, "letter.pdf", data))
    block = result.block
    assert isinstance(block, DocumentBlock), result.error
    assert block.pages == [1, 2]
    assert page_texts(block.text) == ["First page says hello", "Second page says goodbye"]
    assert block.title == "Greetings"
    assert block.excerpt == "First page says hello Second page says goodbye"
    assert block.media.mime_type == "application/pdf"
    assert await stored_bytes(store, block.media.file_id) == data
    assert block.preview is not None
    preview = Image.open(io.BytesIO(await stored_bytes(store, block.preview.file_id)))
    assert preview.size == (396, 512)  # US Letter, 512 pixels high
    assert result.notes == ()


async def test_a_pdf_with_an_empty_user_password_opens(ingestor: Ingestor) -> None:
    data = corpus.pdf(["Open to all"], password="")
    result = await ingestor.ingest(BytesSource(data, "open.pdf"))
    assert isinstance(result.block, DocumentBlock), result.error
    assert result.block.text == "Open to all"


async def test_a_pdf_without_text_says_so(ingestor: Ingestor) -> None:
    result = await ingestor.ingest(BytesSource(corpus.image("PDF"), "scan.pdf"))
    assert isinstance(result.block, DocumentBlock)
    assert result.block.text is None
    assert result.block.pages == [1]
    assert result.notes == (
        "scan.pdf: the PDF has no text layer (scanned pages?); models see no text",
    )


@pytest.mark.parametrize(
    ("name", "content", "mime"),
    [
        ("notes.txt", "Plain notes.\nSecond line.", "text/plain"),
        ("README.md", "# Title\n\nSome *Markdown*.", "text/markdown"),
        ("script.py", "def main():\n    return 42\n", "text/x-python"),
        ("table.csv", "name,age\nAda,36\nAlan,41\n", "text/csv"),
        ("data.json", json.dumps({"a": [1, 2, 3], "b": "ü"}), "application/json"),
        ("no-extension", "Just some words in a file without an extension.", "text/plain"),
        ("broken.json", '{"a": 1,', "text/plain"),
    ],
)
async def test_text_files(
    ingestor: Ingestor, store: Store, name: str, content: str, mime: str
) -> None:
    data = content.encode()
    result = await ingestor.ingest(BytesSource(data, name))
    block = result.block
    assert isinstance(block, DocumentBlock), result.error
    assert block.text == content
    assert block.title == name
    assert block.media.mime_type == mime
    assert await stored_bytes(store, block.media.file_id) == data
    assert result.notes == ()


@pytest.mark.parametrize(
    ("encoding", "note"),
    [
        ("utf-16", None),
        ("utf-8-sig", None),
        ("cp1252", "legacy.txt: read as cp1252 text (it is not UTF-8)"),
    ],
)
async def test_text_encodings_are_detected(
    ingestor: Ingestor, encoding: str, note: str | None
) -> None:
    text = (
        "Les élèves étudient à l'école. Ça coûte très cher, n'est-ce pas ? "
        "Déjà vu, où êtes-vous allés cet été ?\n"
    ) * 3
    result = await ingestor.ingest(BytesSource(text.encode(encoding), "legacy.txt"))
    assert isinstance(result.block, DocumentBlock), result.error
    assert result.block.text == text
    assert result.notes == ((note,) if note else ())


async def test_cyrillic_in_a_legacy_code_page(ingestor: Ingestor) -> None:
    text = "Привет, как дела? Это текст в кодировке Windows-1251, довольно длинный.\n" * 2
    result = await ingestor.ingest(BytesSource(text.encode("cp1251"), "letter.txt"))
    assert isinstance(result.block, DocumentBlock)
    assert result.block.text == text
    assert result.notes == ("letter.txt: read as cp1251 text (it is not UTF-8)",)


async def test_word_document(tmp_path: Path, ingestor: Ingestor) -> None:
    data = corpus.word(["Quarterly report", "Sales went up."], [["Q1", "10"], ["Q2", "12"]])
    result = await ingestor.ingest(_write(tmp_path, "report.docx", data))
    block = result.block
    assert isinstance(block, DocumentBlock), result.error
    assert block.text == "Quarterly report\nSales went up.\n\nQ1\t10\nQ2\t12"
    assert block.media.mime_type == (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    )


@pytest.mark.parametrize(
    ("name", "make", "mime", "rate", "channels"),
    [
        ("voice.wav", lambda: corpus.wav(0.5, 8000, 1), "audio/wav", 8000, 1),
        ("song.mp3", lambda: corpus.audio("mp3", "libmp3lame"), "audio/mpeg", 44100, 2),
        ("memo.ogg", lambda: corpus.audio("ogg", "libopus", rate=48000), "audio/ogg", 48000, 2),
        ("take.flac", lambda: corpus.audio("flac", "flac"), "audio/flac", 44100, 2),
        ("clip.m4a", lambda: corpus.audio("ipod", "aac"), "audio/mp4", 44100, 2),
    ],
)
async def test_audio(
    tmp_path: Path,
    ingestor: Ingestor,
    store: Store,
    name: str,
    make: object,
    mime: str,
    rate: int,
    channels: int,
) -> None:
    assert callable(make)
    data = make()
    result = await ingestor.ingest(_write(tmp_path, name, data))
    block = result.block
    assert isinstance(block, AudioBlock), result.error
    assert block.media.mime_type == mime
    assert block.sample_rate == rate
    assert block.channels == channels
    assert block.duration_s is not None
    assert 0.45 <= block.duration_s <= 0.6
    assert await stored_bytes(store, block.media.file_id) == data


@pytest.mark.parametrize(
    ("name", "fmt", "codec", "mime"),
    [
        ("clip.mp4", "mp4", "mpeg4", "video/mp4"),
        ("clip.webm", "webm", "libvpx", "video/webm"),
        ("clip.mkv", "matroska", "libx264", "video/x-matroska"),
    ],
)
async def test_video(
    tmp_path: Path, ingestor: Ingestor, store: Store, name: str, fmt: str, codec: str, mime: str
) -> None:
    data = corpus.video(fmt, codec)
    result = await ingestor.ingest(_write(tmp_path, name, data))
    block = result.block
    assert isinstance(block, VideoBlock), result.error
    assert block.media.mime_type == mime
    assert (block.width, block.height) == (160, 120)
    assert block.duration_s == pytest.approx(2.0, abs=0.15)
    # decoding is the window's (Qt Multimedia): without a frame source there is no thumbnail
    assert block.thumbnail is None
    assert result.notes == ()
    assert await stored_bytes(store, block.media.file_id) == data


@pytest.mark.parametrize(
    ("name", "make", "mime", "duration"),
    [
        ("both.mp4", lambda: corpus.video("mp4", "libx264", audio=True), "video/mp4", 2.0),
        ("both.webm", lambda: corpus.video("webm", "libvpx", audio=True), "video/webm", 2.0),
        ("wide.mkv", lambda: corpus.video("matroska", "mpeg4", size=(320, 180)), None, 2.0),
        ("long.mp4", lambda: corpus.video("mp4", "mpeg4", frames=200), "video/mp4", 20.0),
    ],
)
async def test_a_video_is_told_by_its_picture_track_with_sound_or_without(
    ingestor: Ingestor, name: str, make: object, mime: str | None, duration: float
) -> None:
    assert callable(make)
    result = await ingestor.ingest(BytesSource(make(), name))
    block = result.block
    assert isinstance(block, VideoBlock), result.error
    assert block.media.mime_type == (mime or "video/x-matroska")
    assert (block.width, block.height) == ((320, 180) if name == "wide.mkv" else (160, 120))
    assert block.duration_s == pytest.approx(duration, abs=0.15)


async def test_an_ogg_theora_file_is_video_with_its_picture_size(ingestor: Ingestor) -> None:
    result = await ingestor.ingest(BytesSource(corpus.theora_headers((320, 240), 40), "old.ogv"))
    block = result.block
    assert isinstance(block, VideoBlock), result.error
    assert block.media.mime_type == "video/ogg"
    assert (block.width, block.height, block.duration_s) == (320, 240, 4.0)


@pytest.mark.parametrize(
    ("name", "make", "mime", "rate"),
    [
        ("voice.webm", lambda: corpus.audio("webm", "libopus", rate=48000), "audio/webm", 48000),
        ("voice.mka", lambda: corpus.audio("matroska", "flac"), "audio/x-matroska", 44100),
        ("voice.m4a", lambda: corpus.audio("mp4", "aac", rate=22050), "audio/mp4", 22050),
    ],
)
async def test_a_container_with_only_sound_is_audio(
    ingestor: Ingestor, name: str, make: object, mime: str, rate: int
) -> None:
    assert callable(make)
    result = await ingestor.ingest(BytesSource(make(), name))
    block = result.block
    assert isinstance(block, AudioBlock), result.error
    assert block.media.mime_type == mime
    assert (block.sample_rate, block.channels) == (rate, 2)
    assert block.duration_s is not None
    assert 0.45 <= block.duration_s <= 0.6


async def test_a_video_thumbnail_comes_from_the_frame_source(store: Store) -> None:
    """The frame source is asked for a frame a tenth of the way in (at most 3 s); what it
    returns is stored as the thumbnail."""
    asked: list[float] = []
    jpeg = corpus.image("JPEG", (160, 120))

    async def frames(data: bytes, name: str, at: float) -> bytes | None:
        asked.append(at)
        return jpeg if data[4:8] == b"ftyp" and name == "talk.mp4" else None

    ingestor = Ingestor(store.store_media, frames=frames)
    short = await ingestor.ingest(BytesSource(corpus.video("mp4", "mpeg4"), "talk.mp4"))
    long = await ingestor.ingest(BytesSource(corpus.video("mp4", "mpeg4", frames=400), "talk.mp4"))
    assert asked == [pytest.approx(0.2), 3.0]
    for result in (short, long):
        block = result.block
        assert isinstance(block, VideoBlock) and block.thumbnail is not None
        assert block.thumbnail.mime_type == "image/jpeg"
        assert await stored_bytes(store, block.thumbnail.file_id) == jpeg


async def test_a_video_declaring_a_huge_picture_is_not_decoded_for_a_thumbnail(
    store: Store,
) -> None:
    data = bytearray(corpus.video("mp4", "mpeg4"))
    entry = data.index(b"mp4v") + 4  # the sample description's payload
    data[entry + 24 : entry + 28] = (40000).to_bytes(2, "big") * 2

    async def frames(data: bytes, name: str, at: float) -> bytes | None:
        return corpus.image("JPEG", (160, 120))

    result = await Ingestor(store.store_media, frames=frames).ingest(
        BytesSource(bytes(data), "bomb.mp4")
    )
    block = result.block
    assert isinstance(block, VideoBlock) and block.thumbnail is None
    assert (block.width, block.height) == (40000, 40000)
    assert result.notes == (
        "bomb.mp4: no thumbnail: its picture, 40000 × 40000 pixels, is too large to decode safely",
    )


async def test_a_video_whose_frame_cannot_be_decoded_attaches_without_a_thumbnail(
    store: Store,
) -> None:
    async def broken(data: bytes, name: str, at: float) -> bytes | None:
        raise RuntimeError("the decoder failed")

    result = await Ingestor(store.store_media, frames=broken).ingest(
        BytesSource(corpus.video("webm", "libvpx"), "clip.webm")
    )
    assert isinstance(result.block, VideoBlock) and result.block.thumbnail is None
    assert result.notes == ("clip.webm: no frame could be decoded for a thumbnail",)


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (corpus.zipped({"a.txt": b"hello"}), "application/zip"),
        (b"SQLite format 3\x00" + bytes(range(256)) * 8, "application/x-sqlite3"),
        (bytes(range(256)) * 16, "application/octet-stream"),
    ],
)
async def test_anything_else_is_data_with_its_type_and_size(
    ingestor: Ingestor, store: Store, data: bytes, mime: str
) -> None:
    result = await ingestor.ingest(BytesSource(data, "blob.bin"))
    block = result.block
    assert isinstance(block, DataBlock), result.error
    assert block.mime_type == mime
    assert block.media is not None
    assert block.media.size_bytes == len(data)
    assert block.media.sha256 == hashlib.sha256(data).hexdigest()
    assert await stored_bytes(store, block.media.file_id) == data
