"""Controls, bidi and invisible characters made visible, each in the form its place needs;
everything else left exactly as it was."""

from __future__ import annotations

import json

from app.text.hidden_chars import escape_hidden, json_escape_hidden, mark_hidden

TEXT = (
    "\x1b[31mred\x1b]52;c;aGk=\x07\r\x08\x00\x7f\x9b\x85 \u202ea\u2066b\u200ec\u061cd "
    "\u200b\ufeff\u2028\U000e0041 \udc80"
)
KEPT = "Tab\tand\nnewline, é, Ελληνικά, العربية, 日本語, 👍🏽, 👨\u200d👩\u200d👧, \u0915\u094d\u200d, 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"  # noqa: E501
"""Letters of several scripts, emoji with skin tone, joiners and a subdivision flag."""


def test_the_terminal_form_is_a_python_escape_for_each_character() -> None:
    assert escape_hidden(TEXT) == (
        r"\x1b[31mred\x1b]52;c;aGk=\x07\r\x08\x00\x7f\x9b\x85 \u202ea\u2066b\u200ec\u061cd "
        r"\u200b\ufeff\u2028\U000e0041 \udc80"
    )


def test_a_sequence_split_over_writes_is_escaped_the_same_and_twice_changes_nothing() -> None:
    pieces = [TEXT[i : i + 3] for i in range(0, len(TEXT), 3)]
    assert "".join(escape_hidden(p) for p in pieces) == escape_hidden(TEXT)
    assert escape_hidden(escape_hidden(TEXT)) == escape_hidden(TEXT)


def test_text_without_hidden_characters_is_left_as_it_is() -> None:
    for form in (escape_hidden, mark_hidden, json_escape_hidden):
        assert form(KEPT) == KEPT


def test_the_window_forms_name_the_code_point_or_keep_the_json_value() -> None:
    assert mark_hidden("a\u202eb\x1bc\U000e0041") == "a⟨U+202E⟩b⟨U+001B⟩c⟨U+E0041⟩"
    dumped = json.dumps({"k\u2067": TEXT}, ensure_ascii=False)
    shown = json_escape_hidden(dumped)
    assert shown == (
        r'{"k\u2067": "\u001b[31mred\u001b]52;c;aGk=\u0007\r\b\u0000\u007f\u009b\u0085 '
        r'\u202ea\u2066b\u200ec\u061cd \u200b\ufeff\u2028\udb40\udc41 \udc80"}'
    )
    assert json.loads(shown) == {"k\u2067": TEXT}
