"""Render the README's first picture (``main-light.png``, ``main-dark.png``) from a real
conversation on the bundled model: a question it answers from what it knows, then one it
answers with a tool call (the clock), its card and the answer after it.

The bundled model decodes greedily, but what the clock says changes from one try to the next,
and so may the answer: each question about the time is asked in a thread of its own, up to
:data:`ATTEMPTS` times, and the first answer that states what the tool gave (its date or its
time, and no other date or time of day: see :func:`states_tool_output`) is drawn. When none
does, nothing is written: what the model said is printed and the script exits with 1
(``--any`` draws the last try whatever it said). The thread switches on the clock as a
person would in the composer's tools menu.

The picture is drawn in both themes at 1x (``main-light.png``) and at 2x
(``main-light@2x.png``, with ``QT_SCALE_FACTOR=2``), as ``screenshots.py`` draws the others.

Run: ``.venv/bin/python packaging/bundled_shot.py [OUT_DIR] [--any]`` (default
resources/screenshots). It takes a minute or a few: every answer is decoded on this
computer's CPU.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.services.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from _shots import screenshot  # noqa: E402

FIRST = "What is the capital of France?"
"""Answered from what the model knows, no tool (none is switched on yet)."""

FIRST_ANSWER = "Paris"
"""What the answer to :data:`FIRST` must name."""

QUESTIONS = ("What is the date and time now?", "What time is it?", "What's today's date?")
"""Each answered with the clock (``current_time``), tried in turn (the first is the one the
bundled model answered right most often)."""

ATTEMPTS = 6
"""How many threads are tried before giving up."""

SIDEBAR = ("Trip to Oslo: packing list", "Fix the CSV import", "Ticket T-42")
"""Threads in the sidebar besides the one drawn."""

_OFFSET = re.compile(r"(?:UTC\s*)?[+\-\u2212]\s*\d{2}:\d{2}\b")
"""A UTC offset (``+01:00``, ``UTC + 00:00``): not a time of day."""
_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])")
_DATE = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")


def states_tool_output(answer: str, output: str) -> bool:
    """Whether ``answer`` says what the clock's ``output`` (ISO 8601, to the second) says:
    its date or its time of day, and no other date or time (a time's seconds, when given, must
    be the clock's too; a UTC offset is not a time of day)."""
    date, hour_minute, second = output[:10], output[11:16], output[17:19]
    plain = _OFFSET.sub(" ", answer)
    times = _TIME.findall(plain)
    right_times = all(f"{int(h):02d}:{m}" == hour_minute and s in ("", second) for h, m, s in times)
    dates = set(_DATE.findall(plain))
    return bool(times or dates) and right_times and dates <= {date}


async def _converse(data: Path, question: str) -> tuple[str, str, str, str]:
    """Ask :data:`FIRST`, then switch the clock on and ask ``question``, in a new thread of
    the bundled model; give the thread's id, the first answer, the clock's output and the
    last answer (``""`` for any that is missing)."""
    from app.core.state import ToolResultBlock
    from app.services.workspace import Workspace

    ws = await Workspace.open(data)
    try:
        ws.settings.use(ws.settings.current.model_copy(update={"default_model": "local"}))
        thread = await ws.threads.create(model="local")
        await (await ws.runs.send(thread.id, FIRST))
        first = await _last_answer(ws, thread.id)
        await ws.tools.set_enabled(thread.id, ["current_time"])  # the composer's tools menu
        await (await ws.runs.send(thread.id, question))
        state = await ws.threads.saved_state(thread.id)
        said = state.context if state is not None else []
        clock = [str(b.output) for m in said for b in m.content if isinstance(b, ToolResultBlock)]
        answer = await _last_answer(ws, thread.id)
        return thread.id, first, clock[-1] if clock else "", answer
    finally:
        await ws.aclose()


async def _last_answer(ws: Workspace, thread_id: str) -> str:
    """The text of the thread's last message when it is an answer (else ``""``)."""
    state = await ws.threads.saved_state(thread_id)
    said = state.context if state is not None else []
    return said[-1].text() if said and said[-1].role == "assistant" else ""


async def _seed(data: Path, forget: str | None = None) -> None:
    """Add the sidebar's other threads (or delete the thread ``forget``, a try not drawn)."""
    from app.services.workspace import Workspace

    ws = await Workspace.open(data)
    try:
        if forget is not None:
            await ws.threads.delete(forget)
            return
        for title in SIDEBAR:
            await ws.threads.create(title=title, model="local")
    finally:
        await ws.aclose()


def main(out_dir: Path, keep_any: bool) -> int:
    """Converse until an answer states the tool's output, then draw it into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        asyncio.run(_seed(data))
        chosen = None
        for attempt in range(ATTEMPTS):
            question = QUESTIONS[attempt % len(QUESTIONS)]
            thread_id, first, output, answer = asyncio.run(_converse(data, question))
            right = FIRST_ANSWER in first and bool(output) and states_tool_output(answer, output)
            print(f"{FIRST!r}: the model said {first!r}")
            print(f"{question!r}: the clock said {output!r}; the model said {answer!r}")
            if right or (keep_any and attempt == ATTEMPTS - 1):
                chosen = thread_id
                break
            asyncio.run(_seed(data, forget=thread_id))
        if chosen is None:
            print(
                f"In {ATTEMPTS} tries no thread named {FIRST_ANSWER} and stated what the clock"
                " said: nothing drawn.",
                file=sys.stderr,
            )
            return 1
        for scale in (1, 2):
            _draw(data, chosen, out_dir, scale)
    return 0


def _draw(data: Path, thread_id: str, out_dir: Path, scale: int) -> None:
    """Draw the thread in both themes at ``scale`` (``NAME.png``, or ``NAME@2x.png``)."""
    suffix = "" if scale == 1 else f"@{scale}x"
    if scale != 1:
        os.environ["QT_SCALE_FACTOR"] = str(scale)  # the window below is drawn at it
    try:
        for theme in ("light", "dark"):
            print(screenshot(data, out_dir / f"main-{theme}{suffix}.png", theme, thread_id))
    finally:
        os.environ.pop("QT_SCALE_FACTOR", None)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    given = [a for a in sys.argv[1:] if a != "--any"]
    out = Path(given[0]) if given else ROOT / "resources/screenshots"
    raise SystemExit(main(out, "--any" in sys.argv))
