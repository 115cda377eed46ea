"""Removes resolved secret values from anything a tool call produces."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

_ESCAPED = re.compile(r'["\\\x00-\x1f]')


class Redactor:
    """Replaces each known secret value with ``[redacted secret REF]``."""

    __slots__ = ("_secrets",)

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}

    def add(self, ref: str, value: str) -> None:
        """Remember that ``value`` is the secret named ``ref``."""
        if value:
            self._secrets[value] = ref

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, text: str) -> str:
        """Return ``text`` with every secret value replaced."""
        # longest first, so a secret containing another is replaced whole
        for value in sorted(self._secrets, key=len, reverse=True):
            if value in text:
                text = text.replace(value, f"[redacted secret {self._secrets[value]}]")
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
            if self._json_safe and not self._in_json(value):
                return value
            dumped = value.model_dump()
            cleaned = self._walk(dumped)
            return value if cleaned == dumped else type(value).model_validate(cleaned)
        return value

    @property
    def _json_safe(self) -> bool:
        # a secret JSON would escape cannot be found in a model's JSON by substring search
        return not any(_ESCAPED.search(s) for s in self._secrets)

    def _in_json(self, value: BaseModel) -> bool:
        dumped = value.__pydantic_serializer__.to_json(value, fallback=str).decode(errors="replace")
        return any(s in dumped for s in self._secrets)
