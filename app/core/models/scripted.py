"""``ScriptedChatModel``: a deterministic model that replays a script, for tests and demos.

A script is a list of turns; each turn is the model's next reply::

    [
      {"text": "Let me look.", "tool_calls": [{"name": "get_weather", "args": {"city": "Oslo"}}]},
      {"text": "It is sunny in Oslo.", "usage": {"prompt_tokens": 12, "completion_tokens": 6}},
      {"error": "the server went away"}
    ]

A turn may also hold ``reasoning``, ``id``, ``metadata`` and ``pace`` (seconds between its
chunks, in place of the model's ``delay``). Replies stream in chunks of ``chunk_size``
characters, with tool-call arguments streamed as JSON fragments.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.core.errors import ModelError, UserError
from app.core.models.protocol import GenerationConfig, ModelInfo, ToolSpec
from app.core.models.streaming import CollectingChatModel
from app.core.state.message import Message, TokenUsages, new_message_id
from app.core.state.message_block import ContentBlock, ReasoningBlock, TextBlock, ToolCallBlock

__all__ = ["ScriptedCall", "ScriptedChatModel", "ScriptedTurn"]


class ScriptedCall(BaseModel):
    """One tool call in a scripted reply."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str
    args: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = None


class ScriptedTurn(BaseModel):
    """One scripted reply."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    text: str = ""
    reasoning: str | None = None
    tool_calls: list[ScriptedCall] = Field(default_factory=list)
    usage: TokenUsages | None = None
    error: str | None = None
    id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    pace: float | None = Field(default=None, ge=0, le=60)
    """Seconds between this reply's chunks (the model's ``delay`` when not given)."""


_MAX_DEPTH = 100
"""How deeply a turn's values may nest (metadata, tool arguments)."""


def _kind(value: Any) -> str:
    names = {bool: "true or false", int: "a number", float: "a number", str: "a string"}
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return names.get(type(value), type(value).__name__)


def _problem(value: Any, depth: int = 0) -> str | None:
    """Why ``value`` cannot be part of a reply (too deep, or text that is not text), if so."""
    if depth > _MAX_DEPTH:
        return f"it nests more than {_MAX_DEPTH} levels deep"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "it holds a lone surrogate escape (like \\ud800), which is not text"
        return None
    items: list[Any] = []
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list | tuple):
        items = list(value)
    for item in items:
        found = _problem(item, depth + 1)
        if found:
            return found
    return None


def _read_turn(value: Any, number: int | None, where: str) -> ScriptedTurn:
    """Validate one scripted turn; raises :class:`UserError` with one sentence if it is bad."""
    what = f"turn {number} of {where}" if number is not None else where
    if isinstance(value, str):
        value = {"text": value}
    if not isinstance(value, dict):
        raise UserError(
            f'{what} must be an object like {{"text": "Hello"}} or a string, not {_kind(value)}'
        )
    problem = _problem(value)
    if problem:
        raise UserError(f"{what} cannot be used: {problem}")
    try:
        return ScriptedTurn.model_validate(value)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in err["loc"])
        if err["type"] == "extra_forbidden":
            fields = ", ".join(ScriptedTurn.model_fields)
            reason = f"{loc!r} is not a field of a turn (the fields are: {fields})"
            if len(err["loc"]) > 1:
                parent = ".".join(str(p) for p in err["loc"][:-1])
                reason = f"{parent}: {err['loc'][-1]!r} is not a known field"
        else:
            reason = f"{loc}: {err['msg'][:1].lower()}{err['msg'][1:]}"
        raise UserError(f"{what} is not a valid reply: {reason}") from None


class ScriptedChatModel(CollectingChatModel):
    """Replays scripted turns in order; raises a clear error when the script runs out.

    ``script`` may also be a function of the conversation returning the next turn, which lets a
    test answer based on what the model was sent. Every call's messages, tools and settings are
    kept in ``calls``, ``tools_seen`` and ``configs_seen``.
    """

    def __init__(
        self,
        script: Sequence[ScriptedTurn | dict[str, Any] | str]
        | Callable[[Sequence[Message]], ScriptedTurn | dict[str, Any] | str],
        *,
        chunk_size: int = 4,
        delay: float = 0.0,
        info: ModelInfo | None = None,
    ) -> None:
        self._fn = script if callable(script) else None
        self._turns = [] if callable(script) else [self._turn(t) for t in script]
        self._next = 0
        self.chunk_size = max(1, chunk_size)
        self.delay = delay
        self.calls: list[list[Message]] = []
        self.tools_seen: list[list[ToolSpec]] = []
        self.configs_seen: list[GenerationConfig | None] = []
        self.info = info or ModelInfo(spec="scripted", name="scripted", provider="scripted")

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: Any) -> ScriptedChatModel:
        """Load a script from a JSON file (a list of turns); a file that is not one is a
        :class:`UserError` saying what is wrong with it and where."""
        where = f"the model script {path}"
        try:
            text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UserError(f"{where} is not UTF-8 text") from None
        except OSError as exc:
            raise UserError(f"cannot read {where}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
        except RecursionError:
            raise UserError(f"{where} is nested too deeply to read") from None
        except ValueError as exc:
            raise UserError(f"{where} is not valid JSON: {exc}") from None
        if not isinstance(data, list):
            raise UserError(f"{where} must hold a JSON list of turns, not {_kind(data)}")
        return cls([_read_turn(turn, n, where) for n, turn in enumerate(data, 1)], **kwargs)

    @staticmethod
    def _turn(value: ScriptedTurn | dict[str, Any] | str) -> ScriptedTurn:
        if isinstance(value, ScriptedTurn):
            return value
        return _read_turn(value, None, "the scripted model's reply")

    @property
    def remaining(self) -> int:
        """How many scripted turns have not been played yet."""
        return len(self._turns) - self._next

    def _take(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None,
        config: GenerationConfig | None,
    ) -> ScriptedTurn:
        self.calls.append(list(messages))
        self.tools_seen.append(list(tools or []))
        self.configs_seen.append(config)
        if self._fn is not None:
            return self._turn(self._fn(messages))
        if self._next >= len(self._turns):
            raise ModelError(
                f"the scripted model has no reply left (it had {len(self._turns)} turns)"
            )
        turn = self._turns[self._next]
        self._next += 1
        return turn

    def _chunks(self, turn: ScriptedTurn) -> Iterator[Message]:
        """The turn's chunks, each built when it is wanted (a long reply is not built, nor
        validated, all at once before its first chunk)."""
        mid = turn.id or new_message_id()
        n = self.chunk_size
        if turn.reasoning:
            r = turn.reasoning
            for i in range(0, len(r), n):
                yield self._chunk(mid, [ReasoningBlock(text=r[i : i + n])])
        for i in range(0, len(turn.text), n):
            yield self._chunk(mid, [TextBlock(text=turn.text[i : i + n])])
        for k, call in enumerate(turn.tool_calls):
            raw = call.args if isinstance(call.args, str) else json.dumps(call.args)
            cid = call.id or f"call_{mid[:8]}_{k}"
            head = ToolCallBlock(id=cid, name=call.name, index=k, partial_args=raw[:n] or None)
            yield self._chunk(mid, [head])
            for i in range(n, len(raw), n):
                part = ToolCallBlock(id=cid, name="", index=k, partial_args=raw[i : i + n])
                yield self._chunk(mid, [part])
        yield Message(
            message_id=mid,
            role="assistant",
            content=[],
            delta=True,
            usages=turn.usage,
            metadata={
                **turn.metadata,
                "finish_reason": "tool_calls" if turn.tool_calls else "stop",
            },
        )

    @staticmethod
    def _chunk(mid: str, content: list[ContentBlock]) -> Message:
        return Message(message_id=mid, role="assistant", content=content, delta=True)

    async def astream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        config: GenerationConfig | None = None,
    ) -> AsyncIterator[Message]:
        """Yield the next scripted reply in ``delta=True`` chunks."""
        turn = self._take(messages, tools, config)
        if turn.error:
            raise ModelError(turn.error)
        pace = self.delay if turn.pace is None else turn.pace
        for chunk in self._chunks(turn):
            await asyncio.sleep(pace)
            yield chunk
