"""Render the window with attachments: a thread holding an image, a PDF, a sound clip, a video
and a zip file, and two more files waiting as chips in the composer.

Run: ``.venv/bin/python packaging/attachments_shot.py OUT.png [light|dark]`` (called by
``packaging/screenshots.py``). Every file is generated here.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

REPLY = (
    "The chart shows revenue climbing every quarter, and the report agrees: **revenue rose "
    "12 %** in Oslo while costs stayed flat. The voice memo is silent, and the clip fades "
    "from black to green."
)


def _chart() -> bytes:
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (960, 600), "#fbfbfd")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 960, 70), fill="#2f6fdf")
    draw.text((30, 24), "Revenue by quarter", fill="white")
    for i, height in enumerate((180, 250, 320, 410)):
        x = 120 + i * 200
        draw.rectangle((x, 540 - height, x + 120, 540), fill="#5b8def")
        draw.text((x + 40, 552), f"Q{i + 1}", fill="#333333")
    draw.line((80, 540, 900, 540), fill="#999999", width=2)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _files(folder: Path) -> dict[str, Path]:
    from tests.media import corpus

    files = {
        "chart": folder / "revenue-chart.png",
        "pdf": folder / "Q3 report.pdf",
        "wav": folder / "voice memo.wav",
        "mp4": folder / "site visit.mp4",
        "zip": folder / "raw data.zip",
        "photo": folder / "whiteboard.jpg",
        "notes": folder / "meeting notes.md",
    }
    files["chart"].write_bytes(_chart())
    files["pdf"].write_bytes(
        corpus.pdf(
            [
                "Q3 report. Revenue rose 12 percent in Oslo; costs were flat.",
                "Outlook: steady growth in Q4.",
                "Appendix: figures by region.",
            ]
        )
    )
    files["wav"].write_bytes(corpus.wav(14.0))
    files["mp4"].write_bytes(corpus.video("mp4", "libx264", size=(320, 180), frames=40))
    files["zip"].write_bytes(corpus.zipped({"q3.csv": b"region,revenue\nOslo,112\n"}))
    files["photo"].write_bytes(corpus.image("JPEG", (800, 600)))
    files["notes"].write_text("# Meeting notes\n\n- Ship the Q3 report\n- Book the venue\n")
    return files


async def _shoot(out: Path, tmp: Path) -> None:
    from app.core.models import ScriptedChatModel
    from app.core.models.protocol import ModelInfo
    from app.services.settings import AppSettings
    from app.services.workspace import Workspace
    from app.ui.app import close_window
    from app.ui.window import MainWindow

    info = ModelInfo(
        spec="scripted",
        name="vision",
        provider="scripted",
        input_kinds=frozenset({"text", "image", "document"}),
    )
    model = ScriptedChatModel([REPLY], info=info)
    files = _files(tmp)
    workspace = await Workspace.open(
        tmp / "data", resolve_model=lambda spec: model, secret_resolver=lambda ref: None
    )
    workspace.settings.use(AppSettings(default_model="scripted:vision"))
    thread = await workspace.threads.create(title="Q3 review")
    from app.ui.attachments.video_frames import VideoFrameSource

    # the window hands the service this frame source; here files attach before it exists
    workspace.attachments.use_video_frames(VideoFrameSource())
    blocks = []
    for key in ("chart", "pdf", "wav", "mp4", "zip"):
        result = await workspace.attachments.ingest(files[key])
        assert result.block is not None, result.message
        blocks.append(result.block)
    await (await workspace.runs.send(thread.id, "What do these show?", blocks))
    window = MainWindow(workspace, settings_path=tmp / "window.ini")
    window.resize(1280, 1000)
    window.show()
    await window.start(thread.id, preload=False)
    tray = window.attachments.tray
    task = tray.add([files["photo"], files["notes"]])
    if task is not None:
        await task
    window.composer.edit.setPlainText("Turn these into a one-page summary")
    window.chat.scrollToTop()
    for _ in range(40):  # let the pictures decode and the layout settle
        window.chat.viewport().repaint()
        await asyncio.sleep(0.05)
    window.chat.scrollToBottom()
    await asyncio.sleep(0.3)
    await _play_video(window)
    window.grab().save(str(out))
    await close_window(window)


async def _play_video(window: object) -> None:
    """Play the clip inline for a second and pause it, so its player shows its picture."""
    from app.ui.window import MainWindow

    assert isinstance(window, MainWindow)
    row = window.chat_vm.model.row_of(str(window.chat_vm.model.messages()[0].message_id))
    window.chat.delegate.linkActivated.emit("media:play:4", row or 0)
    for _ in range(100):
        dock = window.attachments.actions.dock
        if dock is not None and dock.player is not None:
            break
        await asyncio.sleep(0.05)
    else:
        return
    await asyncio.sleep(1.2)
    dock.player.player.pause()
    await asyncio.sleep(0.3)


def main(out: Path, theme: str) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync

    from app.ui.app import _application

    app = _application(theme)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as tmp, loop:
        loop.run_until_complete(_shoot(out, Path(tmp)))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "light"))
