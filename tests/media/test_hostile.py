"""Malformed and hostile files: each gives one sentence naming the file and the reason, stores
nothing, and never stops the rest of a batch."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import sqlite3
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core.state import AudioBlock, DataBlock, DocumentBlock
from app.media import BytesSource, IngestLimits, Ingestor, Source
from app.media._limits import DocxLimits, ImageLimits
from app.store import Store
from tests.media import corpus

DAMAGED_IMAGE = "it is not a readable image: the file is damaged or cut off"
DAMAGED_PDF = "it is not a readable PDF: the file is damaged"
BAD_AV = "it is not a readable audio or video file"


def png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` × ``height`` pixels (only a sliver of data follows)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
        + chunk(b"IEND", b"")
    )


def gif_header(width: int, height: int) -> bytes:
    """A GIF whose logical screen is ``width`` × ``height``."""
    return b"GIF89a" + struct.pack("<HHBBB", width, height, 0, 0, 0) + b"," + bytes(9) + b";"


def _half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _bad_docx() -> bytes:
    good = corpus.word(["x"])
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            body = src.read(item)
            if item.filename == "word/document.xml":
                body = body[: len(body) // 2]  # cut-off XML
            dst.writestr(item, body)
    return out.getvalue()


# name, bytes, expected reason
BYTES_CASES: list[tuple[str, Callable[[], bytes], str]] = [
    ("cut.png", lambda: _half(corpus.image("PNG")), DAMAGED_IMAGE),
    ("cut.jpg", lambda: _half(corpus.image("JPEG")), DAMAGED_IMAGE),
    ("cut.gif", lambda: _half(corpus.image("GIF")), DAMAGED_IMAGE),
    ("cut.webp", lambda: _half(corpus.image("WEBP")), DAMAGED_IMAGE),
    ("cut.tiff", lambda: _half(corpus.image("TIFF")), DAMAGED_IMAGE),
    ("header-only.png", lambda: corpus.image("PNG")[:40], DAMAGED_IMAGE),
    (
        "fake.bmp",
        lambda: b"BM" + bytes(100),
        "it is named like a PNG, JPEG, WebP, GIF, BMP or TIFF image, but its content is not one",
    ),
    (
        "bomb.png",
        lambda: png_header(20000, 20000),
        "it is an image of 400 megapixels, over the 89 megapixel limit (a decompression bomb?)",
    ),
    (
        "bomb-near.png",
        lambda: png_header(10000, 10000),
        "it is an image of 100 megapixels, over the 89 megapixel limit (a decompression bomb?)",
    ),
    (
        "bomb.gif",
        lambda: gif_header(65535, 65535),
        "it is an image of 4295 megapixels, over the 89 megapixel limit (a decompression bomb?)",
    ),
    ("cut.pdf", lambda: _half(corpus.pdf(["one", "two", "three"])), DAMAGED_PDF),
    ("header-only.pdf", lambda: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(200), DAMAGED_PDF),
    ("no-pages.pdf", lambda: corpus.pdf([]), DAMAGED_PDF),
    (
        "secret.pdf",
        lambda: corpus.pdf(["classified"], password="hunter2"),
        "it is a password-protected PDF; remove the password and attach it again",
    ),
    (
        "cut.docx",
        _bad_docx,
        "it is not a readable Word document: the file is damaged",
    ),
    (
        "fake.docx",
        lambda: b"PK\x03\x04" + bytes(60),
        "it is named like a Word document, but its content is not one",
    ),
    ("cut.mp4", lambda: _half(corpus.video("mp4", "mpeg4")), BAD_AV),
    ("junk.mp3", lambda: b"ID3" + b"\x01" * 500, BAD_AV),
    ("junk.ogg", lambda: b"OggS" + bytes(300), BAD_AV),
    ("junk.flac", lambda: b"fLaC" + b"\x07" * 300, BAD_AV),
    ("junk.mkv", lambda: b"\x1a\x45\xdf\xa3" + b"\x01" * 300, BAD_AV),
    ("junk.m4a", lambda: b"\x00\x00\x00\x20ftypM4A " + bytes(300), BAD_AV),
    ("junk.wav", lambda: b"RIFF\x10\x00\x00\x00WAVEjunkjunkjunk", BAD_AV),
    (
        "header-only.wav",
        lambda: corpus.wav()[:44],
        "it is a WAV file with no sound data in it (cut off?)",
    ),
    (
        "words.mp4",
        lambda: b"This is not a video, just words.\n" * 10,
        "it is named like an audio or video file, but its content is not one",
    ),
    ("empty.png", lambda: b"", "the file is empty (0 bytes)"),
    (
        "locked.docx",
        lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600),
        "it is a password-protected Word document; remove the password and attach it again",
    ),
]


@pytest.mark.parametrize(("name", "make", "reason"), BYTES_CASES, ids=[c[0] for c in BYTES_CASES])
async def test_bad_bytes(
    tmp_path: Path, ingestor: Ingestor, name: str, make: Callable[[], bytes], reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(make())
    result = await ingestor.ingest(path)
    assert result.block is None
    assert result.error == reason
    assert result.message == f"{name}: {reason}"
    assert _media_rows(tmp_path) == 0, "a file that failed left media behind"


def _media_rows(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "parley.db") as conn:
        return int(conn.execute("SELECT count(*) FROM media").fetchone()[0])


async def test_a_smaller_pixel_limit_is_honoured(store: Store) -> None:
    limits = IngestLimits(image=ImageLimits(max_pixels=1_000_000))
    result = await Ingestor(store.store_media, limits).ingest(
        BytesSource(corpus.image("PNG", (2000, 1000)), "wide.png")
    )
    assert result.message == (
        "wide.png: it is an image of 2000 × 1000 pixels, over the 1 megapixel limit "
        "(a decompression bomb?)"
    )


async def test_a_docx_zip_bomb_is_refused_before_it_is_unpacked(store: Store) -> None:
    data = corpus.zipped({"word/document.xml": b"<" + b"a" * 2_000_000})
    limits = IngestLimits(docx=DocxLimits(max_unpacked=1_000_000))
    result = await Ingestor(store.store_media, limits).ingest(BytesSource(data, "bomb.docx"))
    assert result.message == (
        "bomb.docx: it is a Word document that unpacks to 2.0 MB, over the 1.0 MB limit "
        "(a zip bomb?)"
    )


async def test_files_over_the_limit_name_the_limit(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 5000)
    ingestor = Ingestor(store.store_media, IngestLimits(max_bytes=1000))
    result = await ingestor.ingest(path)
    assert result.message == "big.txt: the file is 5.0 kB, over the 1.0 kB limit for attachments"
    pasted = await ingestor.ingest(BytesSource(b"y" * 2000, "pasted.txt"))
    assert pasted.message == (
        "pasted.txt: the file is 2.0 kB, over the 1.0 kB limit for attachments"
    )


async def test_sparse_files_that_claim_gigabytes(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "huge.bin"
    with path.open("wb") as fh:
        fh.truncate(4 * 1024**3)
    result = await Ingestor(store.store_media).ingest(path)
    assert result.message == (
        "huge.bin: the file is 4.3 GB, over the 256.0 MB limit for attachments"
    )
    roomy = Ingestor(store.store_media, IngestLimits(max_bytes=10 * 1024**3))
    result = await roomy.ingest(path)
    assert result.message == (
        "huge.bin: it is a sparse file: it claims 4.3 GB but holds only 0 bytes on disk"
    )


async def test_invalid_utf8_attaches_with_a_note(ingestor: Ingestor) -> None:
    data = "Grüße aus Köln — ".encode() + b"\xff\xfe\xc3" + " und tschüss.".encode()
    result = await ingestor.ingest(BytesSource(data, "notes.txt"))
    assert isinstance(result.block, DocumentBlock)
    assert result.block.text == "Grüße aus Köln — \ufffd\ufffd\ufffd und tschüss."
    assert result.notes == ("notes.txt: 3 bytes that are not valid UTF-8 show as �",)


async def test_huge_text_is_cut_with_a_note(store: Store) -> None:
    ingestor = Ingestor(store.store_media, IngestLimits(max_text_chars=1000))
    result = await ingestor.ingest(BytesSource(b"abcd" * 1000, "log.txt"))
    assert isinstance(result.block, DocumentBlock)
    assert result.block.text == "abcd" * 250
    assert result.block.media.size_bytes == 4000  # the file itself is kept whole
    assert result.notes == (
        "log.txt: only the first 1,000 characters of its 4,000 are kept as text",
    )


async def test_binary_junk_named_txt_is_data(ingestor: Ingestor) -> None:
    result = await ingestor.ingest(BytesSource(bytes(range(256)) * 4, "notes.txt"))
    assert isinstance(result.block, DataBlock)
    assert result.block.mime_type == "application/octet-stream"


async def test_a_cut_off_wav_says_how_much_is_left(ingestor: Ingestor) -> None:
    data = corpus.wav(1.0, 8000)
    result = await ingestor.ingest(BytesSource(data[: 44 + 8000], "cut.wav"))
    assert isinstance(result.block, AudioBlock)
    assert result.block.duration_s == 0.5
    assert result.notes == (
        "cut.wav: the file is cut off: it holds 0.5 s of the 1.0 s its header claims",
    )


def _special_files(tmp_path: Path) -> list[tuple[Source, str]]:
    folder = tmp_path / "folder"
    folder.mkdir()
    (tmp_path / "dangling.txt").symlink_to(tmp_path / "gone.txt")
    (tmp_path / "loop-a").symlink_to(tmp_path / "loop-b")
    (tmp_path / "loop-b").symlink_to(tmp_path / "loop-a")
    (tmp_path / "folder-link").symlink_to(folder)
    os.mkfifo(tmp_path / "pipe")
    return [
        (folder, "folder: it is a folder, not a file; attach the files inside it instead"),
        (
            tmp_path / "folder-link",
            "folder-link: it is a folder, not a file; attach the files inside it instead",
        ),
        (
            tmp_path / "dangling.txt",
            f"dangling.txt: it is a link to {tmp_path / 'gone.txt'}, which does not exist",
        ),
        (tmp_path / "loop-a", "loop-a: it cannot be read (Too many levels of symbolic links)"),
        (tmp_path / "pipe", "pipe: it is a named pipe (FIFO), not a regular file"),
        (Path("/dev/null"), "null: it is a device, not a regular file"),
        (tmp_path / "missing.pdf", "missing.pdf: there is no such file"),
    ]


async def test_special_files_never_block_and_say_what_they_are(
    tmp_path: Path, ingestor: Ingestor
) -> None:
    cases = _special_files(tmp_path)
    sock_path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    cases.append((sock_path, "sock: it is a socket, not a regular file"))
    try:
        results = await asyncio.wait_for(ingestor.ingest_all([s for s, _ in cases]), 10)
    finally:
        server.close()
    assert [r.message for r in results] == [m for _, m in cases]


async def test_unreadable_files(tmp_path: Path, ingestor: Ingestor) -> None:
    path = tmp_path / "private.txt"
    path.write_text("secret")
    if os.geteuid() == 0:
        pytest.skip("root reads every file: the test below drops that right")
    path.chmod(0)
    result = await ingestor.ingest(path)
    assert result.message == "private.txt: it cannot be read: permission denied"


async def test_a_bad_file_does_not_stop_the_batch(
    tmp_path: Path, ingestor: Ingestor, store: Store
) -> None:
    (tmp_path / "good.txt").write_text("fine")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "photo.png").write_bytes(corpus.image("PNG"))
    (tmp_path / "cut.jpg").write_bytes(_half(corpus.image("JPEG")))
    names = ["good.txt", "empty.txt", "photo.png", "missing.doc", "cut.jpg"]
    results = await ingestor.ingest_all([tmp_path / n for n in names])
    assert [r.name for r in results] == names
    assert [r.block.type if r.block else r.error for r in results] == [
        "document",
        "the file is empty (0 bytes)",
        "image",
        "there is no such file",
        DAMAGED_IMAGE,
    ]


_CHILD = """
import asyncio, hashlib, sys
sys.path.insert(0, sys.argv[1])
from app.media import Ingestor

async def store_media(data, mime):
    return hashlib.sha256(data).hexdigest()

result = asyncio.run(Ingestor(store_media).ingest(sys.argv[2]))
print(result.message)
"""


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to run a child without the right to read every file",
)
def test_unreadable_file_for_root_without_its_override(tmp_path: Path) -> None:
    path = tmp_path / "private.txt"
    path.write_text("secret")
    path.chmod(0)
    no_override = "-dac_override,-dac_read_search"
    root = str(Path(__file__).resolve().parents[2])
    child = [sys.executable, "-c", _CHILD, root, str(path)]
    proc = subprocess.run(
        ["setpriv", "--bounding-set", no_override, "--inh-caps", no_override, *child],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.stderr == ""
    assert proc.stdout == "private.txt: it cannot be read: permission denied\n"
