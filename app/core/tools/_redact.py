"""Removes resolved secret values, in every common encoding, from anything a tool call
produces."""

from __future__ import annotations

import functools
import math
import re
from dataclasses import is_dataclass
from typing import Any, NamedTuple

from pydantic import BaseModel

from app.core.tools._secret_forms import (
    anchors,
    base64_cores,
    decoded_runs_holding,
    run_around,
    secret_pattern,
)


class UnredactableSecret(Exception):
    """A model shows a secret that no change of its fields removes (a computed field or a
    serializer writes it from elsewhere): it cannot be kept in any form that is safe."""

    def __init__(self, model: str) -> None:
        self.reason = (
            f"its result was not kept: a {model} in it shows a secret through a computed field "
            "or serializer, which Parley cannot remove"
        )
        super().__init__(self.reason)


_LEAVES = frozenset({int, float, bool, type(None)})
"""Kinds of value that hold no text."""


def _writes_its_own(schema: Any) -> bool:
    """Whether a core schema (or a part) has a serializer or a computed field anywhere."""
    if isinstance(schema, dict):
        if schema.get("serialization") or schema.get("computed_fields"):
            return True
        return any(_writes_its_own(part) for part in schema.values())
    if isinstance(schema, list):
        return any(_writes_its_own(part) for part in schema)
    return False


@functools.cache
def _dumps_its_fields(cls: type[BaseModel]) -> bool:
    """Whether ``model_dump`` of a ``cls`` holds the same strings as its fields' values (no
    serializer or computed field in it or in a model it holds writes others), so a search
    for secrets can read the fields instead of a dump."""
    return not _writes_its_own(cls.__pydantic_core_schema__)


class _Forms(NamedTuple):
    """What finding one secret value takes."""

    pattern: re.Pattern[str]
    anchors: tuple[str, ...]
    cores: tuple[str, ...]
    raw: bytes
    shortest: int
    """The length of the shortest text that can hold any form of the value."""
    hint: re.Pattern[str] | None
    """Found in every text that holds a form of the value (``None``: no such cheap test)."""


@functools.lru_cache(maxsize=32)
def _forms(value: str) -> _Forms:
    """Build what finding ``value`` takes, once per value: a node that resolves the same
    secret on every call would otherwise compile its pattern each time."""
    raw = value.encode("utf-8", "surrogatepass")
    cores = tuple(sorted(base64_cores(value)))
    needed = anchors(value)
    # a base64 run long enough to hold it is decoded and searched (decoded_runs_holding)
    run = (len(raw) * 4 + 2) // 3 if len(raw) >= 4 else None
    shortest = min(
        len(value),  # every form writes each character of value as one character or more
        min((len(core) for core in cores), default=len(value)),
        len(value) if run is None else run,
    )
    hint = None
    if needed:  # else the pattern itself is the only test
        pieces = [re.escape(piece) for piece in (*needed, *cores)]
        if run is not None:
            pieces.append(f"[A-Za-z0-9+/_-]{{{run}}}")
        hint = re.compile("|".join(pieces))
    return _Forms(secret_pattern(value), needed, cores, raw, shortest, hint)


class Redactor:
    """Replaces each known secret value with ``[redacted secret REF]``.

    Besides the value itself it finds the forms that encoders give it (see
    :mod:`app.core.tools._secret_forms`): URL encodings, JSON escapes, ``repr``, hex and base64,
    the last also inside a longer encoded text such as a ``user:secret`` basic-auth header, in
    which case the whole base64 run is replaced.
    """

    __slots__ = ("_cores", "_hints", "_patterns", "_raw", "_secrets", "_shortest")

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}
        self._shortest: float = math.inf
        """No text shorter than this can hold any form of any secret (so it is left as is)."""
        self._patterns: list[tuple[re.Pattern[str], tuple[str, ...], str]] = []
        self._cores: dict[str, str] = {}
        self._raw: list[tuple[bytes, str]] = []
        self._hints: list[re.Pattern[str]] | None = []
        """One of these is in every text that holds a form of a secret (``None``: a secret
        has no such test, so every text long enough is searched)."""

    def add(self, ref: str, value: str) -> None:
        """Remember that ``value`` is the secret named ``ref``."""
        if not value or value in self._secrets:
            return
        self._secrets[value] = ref
        forms = _forms(value)
        self._patterns.append((forms.pattern, forms.anchors, ref))
        # longest first, so a secret containing another is replaced whole
        self._patterns.sort(key=lambda item: len(item[0].pattern), reverse=True)
        for core in forms.cores:
            self._cores.setdefault(core, ref)
        self._raw.append((forms.raw, ref))
        self._shortest = min(self._shortest, forms.shortest)
        if self._hints is not None:
            self._hints = None if forms.hint is None else [*self._hints, forms.hint]

    def __bool__(self) -> bool:
        return bool(self._secrets)

    @property
    def known(self) -> int:
        """How many secret values it knows; it only grows, so a value redacted when this was
        the same needs no second pass."""
        return len(self._secrets)

    def text(self, text: str) -> str:
        """Return ``text`` with every form of every secret value replaced."""
        if len(text) < self._shortest:  # also when no secret is known
            return text
        if self._hints is not None and not any(hint.search(text) for hint in self._hints):
            return text
        text = self._base64_runs(text)
        for pattern, needed, ref in self._patterns:
            if needed and not any(piece in text for piece in needed):
                continue
            text = pattern.sub(f"[redacted secret {ref}]".replace("\\", "\\\\"), text)
        return text

    def _base64_runs(self, text: str) -> str:
        """Replace whole base64 runs that encode a secret, at any offset."""
        spans: list[tuple[int, int, str]] = []
        for core, ref in self._cores.items():
            start = text.find(core)
            while start != -1:
                begin, end = run_around(text, start, start + len(core))
                spans.append((begin, end, ref))
                start = text.find(core, end)
        spans += decoded_runs_holding(text, self._raw)
        if not spans:
            return text
        merged: list[tuple[int, int, str]] = []
        for begin, end, ref in sorted(spans):
            if merged and begin <= merged[-1][1]:
                last = merged[-1]
                merged[-1] = (last[0], max(last[1], end), last[2])
            else:
                merged.append((begin, end, ref))
        for begin, end, ref in reversed(merged):
            text = f"{text[:begin]}[redacted secret {ref}]{text[end:]}"
        return text

    def value(self, value: Any) -> Any:
        """Return ``value`` with secrets replaced in every string it holds (``value`` itself
        when it holds none). Raises :class:`UnredactableSecret` for a model that would show a
        secret however its fields were changed."""
        if not self._secrets or not self._holds_secret(value):
            return value
        return self._walk(value)

    def _holds_secret(self, value: Any) -> bool:
        """Whether a string in ``value`` holds a secret: the walk below, without building
        anything, since nearly every value a tool call produces holds none."""
        shortest = self._shortest
        stack = [value]
        while stack:
            item = stack.pop()
            kind = type(item)
            if kind in _LEAVES:  # the common kinds first: isinstance of a model is slow
                continue
            if isinstance(item, str):
                if len(item) >= shortest and self.text(item) != item:
                    return True
            elif isinstance(item, dict):
                stack.extend(item)
                stack.extend(item.values())
            elif isinstance(item, list | tuple):
                stack.extend(item)
            elif isinstance(item, BaseModel):
                if _dumps_its_fields(type(item)):
                    stack.extend(item.__dict__.values())
                    if item.__pydantic_extra__:
                        stack.extend(item.__pydantic_extra__.items())
                else:
                    stack.append(item.model_dump())
            elif is_dataclass(item):  # model_dump would have made it a dict: walk it
                return True
        return False

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            cleaned = self.text(value)
            return value if cleaned == value else cleaned
        if isinstance(value, dict):
            out = {}
            changed = False
            for key, item in value.items():
                new_key, new_item = self._walk(key), self._walk(item)
                changed = changed or new_key is not key or new_item is not item
                out[new_key] = new_item
            return out if changed else value
        if isinstance(value, list | tuple):
            items = [self._walk(v) for v in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return type(value)(items)
        if isinstance(value, BaseModel):
            dumped = value.model_dump()
            cleaned = self._walk(dumped)
            if cleaned is dumped:
                return value
            rebuilt = type(value).model_validate(cleaned)
            if not _dumps_its_fields(type(value)) and self._holds_secret(rebuilt):
                # a computed field or serializer writes the secret again from what the
                # redacted fields cannot change; the redacted dump would become the model
                # again wherever a state's field is of its type
                raise UnredactableSecret(type(value).__qualname__)
            return rebuilt
        return value
