"""The public evaluation set for local models (``public_set.json``) and how a reply is scored.

A question passes when the reply holds one of its accepted answers as a whole word (case
ignored) and none of its rejected ones. A tool prompt is scored three ways: the decision (a call
when one is expected, plain text when not), the call's validity (the arguments parse and match the
tool's schema), and the whole call (the right tool with the expected arguments).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.models.protocol import ToolSpec
from app.core.state.message_block import ToolCallBlock

SET_PATH = Path(__file__).with_name("public_set.json")


@dataclass(frozen=True)
class Question:
    """A short question and the answers that count as right."""

    id: str
    prompt: str
    accept: tuple[str, ...]
    reject: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolPrompt:
    """A request and the call it should produce (``tool`` None: no call at all)."""

    id: str
    prompt: str
    tool: str | None
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AfterTool(Question):
    """A request already answered by a tool: the model must state the tool's output."""

    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    output: str = ""


@dataclass(frozen=True)
class EvalSet:
    """The whole public set."""

    questions: tuple[Question, ...]
    tool_prompts: tuple[ToolPrompt, ...]
    extra_tools: tuple[ToolSpec, ...]
    after_tool: tuple[AfterTool, ...] = ()


def load_set(path: Path = SET_PATH) -> EvalSet:
    """Read the evaluation set from ``path``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return EvalSet(
        questions=tuple(
            Question(q["id"], q["prompt"], tuple(q["accept"]), tuple(q.get("reject", ())))
            for q in data["questions"]
        ),
        tool_prompts=tuple(
            ToolPrompt(t["id"], t["prompt"], t["tool"], dict(t.get("args", {})))
            for t in data["tool_prompts"]
        ),
        extra_tools=tuple(ToolSpec(**t) for t in data["extra_tools"]),
        after_tool=tuple(
            AfterTool(
                a["id"], a["prompt"], tuple(a["accept"]), (), a["tool"], a["args"], a["output"]
            )
            for a in data.get("after_tool", [])
        ),
    )


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def answer_ok(question: Question, reply: str) -> bool:
    """Whether ``reply`` answers ``question`` right."""
    if any(_has_word(reply, r) for r in question.reject):
        return False
    return any(_has_word(reply, a) for a in question.accept)


def _norm(value: Any) -> str:
    text = str(value).strip().strip("'\"").strip()
    return text[2:] if text.startswith("./") else text


def _arg_ok(expected: Any, got: Any) -> bool:
    if isinstance(expected, dict) and "contains" in expected:
        return isinstance(got, str) and expected["contains"].lower() in got.lower()
    return _norm(expected).lower() == _norm(got).lower()


def call_valid(call: ToolCallBlock, tools: Sequence[ToolSpec]) -> bool:
    """Whether ``call`` names an offered tool and its arguments parsed with every required one."""
    spec = next((t for t in tools if t.name == call.name), None)
    if spec is None or call.partial_args is not None or not isinstance(call.args, dict):
        return False
    required = spec.parameters.get("required", [])
    return all(k in call.args for k in required)


@dataclass(frozen=True)
class ToolScore:
    """How one reply to a tool prompt did."""

    decided_right: bool
    called: bool
    valid: bool
    correct: bool


def score_tool_reply(
    prompt: ToolPrompt, calls: Sequence[ToolCallBlock], tools: Sequence[ToolSpec]
) -> ToolScore:
    """Score the calls a model made for ``prompt`` (an empty list: it answered in text)."""
    called = bool(calls)
    if prompt.tool is None:
        return ToolScore(not called, called, called and call_valid(calls[0], tools), not called)
    if not called:
        return ToolScore(False, False, False, False)
    first = calls[0]
    valid = call_valid(first, tools)
    right_tool = first.name == prompt.tool
    args = first.args if isinstance(first.args, dict) else {}
    correct = (
        valid
        and right_tool
        and all(k in args and _arg_ok(v, args[k]) for k, v in prompt.args.items())
    )
    return ToolScore(right_tool, True, valid, correct)


@dataclass
class Tally:
    """Running totals over a set of replies."""

    questions: int = 0
    answered: int = 0
    tool_prompts: int = 0
    decided_right: int = 0
    calls: int = 0
    valid_calls: int = 0
    correct_calls: int = 0
    failures: list[str] = field(default_factory=list)

    def add_answer(self, question: Question, reply: str) -> None:
        """Count one reply to a question."""
        self.questions += 1
        if answer_ok(question, reply):
            self.answered += 1
        else:
            self.failures.append(f"{question.id}: {reply[:80]!r}")

    def add_tool(self, score: ToolScore, prompt_id: str = "") -> None:
        """Count one reply to a tool prompt."""
        self.tool_prompts += 1
        self.decided_right += score.decided_right
        self.calls += score.called
        self.valid_calls += score.valid
        self.correct_calls += score.correct
        if not score.correct:
            self.failures.append(f"{prompt_id}: {score}")

    @staticmethod
    def _pct(part: int, whole: int) -> float:
        return 100.0 * part / whole if whole else 0.0

    @property
    def answer_rate(self) -> float:
        """Percent of questions answered right."""
        return self._pct(self.answered, self.questions)

    @property
    def decision_rate(self) -> float:
        """Percent of tool prompts where the model chose right (the right tool, or none)."""
        return self._pct(self.decided_right, self.tool_prompts)

    @property
    def valid_rate(self) -> float:
        """Percent of the calls made that were valid."""
        return self._pct(self.valid_calls, self.calls)

    @property
    def correct_rate(self) -> float:
        """Percent of tool prompts with the whole expected outcome."""
        return self._pct(self.correct_calls, self.tool_prompts)
