"""What a reply sounds like read aloud."""

from __future__ import annotations

from app.services.voice.reading import readable, sentences


def test_code_and_formulas_are_announced_and_links_read_as_their_text() -> None:
    reply = (
        "Here is the **fix**, see [the docs](https://example.org/docs).\n\n"
        "```python\nprint('hello')\n```\n\n"
        "The area is $\\pi r^2$ and\n\n$$E = mc^2$$\n\n"
        "- Run `make test`\n- Read https://example.org/x"
    )
    assert readable(reply) == (
        "Here is the fix, see the docs. A code block. The area is a formula and. "
        "A formula. Run make test. Read a link."
    )


def test_sentences_split_after_their_end() -> None:
    assert sentences("It is ready. Open it now! Does it work? Yes.") == [
        "It is ready.",
        "Open it now!",
        "Does it work?",
        "Yes.",
    ]
