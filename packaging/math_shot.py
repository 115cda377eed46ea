"""Render the README's math screenshots: an answer with inline and display formulas, in light
and dark, through ``parley --screenshot`` on a data directory seeded with a scripted model.

Run: ``.venv/bin/python packaging/math_shot.py [OUT_DIR]`` (default resources/screenshots);
``packaging/screenshots.py`` runs it too.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
from _shots import screenshot  # noqa: E402

QUESTION = "How do I solve a quadratic equation?"

ANSWER = r"""An equation $ax^2 + bx + c = 0$ with $a \neq 0$ has the roots

$$
x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}
$$

The discriminant \(\Delta = b^2 - 4ac\) tells you how many there are: two when
$\Delta > 0$, one when $\Delta = 0$, none among the reals when $\Delta < 0$.
For $x^2 - 5x + 6 = 0$:

\[
x = \frac{5 \pm \sqrt{25 - 24}}{2} = \frac{5 \pm 1}{2}, \quad x_1 = 3,\ x_2 = 2
\]

The roots also satisfy $x_1 + x_2 = -\tfrac{b}{a}$ and $x_1 x_2 = \tfrac{c}{a}$
(a 1-litre jug at $5 and a pack at $10 stay prices)."""

SCRIPT = [{"text": ANSWER, "usage": {"prompt_tokens": 38, "completion_tokens": 164}}]


async def _seed(data_dir: Path, script: Path) -> str:
    from app.services.workspace import Workspace

    spec = f"scripted:{script}"
    ws = await Workspace.open(data_dir)
    ws.settings.use(ws.settings.current.model_copy(update={"default_model": spec}))
    thread = await ws.threads.create(title="Quadratic equations", model=spec)
    await (await ws.runs.send(thread.id, QUESTION))
    await ws.aclose()
    return thread.id


def main(out_dir: Path) -> list[Path]:
    """Write ``math-light.png`` and ``math-dark.png`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        script = Path(tmp) / "script.json"
        script.write_text(json.dumps(SCRIPT))
        thread_id = asyncio.run(_seed(data, script))
        for theme in ("light", "dark"):
            target = screenshot(data, out_dir / f"math-{theme}.png", theme, thread_id)
            written.append(target)
    return written


if __name__ == "__main__":
    for path in main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources/screenshots"):
        print(path)
