"""Passages remember their page or heading and where they lie in the text."""

from __future__ import annotations

from app.knowledge import document_passages, fuse_rankings, fused_scores
from app.knowledge.passages import MAX_CHARS, TARGET_CHARS
from tests.knowledge.corpus import MARKDOWN


def test_markdown_passages_carry_their_heading_and_range() -> None:
    passages = document_passages(MARKDOWN, markdown=True)
    by_heading = {p.heading: p for p in passages}
    # each passage is under its headings, outermost first
    assert "courgettes" in by_heading["Garden notes › Watering"].text
    assert "Slugs" in by_heading["Garden notes › Pests"].text
    assert not any("Not a heading" in h for h in by_heading if h)  # a comment in a fence
    for p in passages:
        assert MARKDOWN[p.start : p.end] == p.text


def test_pdf_pages_give_each_passage_its_page() -> None:
    pages = ["first page words", "", "third page about glaciers"]
    text = "\f".join(pages)
    passages = document_passages(text, pages=pages)
    assert [(p.page, p.text) for p in passages] == [
        (1, "first page words"),
        (3, "third page about glaciers"),
    ]
    assert all(text[p.start : p.end] == p.text for p in passages)


def test_a_long_paragraph_is_cut_at_sentences_within_the_limit() -> None:
    text = "A sentence about the sea. " * 300
    passages = document_passages(text)
    assert len(passages) > 3
    assert all(len(p.text) <= MAX_CHARS for p in passages)
    assert all(p.text.endswith(".") for p in passages)
    assert all(text[p.start : p.end] == p.text for p in passages)


def test_sentences_fill_a_passage_up_to_the_target_and_no_further() -> None:
    sentence = "The tide turns at noon. "  # 24 characters
    passages = document_passages(sentence * 200)
    full = TARGET_CHARS // len(sentence) * len(sentence) - 1  # whole sentences, no last space
    assert [len(p.text) for p in passages[:-1]] == [full] * (len(passages) - 1)
    assert " ".join(p.text for p in passages) == (sentence * 200).strip()


def test_a_paragraph_without_sentences_is_cut_at_the_last_space_before_the_target() -> None:
    text = "tide " * 800  # 4,000 characters, no sentence end
    passages = document_passages(text)
    assert [len(p.text) for p in passages[:-1]] == [899] * (len(passages) - 1)
    assert all(text[p.start : p.end] == p.text for p in passages)
    assert {w for p in passages for w in p.text.split(" ")} == {"tide"}  # no word cut


def test_a_paragraph_without_spaces_is_cut_at_the_limit() -> None:
    passages = document_passages("x" * 4000)
    assert [(p.start, p.end) for p in passages] == [(0, 1500), (1500, 3000), (3000, 4000)]


def test_short_paragraphs_are_joined_up_to_the_target_exactly() -> None:
    text = "\n\n".join(["a" * 300, "b" * 298, "c" * 298, "d" * 100])
    passages = document_passages(text)
    # the first three and their blank lines are exactly the target (900): they are one passage
    assert [(p.start, p.end) for p in passages] == [(0, 900), (902, 1002)]
    assert passages[1].text == "d" * 100


def test_a_heading_alone_stays_with_the_text_under_it() -> None:
    text = "# Tides\n\n" + "w" * 950 + "\n\n## Moon\n\nshort"
    passages = document_passages(text, markdown=True)
    assert [(p.heading, p.text[:7]) for p in passages] == [
        ("Tides", "# Tides"),
        ("Tides › Moon", "## Moon"),
    ]
    assert passages[0].end == len("# Tides\n\n") + 950


def test_fusion_favours_what_both_rankings_hold() -> None:
    assert fuse_rankings([["a", "b", "c"], ["c", "b", "d"]]) == ["c", "b", "a", "d"]


def test_fusion_scores_each_rank_one_over_k_plus_rank() -> None:
    """A first place is worth 1/61, a second 1/62; an item in both rankings adds them."""
    assert fused_scores([["a", "b"], ["b"]]) == [("b", 1 / 62 + 1 / 61), ("a", 1 / 61)]
    # with a small k one first place outweighs two third places; with the usual 60 it does not
    rankings = [["x", "a", "y"], ["b", "c", "y"]]
    assert fuse_rankings(rankings)[0] == "y"
    assert fuse_rankings(rankings, k=0)[0] == "x"


def test_a_heading_replaces_those_at_its_level_and_below() -> None:
    text = (
        "# Guide\n\nintro\n\n## Install\n\nget it\n\n### Linux\n\nrun it\n\n"
        "## Use\n\nclick\n\n# Appendix\n\nmore"
    )
    passages = document_passages(text, markdown=True)
    assert [(p.heading, p.text.split("\n")[-1]) for p in passages] == [
        ("Guide", "intro"),
        ("Guide › Install", "get it"),
        ("Guide › Install › Linux", "run it"),
        ("Guide › Use", "click"),
        ("Appendix", "more"),
    ]


def test_a_comment_in_indented_code_is_no_heading() -> None:
    text = "# Setup\n\nRun this:\n\n    # not a heading\n    make install\n\nDone."
    passages = document_passages(text, markdown=True)
    assert {p.heading for p in passages} == {"Setup"}


def test_a_heading_with_nothing_under_it_stays_with_the_next_one() -> None:
    text = "# Project Osprey\n\n## Launch\n\nOsprey launches in May.\n\n## Risks\n\nNone."
    passages = document_passages(text, markdown=True)
    assert [(p.heading, p.text) for p in passages] == [
        ("Project Osprey › Launch", "# Project Osprey\n\n## Launch\n\nOsprey launches in May."),
        ("Project Osprey › Risks", "## Risks\n\nNone."),
    ]
