"""File tools: what they read, list, find and write inside the granted folders, and every way
out of those folders refused with a sentence the model reads."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from app.core.state import ContentBlock, TextBlock
from app.core.tools import Tool
from app.tools.files import MAX_LIST_ENTRIES, MAX_READ_CHARS, file_tools
from tests.tools.helpers import ok, refused

SECRET = "the neighbour's diary"


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A granted folder with a few files, beside a folder that is not granted."""
    root = tmp_path / "shared"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "todo.txt").write_text("buy milk\ncall Ada about the invoice\n")
    (root / "readme.md").write_text("# Project\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "diary.txt").write_text(SECRET)
    return root


def tools(*granted: Path, **kwargs: Any) -> dict[str, Tool[..., Any]]:
    return {t.name: t for t in file_tools(granted, **kwargs)}


async def test_list_directory_shows_folders_files_and_sizes(shared: Path) -> None:
    listing = await ok(tools(shared)["list_directory"])
    assert listing.splitlines() == [
        f"Folder {shared} (2 entries):",
        "notes/",
        "readme.md (10 bytes)",
    ]
    inner = await ok(tools(shared)["list_directory"], path="notes")
    assert "todo.txt (36 bytes)" in inner


async def test_list_directory_is_bounded(shared: Path) -> None:
    many = shared / "many"
    many.mkdir()
    for i in range(MAX_LIST_ENTRIES + 7):
        (many / f"f{i:04}").touch()
    listing = await ok(tools(shared)["list_directory"], path="many")
    assert listing.endswith("[... 7 more entries not shown]")
    assert len(listing.splitlines()) == MAX_LIST_ENTRIES + 2


async def test_read_file_returns_the_text(shared: Path) -> None:
    text = await ok(tools(shared)["read_file"], path="notes/todo.txt")
    assert text == "buy milk\ncall Ada about the invoice\n"
    absolute = await ok(tools(shared)["read_file"], path=str(shared / "readme.md"))
    assert absolute == "# Project\n"


async def test_an_empty_file_and_bad_reads_say_so(shared: Path) -> None:
    (shared / "empty.txt").touch()
    assert await ok(tools(shared)["read_file"], path="empty.txt") == "(the file is empty)"
    said = await refused(tools(shared)["read_file"], path="readme.md", offset=50)
    assert said == "Tool 'read_file' failed: offset 50 is past the end of 'readme.md' (10 bytes)"
    said = await refused(tools(shared)["read_file"], path="notes")
    assert said == "Tool 'read_file' failed: 'notes' is a folder, not a file that can be read"
    said = await refused(tools(shared)["read_file"], path="nope.txt")
    assert said == "Tool 'read_file' failed: 'nope.txt' does not exist"
    said = await refused(tools(shared)["read_file"], path="readme.md/inner.txt")
    assert said == "Tool 'read_file' failed: 'readme.md/inner.txt' does not exist"
    (shared / "loop").symlink_to(shared / "loop")
    said = await refused(tools(shared)["read_file"], path="loop")
    assert said == (
        "Tool 'read_file' failed: the path 'loop' could not be followed to a real file (a link "
        "on the way loops or changed while it was read)"
    )


async def test_an_oversized_read_is_cut_with_a_note_and_can_be_continued(shared: Path) -> None:
    # 'é' is two bytes, so the cap falls in the middle of a character
    original = "é" * (MAX_READ_CHARS // 2) + "x" + "é" * 1000
    (shared / "big.txt").write_text(original)
    read_file = tools(shared)["read_file"]
    first = await ok(read_file, path="big.txt")
    body, note = first.rsplit("\n", 1)
    size = len(original.encode())
    assert note == (
        f"[... cut at byte {MAX_READ_CHARS} of {size}; call read_file with "
        f"offset={MAX_READ_CHARS} to read on]"
    )
    rest = await ok(read_file, path="big.txt", offset=MAX_READ_CHARS)
    assert body + rest == original


async def test_a_huge_file_is_not_read_whole(shared: Path) -> None:
    huge = shared / "huge.log"
    with huge.open("wb") as out:
        out.write(b"log line\n" * 20_000)
        out.truncate(4_000_000_000)  # sparse: the rest of 4 GB occupies no disk
    text = await ok(tools(shared)["read_file"], path="huge.log")
    assert text == "log line\n" * 11_111 + "l\n" + (
        "[... cut at byte 100000 of 4000000000; call read_file with offset=100000 to read on]"
    )


async def test_binary_images_and_pdfs_are_described_not_dumped(shared: Path) -> None:
    (shared / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    (shared / "paper.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00" * 50)
    (shared / "data.bin").write_bytes(b"\x01\x00\x02" * 10)
    read_file = tools(shared)["read_file"]
    photo = await ok(read_file, path="photo.png")
    assert photo.startswith("'photo.png' is an image (image/png) of 108 bytes.")
    assert (await ok(read_file, path="paper.pdf")).startswith("'paper.pdf' is a PDF document")
    assert await refused(read_file, path="data.bin") == (
        "Tool 'read_file' failed: 'data.bin' is a binary file (30 bytes), not text"
    )


async def test_an_ingest_turns_images_into_blocks(shared: Path) -> None:
    (shared / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    seen: list[tuple[str, str]] = []

    async def ingest(file: BinaryIO, name: str, mime: str) -> Sequence[ContentBlock]:
        seen.append((name, mime))
        head = os.pread(file.fileno(), 8, 0)
        return [TextBlock(text=f"a picture of {os.fstat(file.fileno()).st_size} bytes: {head!r}")]

    output = await ok(tools(shared, ingest=ingest)["read_file"], path="photo.png")
    assert seen == [("photo.png", "image/png")]
    assert output == "photo.png (image/png):\na picture of 108 bytes: b'\\x89PNG\\r\\n\\x1a\\n'"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside/diary.txt", "uses '..', which is not allowed"),
        ("notes/../../outside/diary.txt", "uses '..', which is not allowed"),
        ("OUTSIDE_ABS", "is outside the shared folders"),
        ("/etc/passwd", "is outside the shared folders"),
        ("/dev/zero", "is outside the shared folders"),
        ("link-out/diary.txt", "leads through a link to"),
        ("diary-link.txt", "leads through a link to"),
    ],
)
async def test_every_way_out_of_the_shared_folder_is_refused(
    shared: Path, path: str, reason: str
) -> None:
    outside = shared.parent / "outside"
    (shared / "link-out").symlink_to(outside)
    (shared / "diary-link.txt").symlink_to(outside / "diary.txt")
    path = path.replace("OUTSIDE_ABS", str(outside / "diary.txt"))
    said = await refused(tools(shared)["read_file"], path=path)
    assert said.startswith(f"Tool 'read_file' failed: the path {path!r}"), said
    assert reason in said
    assert SECRET not in said


@pytest.mark.parametrize("folder", ["..", "../outside", "link-out", "OUTSIDE_ABS", "/"])
async def test_listing_and_searching_outside_are_refused(shared: Path, folder: str) -> None:
    outside = shared.parent / "outside"
    (shared / "link-out").symlink_to(outside)
    folder = folder.replace("OUTSIDE_ABS", str(outside))
    for name, args in [("list_directory", {}), ("search_files", {"text": "diary"})]:
        said = await refused(tools(shared)[name], path=folder, **args)
        assert said.startswith(f"Tool {name!r} failed: the path {folder!r}"), said
        assert SECRET not in said and "diary.txt" not in said


async def test_a_fifo_is_refused_without_hanging(shared: Path) -> None:
    os.mkfifo(shared / "pipe")
    said = await refused(tools(shared)["read_file"], path="pipe")
    assert (
        said
        == "Tool 'read_file' failed: 'pipe' is a named pipe (FIFO), not a file that can be read"
    )
    found = await ok(tools(shared)["search_files"], text="pipe")
    assert "no matches" in found  # the walk skips it too, without opening it


async def test_a_device_is_refused_even_inside_a_granted_folder() -> None:
    said = await refused(tools(Path("/dev"))["read_file"], path="/dev/zero")
    assert said == "Tool 'read_file' failed: '/dev/zero' is a device, not a file that can be read"


async def test_with_no_folder_granted_every_path_is_refused(shared: Path) -> None:
    none = tools()
    said = await refused(none["read_file"], path=str(shared / "readme.md"))
    assert "no folder is shared with Parley" in said
    assert "No folders are shared yet" in none["read_file"].description


async def test_the_descriptions_name_the_granted_folders(shared: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    for tool in tools(shared, other).values():
        assert f"Folders you may use: {shared}, {other}." in tool.description
        assert tool.spec.parameters["type"] == "object"
    assert tools(shared)["read_file"].spec.parameters["required"] == ["path"]


async def test_search_files_finds_names_and_lines(shared: Path) -> None:
    (shared / "invoice-2024.txt").write_text("total: 12 EUR\n")
    found = await ok(tools(shared)["search_files"], text="INVOICE")
    assert found.splitlines() == [
        f"Searched 3 files under {shared} for 'INVOICE':",
        "invoice-2024.txt (name matches)",
        "notes/todo.txt:2: call Ada about the invoice",
    ]
    names_only = await ok(tools(shared)["search_files"], text="invoice", in_content=False)
    assert "todo.txt" not in names_only


async def test_search_files_does_not_follow_links_out(shared: Path) -> None:
    (shared / "link-out").symlink_to(shared.parent / "outside")
    (shared / "diary-link.txt").symlink_to(shared.parent / "outside" / "diary.txt")
    found = await ok(tools(shared)["search_files"], text="diary")
    assert SECRET not in found
    assert "no matches" in found


async def test_search_files_is_bounded(shared: Path) -> None:
    (shared / "many.txt").write_text("needle\n" * 500)
    found = await ok(tools(shared)["search_files"], text="needle")
    lines = found.splitlines()
    assert len(lines) == 102
    assert lines[-1].startswith("[stopped after 100 matches")
