"""Removes resolved secret values, in every common encoding, from anything a tool call
produces."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from app.core.tools._secret_forms import (
    anchors,
    base64_cores,
    decoded_runs_holding,
    run_around,
    secret_pattern,
)


class Redactor:
    """Replaces each known secret value with ``[redacted secret REF]``.

    Besides the value itself it finds the forms that encoders give it (see
    :mod:`app.core.tools._secret_forms`): URL encodings, JSON escapes, ``repr``, hex and base64,
    the last also inside a longer encoded text such as a ``user:secret`` basic-auth header, in
    which case the whole base64 run is replaced.
    """

    __slots__ = ("_cores", "_patterns", "_raw", "_secrets")

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}
        self._patterns: list[tuple[re.Pattern[str], tuple[str, ...], str]] = []
        self._cores: dict[str, str] = {}
        self._raw: list[tuple[bytes, str]] = []

    def add(self, ref: str, value: str) -> None:
        """Remember that ``value`` is the secret named ``ref``."""
        if not value or value in self._secrets:
            return
        self._secrets[value] = ref
        self._patterns.append((secret_pattern(value), anchors(value), ref))
        # longest first, so a secret containing another is replaced whole
        self._patterns.sort(key=lambda item: len(item[0].pattern), reverse=True)
        for core in base64_cores(value):
            self._cores.setdefault(core, ref)
        self._raw.append((value.encode("utf-8", "surrogatepass"), ref))

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, text: str) -> str:
        """Return ``text`` with every form of every secret value replaced."""
        if not self._secrets:
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
        """Return ``value`` with secrets replaced in every string it holds."""
        if not self._secrets:
            return value
        return self._walk(value)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self._walk(k): self._walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self._walk(v) for v in value)
        if isinstance(value, BaseModel):
            dumped = value.model_dump()
            cleaned = self._walk(dumped)
            return value if cleaned == dumped else type(value).model_validate(cleaned)
        return value
