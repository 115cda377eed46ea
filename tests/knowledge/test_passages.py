"""Passages remember their page or heading and where they lie in the text."""

from __future__ import annotations

from app.knowledge import document_passages, fuse_rankings, fused_scores
from app.knowledge.passages import MAX_CHARS
from tests.knowledge.corpus import MARKDOWN


def test_markdown_passages_carry_their_heading_and_range() -> None:
    passages = document_passages(MARKDOWN, markdown=True)
    by_heading = {p.heading: p for p in passages}
    assert "courgettes" in by_heading["Watering"].text
    assert "Slugs" in by_heading["Pests"].text
    assert "Not a heading" not in by_heading  # a comment in a code fence is no heading
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


def test_fusion_favours_what_both_rankings_hold() -> None:
    assert fuse_rankings([["a", "b", "c"], ["c", "b", "d"]]) == ["c", "b", "a", "d"]


def test_fusion_scores_each_rank_one_over_k_plus_rank() -> None:
    """A first place is worth 1/61, a second 1/62; an item in both rankings adds them."""
    assert fused_scores([["a", "b"], ["b"]]) == [("b", 1 / 62 + 1 / 61), ("a", 1 / 61)]
    # with a small k one first place outweighs two third places; with the usual 60 it does not
    rankings = [["x", "a", "y"], ["b", "c", "y"]]
    assert fuse_rankings(rankings)[0] == "y"
    assert fuse_rankings(rankings, k=0)[0] == "x"
