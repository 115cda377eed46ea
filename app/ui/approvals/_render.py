"""What the approval dialog shows, as text: arguments as highlighted JSON, a preview as a
highlighted diff, one-line summaries, and edited arguments checked against the tool."""

from __future__ import annotations

import html
import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from app.core.tools import Tool
from app.text.hidden_chars import json_escape_hidden

if TYPE_CHECKING:  # Pygments loads with the first approval shown
    from pygments.formatters import HtmlFormatter

__all__ = ["check_args", "code_html", "one_line", "pretty_json", "wraps"]


@lru_cache(maxsize=4)
def _formatter(style: str) -> HtmlFormatter[str]:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style=style, noclasses=True, nowrap=True)


def pretty_json(args: Any) -> str:
    """``args`` as indented JSON with sorted keys, exactly as the tool will receive them;
    bidi controls and other invisible characters are written as ``\\u`` escapes, so they
    show (the JSON means the same)."""
    return json_escape_hidden(json.dumps(args, indent=2, ensure_ascii=False, sort_keys=True))


WRAP_LIMIT = 5_000
"""Longer text is shown unwrapped (with a horizontal scroll bar): Qt takes seconds to wrap a
100 KB line, and a tenth of a second to lay it out unwrapped."""


def wraps(text: str) -> bool:
    """Whether ``text`` is short enough to be shown wrapped."""
    return len(text) <= WRAP_LIMIT


def code_html(text: str, kind: str, *, dark: bool) -> str:
    """``text`` (``kind``: ``json`` or ``diff``) as highlighted HTML in a preformatted block."""
    from pygments import highlight
    from pygments.lexers import DiffLexer, JsonLexer

    lexer = JsonLexer() if kind == "json" else DiffLexer()
    body = highlight(text, lexer, _formatter("monokai" if dark else "friendly")).rstrip("\n")
    wrap = "pre-wrap" if wraps(text) else "pre"
    return f'<pre style="margin:0; white-space:{wrap}">{body}</pre>'


def one_line(args: Any, width: int = 80) -> str:
    """The arguments on one line (``key=value, ...``), cut to ``width`` characters."""
    if isinstance(args, dict):
        parts = [f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items()]
        line = ", ".join(parts) or "(no arguments)"
    else:
        line = json.dumps(args, ensure_ascii=False)
    line = json_escape_hidden(" ".join(line.split()))
    return line if len(line) <= width else line[: width - 1] + "…"


def _where(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "the arguments"


def check_args(tool: Tool[..., Any] | None, text: str) -> tuple[dict[str, Any] | None, str]:
    """Read edited arguments: ``(args, "")`` when ``tool`` accepts them, else ``(None, why)``
    with one sentence saying what is wrong, checked by the same model the tool's JSON schema
    is made from (so what passes here is what the tool will accept)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"This is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})."
    if not isinstance(value, dict):
        return None, 'The arguments must be a JSON object, like {"name": "value"}.'
    if tool is None:
        return None, "This tool is no longer offered, so its arguments cannot be checked."
    try:
        tool.args_model.model_validate(value)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        more = (
            f" ({len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
            if len(errors) > 1
            else ""
        )
        if first["type"] == "missing":
            return None, f'"{_where(first["loc"])}" is required but missing{more}.'
        if first["type"] == "extra_forbidden":
            return None, f'"{_where(first["loc"])}" is not an argument of {tool.name}{more}.'
        return None, f'"{_where(first["loc"])}": {first["msg"]}{more}.'
    return value, ""


def escape(text: str) -> str:
    """``text`` safe to put in rich text."""
    return html.escape(text, quote=False)
