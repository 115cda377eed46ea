"""A streamed reply's Markdown, rendered block by block, is exactly the whole text rendered at
once, at every point of the stream, however the text is cut into chunks."""

from __future__ import annotations

import random

import pytest

from app.ui.chat.markdown import render_markdown
from app.ui.chat.markdown_stream import GROWTH, MarkdownStream

REPLIES = {
    "everything": (
        "# Title\n\nSome **bold**, `code` and [a link](https://example.org/a).\n\n"
        "- one\n- two\n  - nested\n  - more\n    1. deep\n- three\n\n1. first\n2. second\n\n"
        "```python\ndef f(x):\n    return x * 2\n```\n\nHere is a table:\n| a | b |\n"
        "|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nAfter\n===\n\n## Sub\nText right under it.\n\n"
        "> quoted\nlazy line\n\n---\n\n    indented code\n\n* loose\n\n* list\n\n"
        "~~struck~~ and _emphasis_\n\n```\nplain <b>\n```\n```js\nlet a = 1\n```\nend"
    ),
    "open fence": "Intro with **bold**.\n\n```python\nx = 1\n\ny = 2\n# still code\n",
    "second fence still open": "```\nclosed\n```\n\nThen:\n\n```bash\necho open\n",
    "interruptions": "para\n#\n#foo\npara\n|a|b|\n|-|-x\n\n- a\n\n- b\n\nc\r\nd\re\n> q\n- x",
    "tables": "| h | i |\n|---|:-:|\n| `a` | [l](https://x.org) |\n\ntext\n| x |\n|---|\n| y |",
    "references": "Text [x] here\n\n[x]: https://example.org\n\nmore [x] and [y]\n\n[y]: /y",
    "math": (
        "Inline $x^2$ and \\(a+b\\), prices $5 and $10.\n\n$$\nx = \\frac{1}{2}\n$$\n"
        "Text right after\n\\[\ny = 2\n\\]\n\nA list:\n- $a$\n- $$b$$ more\n\n"
        "`$not$` and\n```\n$$code$$\n```\nend $$z$$"
    ),
    "math closed over later blocks": (
        "Start\n$$\nx\n# heading\n- item\n$$\n\nafter\n\\[\ny\n> q\n| a |\n|---|\n\\] done\n"
    ),
}


@pytest.mark.parametrize("name", sorted(REPLIES))
@pytest.mark.parametrize("dark", [False, True])
def test_every_step_of_a_stream_renders_as_the_whole_text_does(name: str, dark: bool) -> None:
    text = REPLIES[name]
    rng = random.Random(f"{name}-{dark}")
    for _ in range(40):
        stream = MarkdownStream(dark=dark)
        end = 0
        while end < len(text):
            end = min(len(text), end + rng.randint(1, 15))
            got = stream.render(text[:end])
            want_html, want_codes = render_markdown(text[:end], dark=dark)
            assert got.html == want_html, f"differs after {text[:end]!r}"
            assert got.codes == want_codes


def test_a_finished_paragraph_is_not_parsed_again() -> None:
    stream = MarkdownStream(dark=False)
    text = "".join(f"Paragraph {i} with **bold** and `code`.\n\n" for i in range(200))
    stream.render(text + "The last")
    stream.render(text + "The last one is still")
    assert stream.open_tail == "The last one is still"
    stream.render(text + "The last one is still growing")
    assert stream.open_tail == "The last one is still growing"


def test_a_text_that_is_not_a_continuation_starts_again() -> None:
    stream = MarkdownStream(dark=False)
    stream.render("First paragraph.\n\nSecond paragraph.\n\nThird")
    rendered = stream.render("Something else entirely.\n\n- a list")
    assert rendered.html == render_markdown("Something else entirely.\n\n- a list")[0]


def _long_reply(paragraphs: int) -> str:
    return "".join(
        f"## Part {i}\n\nParagraph {i} with **bold**, `code({i})` and "
        f"[a link](https://example.org/{i}).\n\n```\nline {i}\n```\n\n"
        for i in range(paragraphs)
    )


def test_text_that_outruns_one_render_is_shown_a_part_at_a_time_until_all_of_it_is() -> None:
    text = _long_reply(120)
    assert len(text) > 10 * GROWTH
    stream = MarkdownStream(dark=False)
    assert not stream.render(text[:50]).behind
    shown = [stream.render(text)]
    while shown[-1].behind:
        shown.append(stream.render(text))
    # each render took in one more part and drew it as the whole text up to there is drawn
    for step, rendered in enumerate(shown[:-1], start=1):
        assert rendered.html == render_markdown(text[: 50 + step * GROWTH])[0]
    assert len(shown) == -(-(len(text) - 50) // GROWTH)
    assert shown[-1].html == render_markdown(text)[0]
    assert stream.render(text + "More.").html == render_markdown(text + "More.")[0]


def test_a_text_first_seen_whole_is_rendered_whole() -> None:
    text = _long_reply(120)
    rendered = MarkdownStream(dark=True).render(text)
    assert not rendered.behind
    assert rendered.html == render_markdown(text, dark=True)[0]
