"""A second process keeps swapping a folder inside the granted folder for a link to a folder
outside it and back (in one step, with ``renameat2(RENAME_EXCHANGE)``) while the real file
tools read, write and ingest images through it: no read returns the outside file, no write
lands outside, no search or listing shows what is outside, no image read stores the outside
image."""

from __future__ import annotations

import asyncio
import hashlib
import io
import sys
import time
from pathlib import Path

from PIL import Image

from app.core.state import ImageBlock
from app.services.bus import EventBus
from app.services.mcp.service import McpService
from app.services.settings import AppSettings
from app.services.settings.store import SettingsStore
from app.services.workspace_tools import WorkspaceTools
from app.store import Store
from tests.tools.helpers import answer, ask

ROUNDS = 700
"""Each round is three text reads and one write; every eighth adds a search, a listing and an
image read."""

SWAPPER_SECONDS = 120.0
"""The swapping process stops by itself after this long, should the test never tell it to."""

INSIDE = b"the note inside the granted folder\n"
OUTSIDE = b"the neighbour's diary, outside\n"

SWAPPER = """
import ctypes, os, sys, time
sub, parked, outside, stop, seconds = sys.argv[1:6]
deadline = time.monotonic() + float(seconds)
os.symlink(outside, parked)
libc = ctypes.CDLL(None, use_errno=True)
def swap():  # the folder and the link trade places in one step (RENAME_EXCHANGE)
    if libc.renameat2(-100, sub.encode(), -100, parked.encode(), 2) != 0:
        # a file system without it: three renames, with the name missing for a moment
        os.rename(sub, sub + ".swap")
        os.rename(parked, sub)
        os.rename(sub + ".swap", parked)
swaps = 0
while not os.path.exists(stop) and time.monotonic() < deadline:
    swap()
    swap()
    swaps += 1
os.unlink(parked)
print(swaps)
"""


def _png(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), colour).save(buffer, "PNG")
    return buffer.getvalue()


async def test_a_folder_swapped_for_a_link_mid_call_lets_nothing_out(tmp_path: Path) -> None:
    granted, outside = tmp_path / "granted", tmp_path / "outside"
    sub = granted / "sub"
    sub.mkdir(parents=True)
    outside.mkdir()
    inside_png, outside_png = _png("green"), _png("red")
    (sub / "note.txt").write_bytes(INSIDE)
    (sub / "pic.png").write_bytes(inside_png)
    (outside / "note.txt").write_bytes(OUTSIDE)
    (outside / "pic.png").write_bytes(outside_png)
    outside_sha = hashlib.sha256(outside_png).hexdigest()
    inside_sha = hashlib.sha256(inside_png).hexdigest()
    settings = AppSettings(granted_folders=[str(granted)])
    stop = tmp_path / "stop"

    read_escapes = image_escapes = searches_out = listings_out = 0
    reads = images = images_ok = 0
    raw_errors: list[str] = []  # every refusal must be a sentence, not an exception's text
    async with Store.open_data_dir(tmp_path / "data") as store:
        events = EventBus()
        events.subscribe(print)
        workspace_tools = WorkspaceTools(
            tmp_path / "data",
            store,
            settings=SettingsStore(tmp_path / "data", events, settings),
            mcp=McpService(tmp_path / "data", events=events),
        )
        tools = {t.name: t for t in workspace_tools.builtin()}
        args = [str(sub), str(granted / "parked"), str(outside), str(stop), str(SWAPPER_SECONDS)]
        swapper = await asyncio.create_subprocess_exec(
            sys.executable, "-c", SWAPPER, *args, stdout=asyncio.subprocess.PIPE
        )
        try:
            deadline = time.monotonic() + SWAPPER_SECONDS
            for i in range(ROUNDS):
                if time.monotonic() > deadline:
                    break
                for _ in range(3):
                    output, _code = await ask(tools["read_file"], path="sub/note.txt")
                    reads += 1
                    read_escapes += OUTSIDE.decode().strip() in str(output)
                    raw_errors += [str(output)] if "Errno" in str(output) else []
                output, _code = await ask(
                    tools["write_file"], path=f"sub/written-{i}.txt", content=f"w{i}"
                )
                raw_errors += [str(output)] if "Errno" in str(output) else []
                if i % 8 == 0:
                    output, _code = await ask(tools["search_files"], text="diary", path="sub")
                    searches_out += OUTSIDE.decode().strip() in str(output)
                    output, _code = await ask(tools["list_directory"], path="sub")
                    listings_out += f"note.txt ({len(OUTSIDE)} bytes)" in str(output)
                    message = await answer(tools["read_file"], path="sub/pic.png")
                    images += 1
                    said = str(message.content[0])
                    raw_errors += [said] if "Errno" in said else []
                    for block in [b for b in message.content if isinstance(b, ImageBlock)]:
                        assert block.media is not None
                        image_escapes += block.media.sha256 == outside_sha
                        images_ok += block.media.sha256 == inside_sha
        finally:
            stop.touch()
            out, _ = await asyncio.wait_for(swapper.communicate(), 60)
    landed_outside = sorted(p.name for p in outside.iterdir())
    assert int(out) > 0  # the folder was swapped while the calls ran
    escapes = (read_escapes, image_escapes, searches_out, listings_out, landed_outside)
    assert escapes == (0, 0, 0, 0, ["note.txt", "pic.png"]), (
        f"{read_escapes} of {reads} reads returned the outside file, {image_escapes} of "
        f"{images} image reads stored the outside image, {searches_out} of {images} searches "
        f"showed its lines, {listings_out} of {images} listings listed the outside folder, "
        f"and {len(landed_outside) - 2} writes landed outside"
    )
    assert raw_errors == []
    assert images_ok > 0  # the image reads that got through read the inside image
    written = sorted(p.name for p in sub.iterdir() if p.name.startswith("written-"))
    assert not [p for p in sub.iterdir() if p.name.endswith(".tmp")]  # no temp file left
    for name in written:
        assert (sub / name).read_text() == f"w{name.removeprefix('written-').split('.')[0]}"
    assert not (tmp_path / "data" / "settings.json").exists()  # the settings are not changed here
