"""Turns that go in circles: the bundled model asked tool questions through an agent, as a new
user would, and how often its turn ends in a loop, with the tokens and model calls it spends.

Each question runs in a fresh data directory with no folder shared and Parley offline:
``parley agents add`` makes an agent with the question's tools and a limit of
:data:`MAX_MODEL_CALLS` model calls a turn (``parley knowledge add`` gives one of them four
notes), ``parley chat --agent`` asks the question (every approval answered yes, as a new user
would), and ``parley threads export`` hands back the
turn. A turn *went in circles* when the model asked for the same call (same tool, same
arguments) :data:`SAME_CALLS` times or more, or when Parley stopped it for asking again
(:func:`turn_figures` counts both, and names them apart).

Set ``PARLEY_BENCH_BEFORE`` to another copy of Parley's source (e.g. an older commit unpacked
with ``git archive``) to run the same questions on it in the same run, as the peer.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.table import Row

ROOT = Path(__file__).resolve().parents[1]
BEFORE_ENV = "PARLEY_BENCH_BEFORE"
MAX_MODEL_CALLS = 5
"""The agent's limit of model calls a turn, so that a turn in circles still ends."""
SAME_CALLS = 3
"""How often one call may be asked in a turn before the turn counts as going in circles."""
TURN_SECONDS = 600


@dataclass(frozen=True)
class Question:
    """A tool question: its name in the table, what is asked, and the agent's tools."""

    name: str
    prompt: str
    tools: tuple[str, ...]
    instructions: str = "Answer briefly. Use your tools when they help."
    notes: bool = False
    """Whether the agent has a knowledge folder (:data:`NOTES`)."""


NOTES = {
    "pprint.md": "# Pretty printing with pprint\n\n`pprint.pprint(data, width=60)` prints a "
    "nested dictionary or list over several lines, one key per line, indented by depth. "
    "`pprint.pformat(data)` returns the same text as a string.\n",
    "json.md": "# Reading and writing JSON\n\n`json.load(f)` reads a file into dictionaries "
    "and lists; `json.dumps(obj, indent=2)` writes it back as text.\n",
    "csv.md": "# CSV files\n\n`csv.DictReader(f)` reads each row as a dictionary keyed by "
    'the header; `csv.writer(f)` writes rows. Open the file with `newline=""`.\n',
    "pathlib.md": '# Paths\n\n`Path.home() / "notes"` builds a path; `path.read_text()` '
    'reads a whole file and `path.glob("*.md")` lists the Markdown files in a folder.\n',
}
"""The knowledge folder of four short documents a question's agent may have."""


QUESTIONS = (
    Question("time", "What time is it now?", ("current_time", "calculator")),
    Question("arithmetic", "Use the calculator to work out 1234 * 5678.", ("calculator",)),
    Question(
        "a file, no folder shared",
        "Read the file notes.txt and tell me what it says.",
        ("read_file", "list_directory"),
    ),
    Question(
        "a folder's files, no folder shared",
        "List the files in my documents folder, then read each one.",
        ("list_directory", "read_file", "current_time"),
    ),
    Question(
        "the notes, no folder shared",
        "How do I pretty print a nested dictionary?",
        ("read_file",),
        "Answer briefly. Use the notes.",
    ),
    Question(
        "the notes, in a knowledge folder",
        "How do I pretty print a nested dictionary?",
        ("read_file",),
        "Answer briefly. Use the notes.",
        notes=True,
    ),
    Question(
        "a web page, offline",
        "Fetch https://example.com and tell me what the page says.",
        ("fetch_url", "current_time"),
    ),
    Question(
        "asked to repeat a call",
        "Check the time with the clock three times and tell me each answer.",
        ("current_time",),
    ),
    Question(
        "asked to try a failing call again",
        "Read the file test.txt. If that fails, try again until it works.",
        ("read_file",),
    ),
)


@dataclass(frozen=True)
class TurnFigures:
    """What one turn did: its model calls and tokens (as its budget counted them), the most
    times it asked for one call, and whether Parley stopped it for asking again."""

    model_calls: float
    tokens: float
    most_same_calls: int
    stopped_repeating: bool

    @property
    def same_call_loop(self) -> bool:
        """Whether the model asked for one call :data:`SAME_CALLS` times or more."""
        return self.most_same_calls >= SAME_CALLS

    @property
    def in_circles(self) -> bool:
        """Whether the turn went in circles, either way."""
        return self.same_call_loop or self.stopped_repeating


def _call_key(block: Mapping[str, Any]) -> tuple[str, str]:
    """A call as compared: its tool and its arguments as canonical JSON (the raw text when
    they never parsed)."""
    if block.get("partial_args"):
        return str(block.get("name")), str(block["partial_args"])
    args = json.dumps(block.get("args") or {}, sort_keys=True, separators=(",", ":"))
    return str(block.get("name")), args


def turn_figures(exported: Mapping[str, Any]) -> TurnFigures:
    """The figures of the last turn of a thread as ``parley threads export`` writes it (the
    messages after the person's last one; a delegate's own messages left out)."""
    state = exported["state"]
    context: Sequence[Mapping[str, Any]] = state["context"]
    start = 0
    for index, message in enumerate(context):
        marks = message.get("metadata") or {}
        if message["role"] == "user" and "agent" not in marks and "note" not in marks:
            start = index + 1
    counts: dict[tuple[str, str], int] = {}
    stopped = False
    for message in context[start:]:
        marks = message.get("metadata") or {}
        if message["role"] != "assistant" or "agent" in marks:
            continue
        stopped = stopped or marks.get("end_reason") == "repeated_call"
        for block in message.get("content") or []:
            if block.get("type") == "tool_call":
                key = _call_key(block)
                counts[key] = counts.get(key, 0) + 1
    spent = (state.get("execution_meta") or {}).get("spent") or {}
    return TurnFigures(
        model_calls=float(spent.get("model_calls", 0.0)),
        tokens=float(spent.get("tokens", 0.0)),
        most_same_calls=max(counts.values(), default=0),
        stopped_repeating=stopped,
    )


@dataclass(frozen=True)
class Summary:
    """The figures of a set of turns."""

    turns: int
    circles: int
    same_call_loops: int
    stopped: int
    tokens: float
    model_calls: float

    @property
    def circles_share(self) -> float:
        """The share of turns that went in circles, in percent."""
        return 100 * self.circles / self.turns if self.turns else 0.0


def summarize(turns: Sequence[TurnFigures]) -> Summary:
    """Count the turns in circles (each kind apart) and average the tokens and model calls."""
    n = len(turns)
    return Summary(
        turns=n,
        circles=sum(t.in_circles for t in turns),
        same_call_loops=sum(t.same_call_loop for t in turns),
        stopped=sum(t.stopped_repeating for t in turns),
        tokens=sum(t.tokens for t in turns) / n if n else 0.0,
        model_calls=sum(t.model_calls for t in turns) / n if n else 0.0,
    )


def summary_rows(ours: Summary, peer: Summary | None, peer_name: str) -> list[Row]:
    """The table's rows for ``ours``, beside ``peer`` (the same questions on other code)."""
    group = f"tool questions to an agent on the bundled model, {ours.turns} turns"

    def side(value: float) -> dict[str, Any]:
        return {"peer": value, "peer_name": peer_name} if peer is not None else {}

    return [
        Row(group, f"turns in circles (same call asked {SAME_CALLS}+ times: "
            f"{ours.same_call_loops}; stopped for asking again: {ours.stopped})",
            ours.circles_share, "%", **side(peer.circles_share if peer else 0.0),
            target="0%", ok=ours.circles == 0),
        Row(group, "tokens per turn", ours.tokens, "tokens",
            **side(peer.tokens if peer else 0.0)),
        Row(group, "model calls per turn", ours.model_calls, "calls",
            **side(peer.model_calls if peer else 0.0)),
    ]  # fmt: skip


def _parley(
    tree: Path, data_dir: str, *args: str, answers: str = ""
) -> subprocess.CompletedProcess[str]:
    """``parley ARGS`` run from the source in ``tree``, in ``data_dir``, offline."""
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "PARLEY_DATA_DIR": data_dir,
        "PARLEY_OFFLINE": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=tree, input=answers, capture_output=True, text=True, timeout=TURN_SECONDS,
        check=True, env=env,
    )  # fmt: skip


def ask(tree: Path, question: Question) -> dict[str, Any]:
    """Ask ``question`` through an agent in a fresh data directory, with Parley's source in
    ``tree``; return the thread as ``parley threads export`` writes it."""
    with tempfile.TemporaryDirectory() as data_dir:
        tools = [arg for name in question.tools for arg in ("--tool", name)]
        _parley(tree, data_dir, "agents", "add", "Helper",
                "--instructions", question.instructions, *tools,
                "--max-model-calls", str(MAX_MODEL_CALLS))  # fmt: skip
        if question.notes:
            folder = Path(data_dir) / "notes"
            folder.mkdir()
            for name, text in NOTES.items():
                (folder / name).write_text(text, encoding="utf-8")
            _parley(tree, data_dir, "knowledge", "add", str(folder), "--agent", "Helper")
        try:
            chat = _parley(tree, data_dir, "chat", "--agent", "Helper", question.prompt,
                           answers="y\n" * 4 * MAX_MODEL_CALLS)  # fmt: skip
        except subprocess.CalledProcessError as exc:  # a turn that ended in an error
            chat = subprocess.CompletedProcess[str](exc.cmd, exc.returncode, exc.stdout, exc.stderr)
        found = re.search(r"\(thread ([0-9a-f]+)\)", chat.stderr or "")
        if found is None:
            raise RuntimeError(f"no thread for {question.name!r}: {chat.stderr.strip()[-200:]}")
        exported = _parley(tree, data_dir, "threads", "export", found.group(1))
        return dict(json.loads(exported.stdout))


def measure(tree: Path) -> list[TurnFigures]:
    """Every question's turn on the source in ``tree``, each also told on stderr (the table
    gives only the sums)."""
    turns = []
    for question in QUESTIONS:
        turn = turn_figures(ask(tree, question))
        circles = " STOPPED for asking again" if turn.stopped_repeating else ""
        sys.stderr.write(
            f"[tool loops, {tree.name}] {question.name}: {turn.model_calls:.0f} model calls, "
            f"{turn.tokens:.0f} tokens, one call asked {turn.most_same_calls}x{circles}\n"
        )
        turns.append(turn)
    return turns


def run() -> list[Row]:
    """Measure and return the rows (beside ``PARLEY_BENCH_BEFORE``'s, when it names a tree)."""
    ours = summarize(measure(ROOT))
    before = os.environ.get(BEFORE_ENV)
    if not before:
        return summary_rows(ours, None, "")
    peer = summarize(measure(Path(before)))
    return summary_rows(ours, peer, f"{Path(before).name}, before")


if __name__ == "__main__":
    from bench.table import render

    t = time.perf_counter()
    print(render(run()))
    print(f"({time.perf_counter() - t:.1f} s)")
