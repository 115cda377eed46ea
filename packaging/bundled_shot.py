"""Render the README's first picture (``main-light.png``, ``main-dark.png``) from a real
conversation on the bundled model: a question it answers from what it knows, then one it
answers with a tool call (the clock), its card and the answer after it.

The bundled model decodes greedily, but what the clock says changes from one try to the next,
and so may the answer: each question about the time is asked in a thread of its own, up to
:data:`ATTEMPTS` times, and the first answer that states what the tool gave (its date, and no
time of day but the tool's) is drawn. When none does, nothing is written: what the model said
is printed and the script exits with 1 (``--any`` draws the last try whatever it said).

Run: ``.venv/bin/python packaging/bundled_shot.py [OUT_DIR] [--any]`` (default
resources/screenshots). It takes a minute or a few: every answer is decoded on this
computer's CPU.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from _shots import screenshot  # noqa: E402

FIRST = "What is the capital of France?"
"""Answered from what the model knows, no tool."""

QUESTIONS = ("What's today's date?", "What time is it now?", "Tell me the current date and time.")
"""Each answered with the clock (``current_time``), tried in turn."""

ATTEMPTS = 6
"""How many threads are tried before giving up."""

SIDEBAR = ("Trip to Oslo: packing list", "Fix the CSV import", "Ticket T-42")
"""Threads in the sidebar besides the one drawn."""

_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")


def states_tool_output(answer: str, output: str) -> bool:
    """Whether ``answer`` says what the clock's ``output`` (ISO 8601) says: its date or its
    time of day, and no other time of day."""
    date, hour_minute = output[:10], output[11:16]
    times = {f"{int(h):02d}:{m}" for h, m in _TIME.findall(answer)}
    return (date in answer or hour_minute in times) and times <= {hour_minute}


async def _converse(data: Path, question: str) -> tuple[str, str, str]:
    """Ask :data:`FIRST` and then ``question`` in a new thread of the bundled model; give the
    thread's id, the clock's output and the last answer (``""`` for either when missing)."""
    from app.core.state import ToolResultBlock
    from app.services.workspace import Workspace
    from app.tools.builtin import current_time
    from app.tools.calculator import calculator

    ws = await Workspace.open(data, tools=[current_time, calculator])
    try:
        ws.settings.use(ws.settings.current.model_copy(update={"default_model": "local"}))
        thread = await ws.threads.create(model="local")
        for asked in (FIRST, question):
            await (await ws.runs.send(thread.id, asked))
        state = await ws.threads.saved_state(thread.id)
        said = state.context if state is not None else []
        clock = [str(b.output) for m in said for b in m.content if isinstance(b, ToolResultBlock)]
        answer = said[-1].text() if said and said[-1].role == "assistant" else ""
        return thread.id, clock[-1] if clock else "", answer
    finally:
        await ws.aclose()


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
            thread_id, output, answer = asyncio.run(_converse(data, question))
            right = bool(output) and states_tool_output(answer, output)
            print(f"{question!r}: the clock said {output!r}; the model said {answer!r}")
            if right or (keep_any and attempt == ATTEMPTS - 1):
                chosen = thread_id
                break
            asyncio.run(_seed(data, forget=thread_id))
        if chosen is None:
            print(
                f"In {ATTEMPTS} tries no answer stated what the clock said: nothing drawn.",
                file=sys.stderr,
            )
            return 1
        for theme in ("light", "dark"):
            print(screenshot(data, out_dir / f"main-{theme}.png", theme, chosen))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    given = [a for a in sys.argv[1:] if a != "--any"]
    out = Path(given[0]) if given else ROOT / "resources/screenshots"
    raise SystemExit(main(out, "--any" in sys.argv))
