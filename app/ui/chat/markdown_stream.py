"""``MarkdownStream``: a growing Markdown text rendered at a cost that does not grow with it.

A streamed reply only ever grows at its end, and in Markdown a top-level block (a paragraph,
a list, a code fence, a table) can no longer change once the next block has begun on a
finished line (a heading, a rule, a fence, or a paragraph a blank line ended, as soon as the
next block begins; a table needs its delimiter line finished too). So the blocks before that
point are parsed and rendered once; each update parses only the open tail and renders it
again. The HTML is exactly that of
:func:`~app.ui.chat.markdown.render_markdown` over the whole text.

A link reference definition (``[label]: url``) can change blocks before it, so a text that has
one is rendered whole each time.

However fast the text grows, one render takes in at most :data:`GROWTH` characters more than
the last one did, so an update's cost is bounded: a text that outran it is rendered up to there
and marked ``behind``, and the next render goes on from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.ui.chat.markdown import CodeBlocks, markdown_parser, style_inline_code

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["GROWTH", "MarkdownStream", "RenderedMarkdown", "top_level_blocks"]

GROWTH = 300
"""The most text one render takes in beyond what the last one showed (about 9,000 characters a
second at the chat's 33 ms updates, far above what any model writes)."""


@dataclass
class RenderedMarkdown:
    """A text's HTML, its code blocks, and where its HTML may be cut into parts laid out
    apart: before a top-level paragraph that follows one (so no margin changes), as
    ``(offset, always)``; ``always`` marks the cut before the open tail. ``behind``: the text
    was longer than what was rendered (see :data:`GROWTH`)."""

    html: str
    codes: CodeBlocks
    breaks: list[tuple[int, bool]] = field(default_factory=list)
    behind: bool = False


def top_level_blocks(tokens: list[Token]) -> list[tuple[int, list[Token]]]:
    """Split parsed ``tokens`` into their top-level blocks: (first source line, tokens)."""
    blocks: list[tuple[int, list[Token]]] = []
    i = 0
    while i < len(tokens):
        first = tokens[i]
        j = i
        if first.nesting == 1:
            j += 1
            while not (tokens[j].level == first.level and tokens[j].nesting == -1):
                j += 1
        line = first.map[0] if first.map else 0
        blocks.append((line, tokens[i : j + 1]))
        i = j + 1
    return blocks


def _normalised(text: str) -> str:
    # what the parser does to its input first, so that line numbers match the text here
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\0", "\ufffd") if "\0" in text else text


class MarkdownStream:
    """One growing text's rendering; :meth:`render` it again each time it grows."""

    __slots__ = (
        "_breaks",
        "_codes",
        "_dark",
        "_done",
        "_done_html",
        "_done_len",
        "_shown",
        "_tail",
        "_whole",
    )

    def __init__(self, *, dark: bool) -> None:
        self._dark = dark
        self._done = ""
        """The source of the finished blocks (ends where the open tail begins)."""
        self._done_html: list[str] = []
        self._done_len = 0
        self._breaks: list[tuple[int, bool]] = []
        self._codes: CodeBlocks = []
        self._whole = False
        self._tail = ""
        self._shown = 0
        """How much of the text the last render showed (none: render it all)."""

    @property
    def open_tail(self) -> str:
        """The text that the last :meth:`render` still had to parse (the blocks not finished)."""
        return self._tail

    def _reset(self) -> None:
        self._done, self._done_html, self._codes = "", [], []
        self._done_len, self._breaks, self._shown = 0, [], 0

    def _add_done(self, html: str) -> None:
        if _follows_paragraph(self._done_html, html):
            self._breaks.append((self._done_len, False))
        self._done_html.append(html)
        self._done_len += len(html)

    def render(self, text: str) -> RenderedMarkdown:
        """Return ``text`` as HTML, as ``render_markdown`` would, with its code blocks; if it
        grew by more than :data:`GROWTH` since the last render, only its first part, ``behind``."""
        text = _normalised(text)
        if not text.startswith(self._done):
            self._reset()
        behind = bool(self._shown) and len(text) > self._shown + GROWTH
        if behind:
            text = text[: self._shown + GROWTH]
        self._shown = len(text)
        rendered = self._render(text)
        rendered.behind = behind
        return rendered

    def _render(self, text: str) -> RenderedMarkdown:
        md = markdown_parser(self._dark)
        if self._whole:
            return self._render_all(text)
        tail = self._tail = text[len(self._done) :]
        env: dict[str, Any] = {"blocks": list(self._codes)}
        tokens = md.parse(tail, env)
        if env.get("references"):
            self._whole = True
            return self._render_all(text)
        blocks = top_level_blocks(tokens)
        finished_lines = tail.count("\n")
        keep = 0
        while keep + 1 < len(blocks) and _closed(
            blocks[keep], blocks[keep + 1], finished_lines, tail
        ):
            keep += 1
        if keep:
            done_env: dict[str, Any] = {"blocks": self._codes}
            for _line, block in blocks[:keep]:
                html = md.renderer.render(block, md.options, done_env)
                self._add_done(style_inline_code(html, self._dark))
            self._done += _first_lines(tail, blocks[keep][0])
        open_env: dict[str, Any] = {"blocks": list(self._codes)}
        rest = [token for _line, block in blocks[keep:] for token in block]
        open_html = style_inline_code(md.renderer.render(rest, md.options, open_env), self._dark)
        breaks = list(self._breaks)
        if _follows_paragraph(self._done_html, open_html):
            breaks.append((self._done_len, True))
        return RenderedMarkdown("".join(self._done_html) + open_html, open_env["blocks"], breaks)

    def _render_all(self, text: str) -> RenderedMarkdown:
        self._reset()
        self._shown = len(text)
        self._tail = text
        md = markdown_parser(self._dark)
        env: dict[str, Any] = {"blocks": []}
        html = md.render(text, env)
        return RenderedMarkdown(style_inline_code(html, self._dark), env["blocks"])


def _closed(
    block: tuple[int, list[Token]], after: tuple[int, list[Token]], finished_lines: int, text: str
) -> bool:
    """Whether ``block`` can no longer change, now that ``after`` follows it (``text`` is
    the source they were parsed from)."""
    kind = block[1][0].type
    if kind in ("heading_open", "hr", "fence", "math_block", "math_block_bracket"):
        return True  # ended by its own line, which the next block shows is finished
    ended = (block[1][0].map or [0, 0])[1] < after[0]  # by a blank line
    if kind == "paragraph_open" and ended:
        return True
    if not ended and _opens_math(text, block[0], after[0]):
        return False  # a display formula begun there may yet close, over the next blocks
    # otherwise the next block's first line must be finished, and for a table (which may
    # yet turn back into text) its delimiter line too, for a display formula (which may yet
    # turn back into text, if its closing line goes on) all its lines
    first = after[1][0]
    needed = 2 if first.type == "table_open" else 1
    if first.type in ("math_block", "math_block_bracket") and first.map:
        needed = first.map[1] - first.map[0]
    return after[0] + needed <= finished_lines


def _opens_math(text: str, first: int, end: int) -> bool:
    """Whether lines ``first`` to ``end`` of ``text`` leave a display formula open (a
    ``$$`` or ``\\[`` not closed there, which a later line could still close)."""
    lines = "\n".join(text.split("\n", end)[first:end])
    return lines.count("$$") % 2 == 1 or lines.count("\\[") > lines.count("\\]")


def _follows_paragraph(done: list[str], html: str) -> bool:
    return bool(done) and done[-1].endswith("</p>\n") and html.startswith("<p>")


def _first_lines(text: str, count: int) -> str:
    """The first ``count`` lines of ``text``, each with its line break."""
    end = -1
    for _ in range(count):
        end = text.index("\n", end + 1)
    return text[: end + 1]
