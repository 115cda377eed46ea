"""Structured output: parse a reply into the ``response_format`` model, or say why not."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_structured(text: str, schema: type[BaseModel]) -> tuple[BaseModel | None, str]:
    """Return ``(value, "")`` when ``text`` is valid JSON for ``schema``, else
    ``(None, problem)`` with a sentence the model can act on."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    if not body:
        return None, "The reply was empty; reply with one JSON object."
    try:
        data: Any = json.loads(body)
    except json.JSONDecodeError as exc:
        return None, f"The reply is not valid JSON ({exc.msg} at position {exc.pos})."
    try:
        return schema.model_validate(data), ""
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
            for e in exc.errors(include_url=False)[:5]
        )
        return None, f"The JSON does not match the schema: {problems}."


def repair_prompt(problem: str, schema: type[BaseModel]) -> str:
    """The message sent back to the model after an invalid structured reply."""
    return (
        f"{problem} Reply again with only a JSON object matching this schema, no prose:\n"
        f"{json.dumps(schema.model_json_schema())}"
    )
