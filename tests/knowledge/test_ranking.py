"""The pure parts of ranking: how much of a question a passage holds, whether its words
stand together, and a file's further passages giving way to other files."""

from __future__ import annotations

import pytest

from app.knowledge import ranking
from app.knowledge.ranking import Candidate, coverage, idf, nearness, rerank


def _at(*words: str) -> list[tuple[int, str]]:
    return list(enumerate(words))


def test_a_rare_word_weighs_more_than_a_common_one() -> None:
    assert idf(1000, 1) > idf(1000, 100) > idf(1000, 1000) > 0
    weights = {"heron": idf(1000, 2), "project": idf(1000, 600)}
    question = ["project", "heron"]
    assert coverage(question, weights, {"heron"}) > 0.8
    assert coverage(question, weights, {"project"}) < 0.2
    assert coverage(question, weights, {"project", "heron"}) == pytest.approx(1.0)
    assert coverage(question, weights, set()) == 0.0


def test_words_side_by_side_count_more_than_words_apart() -> None:
    question = ["launch", "code"]
    assert nearness(question, [_at("the", "launch", "code", "is")]) == 1.0
    assert nearness(question, [_at("launch", "of", "the", "code")]) == 0.5
    assert nearness(question, [_at("launch", "a", "b", "c", "d", "code")]) == 0.0
    assert nearness(question, [_at("code", "launch")]) == 0.0  # not in the question's order
    assert nearness(["launch"], [_at("launch")]) == 0.0  # no pair to stand together


def test_a_file_s_further_passages_give_way_to_other_files() -> None:
    weights = {"tide": 1.0}

    def cand(key: int, file: str) -> Candidate:
        return Candidate(key, 1.0, file, [], [], [], _at("tide"))

    ranked = rerank(["tide"], weights, [cand(1, "a"), cand(2, "a"), cand(3, "a"), cand(4, "b")])
    assert [c.key for c, _, _ in ranked] == [1, 4, 2, 3]
    assert all(relevance == 1.0 for _, _, relevance in ranked)


def test_one_file_holds_at_most_three_of_the_first_five_while_others_can_fill_them() -> None:
    weights = {"launch": 1.0, "code": 1.0}
    notes = [Candidate(n, 10.0, "meetings.md", [], [], [], _at("launch", "code")) for n in range(6)]
    other = [Candidate(10 + n, 1.0, f"n{n}.md", [], [], [], _at("launch")) for n in range(3)]
    ranked = [c.file for c, _, _ in rerank(["launch", "code"], weights, notes + other)]
    assert ranked[:5].count("meetings.md") == ranking.PER_FILE == 3
    assert sorted(ranked[5:]) == ["meetings.md"] * 3 + ["n2.md"]  # moved down, not dropped
    # a file alone keeps every place: nothing else could take them
    alone = [c.key for c, _, _ in rerank(["launch", "code"], weights, notes)]
    assert alone == [0, 1, 2, 3, 4, 5]


def test_a_passage_under_a_heading_that_names_the_question_ranks_first() -> None:
    weights = {"ssh": 1.0, "fail": 2.0}
    body = Candidate(1, 1.0, "a", [], _at("network"), _at("tips"), _at("ssh", "fail", "ssh"))
    named = Candidate(2, 0.6, "b", [], _at("network"), _at("ssh", "fail"), _at("ssh", "log"))
    assert [c.key for c, _, _ in rerank(["ssh", "fail"], weights, [body, named])] == [2, 1]


def test_floors_are_set_for_every_embedding_model() -> None:
    assert ranking.meaning_floor("bundled") == ranking.MEANING_FLOORS["bundled"]
    assert ranking.meaning_floor("gguf:/models/x.gguf") == ranking.MEANING_FLOORS[""]
    assert 0 < ranking.WORDS_FLOOR < 1


def test_a_word_held_only_as_the_start_of_a_longer_one_counts_part() -> None:
    weights = {"admin": 3.0, "sudo": 1.0}
    longer = {"administr": "admin"}
    held = coverage(["admin", "sudo"], weights, {"administr", "sudo"}, longer)
    assert held == pytest.approx((ranking.PREFIX_CREDIT * 3.0 + 1.0) / 4.0)
    assert coverage(["admin", "sudo"], weights, {"admin", "sudo"}, longer) == 1.0
    spelled = Candidate(1, 1.0, "a", [], [], [], _at("administr", "sudo"))
    typed = Candidate(2, 1.0, "b", [], [], [], _at("admin", "sudo"))
    ranked = rerank(["admin", "sudo"], weights, [spelled, typed], longer=longer)
    assert [c.key for c, _, _ in ranked] == [2, 1]  # the word itself counts more
