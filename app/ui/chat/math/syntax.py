r"""Math in Markdown: ``$…$`` and ``\(…\)`` inline, ``$$…$$`` and ``\[…\]`` displayed.

mdit-py-plugins finds it (its ``dollarmath`` rules for dollars, its ``texmath`` rule makers
for brackets), so code spans and code blocks are never looked into. Dollars follow Pandoc's
rule, which keeps prices text: an opening ``$`` is not followed by a space, a closing one is
not preceded by a space nor followed by a digit (``$5 and $10`` is text). A display formula
may begin on a line inside a paragraph, as models write them, but never spans a blank line
(so a streamed reply's finished paragraphs cannot turn into math later).

Each formula becomes ``<img src="math:OPENER/SOURCE">`` (the source percent-encoded), which
the message's document typesets (:mod:`app.ui.chat.math.typeset`); the source is in the
address, so the document can always give it back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

if TYPE_CHECKING:  # the parser and its plugins load with the first message rendered
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.token import Token

__all__ = ["CLOSERS", "MathSource", "inline_tag", "math_url", "parse_math_url", "use_math"]

CLOSERS = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}
"""Each opening delimiter and its closing one."""

_NAMES = {"$": "d", "$$": "dd", "\\(": "p", "\\[": "b"}
_OPENERS = {name: opener for opener, name in _NAMES.items()}
BlockRule = Callable[["StateBlock", int, int, bool], bool]

_ALT = ["paragraph", "reference", "blockquote", "list"]
"""The blocks a display formula may interrupt (as a code fence may)."""


@dataclass(frozen=True)
class MathSource:
    """One formula as written: its LaTeX (``tex``, between the delimiters) and ``opener``."""

    tex: str
    opener: str

    @property
    def display(self) -> bool:
        """Whether it is displayed (``$$`` or ``\\[``) rather than set in the line."""
        return self.opener in ("$$", "\\[")

    @property
    def written(self) -> str:
        """The formula as written, with its delimiters (what copying it gives)."""
        return f"{self.opener}{self.tex}{CLOSERS[self.opener]}"


def math_url(source: MathSource) -> str:
    """The image address a formula is drawn from (its source in it, percent-encoded)."""
    return f"math:{_NAMES[source.opener]}/{quote(source.tex, safe='')}"


def parse_math_url(url: str) -> MathSource | None:
    """The formula of an address :func:`math_url` made, or ``None`` for any other."""
    if not url.startswith("math:"):
        return None
    name, _, tex = url[5:].partition("/")
    opener = _OPENERS.get(name)
    return None if opener is None else MathSource(unquote(tex), opener)


def inline_tag(source: MathSource) -> str:
    """The ``<img>`` a formula is drawn as, set in the middle of the line around it."""
    return f'<img src="{math_url(source)}" style="vertical-align: middle;" />'


def _inline(opener: str) -> Any:
    def render(_r: Any, tokens: Sequence[Token], idx: int, _o: Any, _env: Any) -> str:
        return inline_tag(MathSource(tokens[idx].content, opener))

    return render


def _block(opener: str) -> Any:
    def render(_r: Any, tokens: Sequence[Token], idx: int, _o: Any, _env: Any) -> str:
        tag = inline_tag(MathSource(tokens[idx].content, opener))
        return f'<p align="center" style="margin-top: 6px; margin-bottom: 10px;">{tag}</p>\n'

    return render


def _block_rule(rule: BlockRule) -> BlockRule:
    """``rule``, leaving no token behind when it is only asked whether a block begins here
    (as a paragraph asks, to know whether it ends; the plugin's rules push one anyway), and
    giving its token the lines it spans (which the bracket rule leaves out)."""

    def asked(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        count, line = len(state.tokens), state.line
        if not silent:
            found = rule(state, start, end, False)
            if found and len(state.tokens) > count and state.tokens[-1].map is None:
                state.tokens[-1].map = [start, state.line]
            return found
        found = rule(state, start, end, False)
        del state.tokens[count:]
        state.line = line
        return found

    return asked


def use_math(md: MarkdownIt) -> None:
    """Teach ``md`` to find math and render it as ``math:`` images."""
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.dollarmath.index import math_block_dollar
    from mdit_py_plugins.texmath.index import make_block_func, make_inline_func

    dollarmath_plugin(
        md,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        allow_blank_lines=False,
        double_inline=True,
    )
    md.block.ruler.at(
        "math_block", _block_rule(math_block_dollar(False, None, False)), {"alt": _ALT}
    )
    md.inline.ruler.before(
        "escape",
        "math_inline_paren",
        make_inline_func(
            {
                "name": "math_inline_paren",
                "rex": re.compile(r"^\\\((.+?)\\\)", re.DOTALL),
                "tmpl": "",
                "tag": "\\(",
            }
        ),
    )
    md.inline.ruler.before(
        "escape",
        "math_inline_bracket",
        make_inline_func(
            {
                "name": "math_inline_bracket",
                "rex": re.compile(r"^\\\[(.+?)\\\]", re.DOTALL),
                "tmpl": "",
                "tag": "\\[",
            }
        ),
    )
    md.block.ruler.before(
        "fence",
        "math_block_bracket",
        _block_rule(
            make_block_func(
                {
                    "name": "math_block_bracket",
                    # no blank line inside (LaTeX allows none in a formula either)
                    "rex": re.compile(r"^\\\[((?:(?!\n[ \t]*\n)[\s\S])+?)\\\][ \t]*(?=\n|$)"),
                    "tmpl": "",
                    "tag": "\\[",
                }
            )
        ),
        {"alt": _ALT},
    )
    md.add_render_rule("math_inline", _inline("$"))
    md.add_render_rule("math_inline_double", _inline("$$"))
    md.add_render_rule("math_inline_paren", _inline("\\("))
    md.add_render_rule("math_inline_bracket", _inline("\\["))
    md.add_render_rule("math_block", _block("$$"))
    md.add_render_rule("math_block_bracket", _block("\\["))
