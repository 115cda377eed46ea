"""A web page's text read as Markdown for a knowledge folder: headings kept, links as words,
no images, scripts or styles, its declared encoding honoured, and hostile pages read safely
or refused with the reason."""

from __future__ import annotations

import pytest

from app.knowledge import document_passages
from app.media.errors import IngestError
from app.media.ingest import IngestLimits, document_text

PAGE = b"""<!DOCTYPE html>
<html><head><title>Garden notes</title>
<style>p { color: red }</style>
<script>document.write("<h2>Injected</h2>"); var secret = "tracking-id";</script>
<link rel="stylesheet" href="https://example.invalid/site.css">
</head><body>
<nav><a href="/">Home</a></nav>
<h1>Garden notes</h1>
<p>Some words about the garden.</p>
<h2>Tomatoes</h2>
<p>Water the <a href="https://example.invalid/tomatoes">tomato plants</a> at dawn.</p>
<img src="https://example.invalid/tomato.png" alt="a red tomato">
<h3>Pests</h3>
<p>Aphids hide under the leaves; wash them off.</p>
<h6>Deep note</h6><p>The sixth level.</p>
</body></html>
"""


def test_a_page_reads_as_markdown_with_its_headings() -> None:
    read = document_text(PAGE, "garden.html")
    assert read.markdown
    lines = read.text.splitlines()
    assert "# Garden notes" in lines
    assert "## Tomatoes" in lines
    assert "### Pests" in lines
    assert "###### Deep note" in lines
    assert "Water the tomato plants at dawn." in lines
    for absent in ("https://", "tomato.png", "a red tomato", "color", "secret", "Injected"):
        assert absent not in read.text


def test_each_passage_of_a_page_remembers_its_section() -> None:
    read = document_text(PAGE, "garden.HTM")
    passages = document_passages(read.text, markdown=read.markdown)
    by_heading = {p.heading: p.text for p in passages}
    assert "Water the tomato plants at dawn." in by_heading["Garden notes › Tomatoes"]
    assert "Aphids hide under the leaves" in by_heading["Garden notes › Tomatoes › Pests"]


def test_the_title_heads_a_page_without_headings() -> None:
    read = document_text(b"<title>Opening hours</title><p>Open from nine.</p>", "hours.htm")
    assert read.text == "# Opening hours\n\nOpen from nine."


def test_the_declared_encoding_is_honoured() -> None:
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
        "</head><body><h1>Café</h1><p>Crème brûlée, naïve.</p></body></html>"
    ).encode("latin-1")
    read = document_text(page, "menu.html")
    assert read.text == "# Café\n\nCrème brûlée, naïve."
    assert read.notes == ()
    sjis = '<meta charset="shift_jis"><h1>東京</h1><p>天気は晴れ</p>'.encode("shift_jis")
    assert document_text(sjis, "tokyo.html").text == "# 東京\n\n天気は晴れ"


def test_a_page_with_broken_bytes_is_read_with_a_note() -> None:
    page = "<h1>Résumé</h1><p>naïve</p>".encode() + b"<p>bad \xff byte</p>"
    read = document_text(page, "cv.html")
    assert read.text.startswith("# Résumé\n\nnaïve")
    assert read.notes == ("cv.html: 1 bytes that are not valid UTF-8 show as �",)


def test_deep_nesting_grows_the_text_no_more_than_the_page() -> None:
    levels = 20_000
    lists = b"<ul><li>" * levels + b"bottom" + b"</li></ul>" * levels
    quotes = b"<blockquote><p>a</p>" * levels + b"</blockquote>" * levels
    divs = b"<div>" * 200_000 + b"<p>inside</p>" + b"</div>" * 200_000
    assert "bottom" in document_text(lists, "lists.html").text
    assert len(document_text(lists, "lists.html").text) < len(lists)
    assert len(document_text(quotes, "quotes.html").text) < len(quotes)
    assert document_text(divs, "divs.html").text == "inside"


def test_a_page_only_its_scripts_would_fill_is_refused_with_the_reason() -> None:
    page = b"<html><head><script>render('<h1>App</h1>')</script></head><body><div id=app>"
    with pytest.raises(IngestError) as caught:
        document_text(page, "app.html")
    assert caught.value.reason == (
        "the page holds no text: only markup, or a page its scripts would fill in"
    )


def test_a_page_named_html_that_is_not_text_says_what_it_is() -> None:
    with pytest.raises(IngestError, match="holds no text Parley can read"):
        document_text(b"\x00\x01\x02 binary \x00" * 100, "data.html")


def test_a_long_page_is_cut_with_a_note() -> None:
    page = b"<h1>Long</h1>" + b"<p>word word word</p>" * 1000
    read = document_text(page, "long.html", IngestLimits(max_text_chars=100))
    assert len(read.text) == 100
    assert read.notes[-1].startswith("long.html: only the first 100 characters of its")


def test_a_comment_in_a_code_block_is_no_heading() -> None:
    page = (
        b"<h3>9.4.14. Scheduling tasks regularly</h3><p>An example crontab:</p>"
        b"<pre class=screen># use /bin/sh to run commands\nSHELL=/bin/sh\n\n"
        b"# run at 3 am\n0 3 * * * backup</pre><p>After it.</p>"
    )
    read = document_text(page, "cron.html")
    headings = {p.heading for p in document_passages(read.text, markdown=read.markdown)}
    assert headings == {"9.4.14. Scheduling tasks regularly"}
    assert "# use /bin/sh to run commands\nSHELL=/bin/sh" in read.text


def test_a_numbered_heading_keeps_its_number_as_written() -> None:
    page = b"<h2>2. What is Debian</h2><p>1. not a list</p><h3>- dashed</h3>"
    lines = document_text(page, "preface.html").text.splitlines()
    assert "## 2. What is Debian" in lines
    assert "### - dashed" in lines
    assert "1\\. not a list" in lines  # still not a list in the text
