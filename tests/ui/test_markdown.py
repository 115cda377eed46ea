"""Markdown and messages as rich text: what a reader sees, and nothing the model wrote is
ever interpreted as markup."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from app.core.state import ErrorBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock
from app.ui.chat.markdown import render_markdown
from app.ui.chat.message_html import message_html


def test_headings_lists_tables_links_and_inline_code() -> None:
    html, codes = render_markdown(
        "# Title\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "[site](https://example.org) and `x = 1`"
    )
    assert "<h1>Title</h1>" in html
    assert "<li>one</li>" in html
    assert "<table" in html and "<td>1</td>" in html
    assert '<a href="https://example.org">site</a>' in html
    assert ">x = 1</code>" in html
    assert codes == []


def test_code_blocks_are_highlighted_and_copyable_exactly() -> None:
    source = "def f(x):\n    return x * 2\n"
    html, codes = render_markdown(f"Look:\n\n```python\n{source}```\n\n```\nplain <b>\n```")
    assert codes == [source, "plain <b>\n"]
    assert 'href="copy:0"' in html and 'href="copy:1"' in html
    assert "<span style=" in html  # Pygments coloured the Python block
    assert "plain &lt;b&gt;" in html


def test_raw_html_from_the_model_is_shown_as_text() -> None:
    html, _ = render_markdown('<img src="x" onerror="alert(1)"> <script>bad()</script>')
    assert "<img" not in html and "<script" not in html
    assert "&lt;script&gt;" in html


def test_a_message_numbers_copy_links_across_its_text_blocks() -> None:
    message = Message(
        role="assistant",
        content=[TextBlock(text="```\na\n```"), TextBlock(text="```\nb\n```")],
    )
    rendered = message_html(message, dark=False)
    assert rendered.code_blocks == ["a\n", "b\n"]
    assert 'href="copy:1"' in rendered.html


def test_tool_cards_fold_and_show_how_the_call_ended(qapp: QApplication) -> None:
    # qapp: a card's icon comes from the icon font, loaded into the running application
    call = ToolCallBlock(id="c1", name="get_weather", args={"city": "Oslo"})
    message = Message(role="assistant", content=[call])
    folded = message_html(message, dark=False)
    assert "get_weather" in folded.html and "city=&quot;Oslo&quot;" in folded.html
    assert folded.code_blocks == []
    assert "waiting" in folded.html and "<pre" not in folded.html
    done = ToolResultBlock(call_id="c1", output={"temp": 4})
    key = f"{message.message_id}:0"
    unfolded = message_html(message, dark=True, expanded=frozenset({key}), results={"c1": done})
    assert "done" in unfolded.html
    assert "Arguments" in unfolded.html and "&quot;city&quot;: &quot;Oslo&quot;" in unfolded.html
    assert "Output" in unfolded.html and "&quot;temp&quot;: 4" in unfolded.html
    lines = "\n".join(f"line {n}" for n in range(12))
    long = message_html(
        message, dark=False, results={"c1": ToolResultBlock(call_id="c1", output=lines)}
    )
    assert "done · 12 lines" in long.html and "line 11" not in long.html  # folded: a count
    failed = ToolResultBlock(call_id="c1", output="no such city", status="error")
    assert "failed · no such city" in message_html(message, dark=False, results={"c1": failed}).html


def test_an_error_offers_its_remedies() -> None:
    message = Message(
        role="assistant",
        content=[
            ErrorBlock(error="OpenAI refused the request (HTTP 401).", code="auth:openai/api-key")
        ],
    )
    html = message_html(message, dark=False).html
    assert "OpenAI refused the request (HTTP 401)." in html
    assert 'href="remedy:set_key:openai/api-key"' in html
    assert 'href="remedy:retry:"' in html
