"""Markdown to the HTML subset ``QTextDocument`` draws, with highlighted code blocks.

markdown-it-py parses (CommonMark plus tables and strikethrough; raw HTML is shown as text,
never interpreted); Pygments colours code with inline styles. Each code block gets a
``copy:N`` link whose N indexes the list of code texts returned beside the HTML.

A message's text links only to web pages and mail addresses (``http``, ``https``,
``mailto``): a link or picture with any other address (a path, ``file:``, the window's own
``remedy:``, ``source:``, ``copy:``, ``toggle:``, ``media:``, ``thumb:``, ``math:``) is shown
as the text it was written as, so text can neither act as Parley's own controls nor load a
file from this computer into the window. Formulas are the only pictures the text makes
(:mod:`app.ui.chat.math.syntax`).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from app.ui.chat.links import CopyCode, href_of
from app.ui.chat.math.syntax import use_math
from app.ui.theme import DARK, LIGHT

if TYPE_CHECKING:  # markdown-it-py and Pygments load with the first message rendered
    from markdown_it import MarkdownIt
    from pygments.formatters import HtmlFormatter

__all__ = [
    "WARM_UP_SAMPLE",
    "CodeBlocks",
    "code_background",
    "markdown_parser",
    "render_markdown",
    "style_inline_code",
    "warm_up",
    "web_only",
]

CodeBlocks = list[str]

_LIGHT = {"code_bg": LIGHT.code, "code_border": LIGHT.code_border, "muted": LIGHT.muted}
_LIGHT["style"] = "friendly"
_DARK = {"code_bg": DARK.code, "code_border": DARK.code_border, "muted": DARK.muted}
_DARK["style"] = "monokai"


@lru_cache(maxsize=4)
def _formatter(style: str) -> HtmlFormatter[str]:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style=style, noclasses=True, nowrap=True)


_WEB = re.compile(r"(?:https?|mailto):", re.IGNORECASE)


def web_only(url: str) -> bool:
    """Whether a link or picture in a message's text may keep its (normalised) address."""
    return _WEB.match(url.strip()) is not None


def _code_html(code: str, lang: str, dark: bool) -> str:
    from pygments import highlight
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    colours = _DARK if dark else _LIGHT
    try:
        lexer = get_lexer_by_name(lang) if lang else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        body = html.escape(code)
    else:
        body = highlight(code, lexer, _formatter(colours["style"]))
    return body.rstrip("\n")


@lru_cache(maxsize=2)
def markdown_parser(dark: bool) -> MarkdownIt:
    """The parser and renderer for one theme (code blocks land in ``env["blocks"]``)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True})
    md.enable(["table", "strikethrough"])
    md.validateLink = web_only  # type: ignore[method-assign]
    use_math(md)
    colours = _DARK if dark else _LIGHT

    def fence(_renderer: Any, tokens: list[Any], idx: int, _options: Any, env: Any) -> str:
        token = tokens[idx]
        blocks: CodeBlocks = env["blocks"]
        lang = (token.info or "").strip().split(" ")[0]
        code = token.content
        blocks.append(code)
        n = len(blocks) - 1
        label = html.escape(lang or "text")
        return (
            f'<table width="100%" border="0" cellspacing="0" cellpadding="8" '
            f'bgcolor="{colours["code_bg"]}" style="margin-top: 6px; margin-bottom: 8px;">'
            f'<tr><td><span style="color:{colours["muted"]}; font-size: small;">{label}</span>'
            f'</td><td align="right"><a href="{href_of(CopyCode(n))}" '
            'style="font-size: small;">Copy code</a>'
            f"</td></tr>"
            f'<tr><td colspan="2"><pre style="margin: 0;">{_code_html(code, lang, dark)}</pre>'
            f"</td></tr></table>"
        )

    def table_open(_renderer: Any, _tokens: list[Any], _idx: int, _o: Any, _env: Any) -> str:
        return (
            f'<table border="1" cellspacing="0" cellpadding="5" '
            f'style="border-color: {colours["code_border"]}; border-style: solid; '
            f'margin-top: 4px; margin-bottom: 8px;">'
        )

    md.add_render_rule("table_open", table_open)

    md.add_render_rule("fence", fence)
    md.add_render_rule("code_block", fence)
    return md


def code_background(dark: bool) -> str:
    """The background colour of code in the theme."""
    return (_DARK if dark else _LIGHT)["code_bg"]


def style_inline_code(rendered: str, dark: bool) -> str:
    """Give the inline code spans of rendered HTML their background."""
    colours = _DARK if dark else _LIGHT
    return rendered.replace("<code>", f'<code style="background-color:{colours["code_bg"]};">')


def render_markdown(text: str, *, dark: bool = False) -> tuple[str, CodeBlocks]:
    """Return ``text`` as HTML for ``QTextDocument`` and the texts of its code blocks."""
    blocks: CodeBlocks = []
    rendered = markdown_parser(dark).render(text, {"blocks": blocks})
    return style_inline_code(rendered, dark), blocks


WARM_UP_SAMPLE = (
    "".join(
        f"**Bold** `code` [link](https://example.org)\n\n- item\n\n```{lang}\nx = 1\n```\n\n"
        for lang in ("python", "bash", "javascript", "typescript", "json", "rust", "c", "cpp", "")
    )
    + "Math: $x^2$\n\n$$\\frac{1}{2}$$\n"
)
"""Markdown that loads the parser, the code lexers replies use most and the math rules."""


def warm_up() -> None:
    """Load the parser, both themes and the common code lexers (their first use imports
    them), so the first reply does not pause the window for it; safe off the GUI thread."""
    for dark in (False, True):
        render_markdown(WARM_UP_SAMPLE, dark=dark)
