from __future__ import annotations

import pytest

from app.core.plain_line import plain_line


@pytest.mark.parametrize(
    ("line", "plain"),
    [
        ("Take the ferry to **Bygdøy**: the Fram", "Take the ferry to Bygdøy: the Fram"),
        ("The *Munch* museum and __its__ café", "The Munch museum and its café"),
        ("Run `make test` after ~~not~~ before", "Run make test after not before"),
        ("## Plan for [the trip](https://example.org)", "Plan for the trip"),
        ("- first item", "first item"),
        ("> quoted and **bold**", "quoted and bold"),
        ("call read_file on my_notes.md", "call read_file on my_notes.md"),
        ("2*3 = 6 and 4 * 5 = 20", "2*3 = 6 and 4 * 5 = 20"),
        ("", ""),
    ],
)
def test_a_line_reads_without_its_marks(line: str, plain: str) -> None:
    assert plain_line(line) == plain
