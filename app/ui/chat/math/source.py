"""A message document's text as it was written: each typeset formula read back as its LaTeX
source with its delimiters, so what is copied or read aloud is never an object replacement
character (U+FFFC) standing for an image."""

from __future__ import annotations

from PySide6.QtGui import QTextCursor, QTextDocument

from app.ui.chat.math.syntax import parse_math_url

__all__ = ["source_text"]

_OBJECT = "\ufffc"
_LINES = str.maketrans({"\u2029": "\n", "\u2028": "\n"})


def source_text(doc: QTextDocument, cursor: QTextCursor | None = None) -> str:
    """The text of ``doc`` (of ``cursor``'s selection, when given), with its formulas as
    their source and other images left out."""
    start, end = 0, doc.characterCount() - 1
    if cursor is not None and cursor.hasSelection():
        start, end = cursor.selectionStart(), cursor.selectionEnd()
    elif cursor is not None:
        return ""
    lines: list[str] = []
    block = doc.findBlock(start)
    while block.isValid() and block.position() < end:
        line: list[str] = []
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            low = max(start, fragment.position())
            high = min(end, fragment.position() + fragment.length())
            if low < high:
                text = fragment.text()[low - fragment.position() : high - fragment.position()]
                fmt = fragment.charFormat()
                source = None
                if fmt.isImageFormat():
                    source = parse_math_url(fmt.toImageFormat().name())
                if source is not None:
                    line.append(source.written * text.count(_OBJECT))
                else:
                    line.append(text.replace(_OBJECT, ""))
            it += 1
        lines.append("".join(line).translate(_LINES))
        block = block.next()
    return "\n".join(lines)
