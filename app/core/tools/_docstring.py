"""Reads a tool's docstring: its summary and one description per parameter.

Understands Google style (``Args:`` sections), Sphinx style (``:param name: ...``) and NumPy
style (``Parameters`` underlined with dashes).
"""

from __future__ import annotations

import inspect
import re

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns?|Yields?|"
    r"Raises|Examples?|Notes?|Attributes|See Also|Warnings?|Todo|References)\s*:?\s*$"
)
_ARG_SECTIONS = {"Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments"}
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ENTRY = re.compile(r"^\*{0,2}(\w+)\s*(?::.*)?$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*?\s)?\*{0,2}(\w+)\s*:\s*(.*)$")
_SPHINX_FIELD = re.compile(r"^:\w+")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Return ``(summary, {param: description})`` from a docstring."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    entry_indent = -1
    numpy_style = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        header = _SECTION.match(stripped) if _indent(line) == 0 else None
        numpy_rule = i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
        if header and (stripped.endswith(":") or numpy_rule):
            section, current, entry_indent = header.group(1), None, -1
            numpy_style = numpy_rule and not stripped.endswith(":")
            i += 2 if numpy_rule and not stripped.endswith(":") else 1
            continue
        sphinx = _SPHINX_PARAM.match(stripped)
        if sphinx:
            section, current = ":param", sphinx.group(1)
            params[current] = sphinx.group(2).strip()
        elif section == ":param" and stripped and not _SPHINX_FIELD.match(stripped) and current:
            params[current] = f"{params[current]} {stripped}".strip()
        elif _SPHINX_FIELD.match(stripped):
            section, current = ":field", None
        elif section is None:
            summary.append(line)
        elif section in _ARG_SECTIONS and stripped:
            indent = _indent(line)
            if entry_indent < 0 or indent <= entry_indent:
                entry_indent = indent
                google = None if numpy_style else _GOOGLE_ENTRY.match(stripped)
                numpy = _NUMPY_ENTRY.match(stripped) if numpy_style else None
                if google:
                    current = google.group(1)
                    params[current] = google.group(2).strip()
                elif numpy:
                    current = numpy.group(1)
                    params[current] = ""
            elif current:
                params[current] = f"{params[current]} {stripped}".strip()
        i += 1
    return "\n".join(summary).strip(), params
