"""Local decode speed, measured once per bench run and reported by both ``providers`` and
``local_models`` (so their decode rows are the same figure).

Parley loads the bundled model as the app does the first time on a machine: it measures
which thread count decodes fastest (what that costs is a row of its own) and uses it. The
peer is llama-cpp-python called directly on the same loaded model, the same prompt tokens
and the same greedy sampling settings (the model's recipe), at every thread count from 1 to
the cores; its best is the figure Parley is held to. Rounds interleave Parley and each peer
setting, so a burst of other work on the machine falls on all of them; each figure is the
median of its rounds.
Everything decodes on the thread Parley decodes on (llama.cpp keeps a team of threads per
calling thread; a second caller would slow both down).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from app.core.models.protocol import GenerationConfig
from app.core.state.message import Message
from app.providers import llama_threads
from app.providers._llama_reply import plain_messages
from app.providers.llama_threads import FILE_NAME, candidates, set_threads
from app.providers.local import LlamaCppChatModel
from app.providers.recipes import PromptRecipe
from bench.table import Row

PROMPT = [
    Message.text_message("You are a helpful assistant.", role="system"),
    Message.text_message("Write a long story about a robot who learns to paint."),
]
MAX_TOKENS = 160
ROUNDS = 3
PATIENCE = 8.0
"""Seconds one measured reply may take: on a busy machine too many threads decode many times
slower, and a whole reply would take minutes."""


@dataclass
class DecodeFigures:
    """Medians over the rounds: Parley's decode tok/s and time to first token (s); the
    peer's at each thread count; the thread count Parley chose and what choosing cost."""

    ours: float = 0.0
    ours_first: float = 0.0
    threads: int = 0
    batch_threads: int = 0
    calibration_s: float = 0.0
    source: str = ""
    peer: dict[int, float] = field(default_factory=dict)
    peer_first: dict[int, float] = field(default_factory=dict)

    @property
    def best_threads(self) -> int:
        return max(self.peer, key=self.peer.__getitem__)


def _direct(model: LlamaCppChatModel, tokens: list[int], stop: list[str]) -> tuple[float, float]:
    """Seconds to the first token and decode tok/s after it, llama-cpp-python directly."""
    llama = model.llama
    assert llama is not None
    llama.reset()  # type: ignore[no-untyped-call]
    start = time.perf_counter()
    first = 0.0
    sampling = model.recipe.sampling() if model.recipe is not None else {}
    for part in llama.create_completion(
        tokens,
        max_tokens=MAX_TOKENS,
        temperature=0,
        stop=stop,
        stream=True,
        seed=1,
        **sampling,
    ):
        if part["choices"][0]["text"] and not first:  # type: ignore[index]
            first = time.perf_counter()
        if time.perf_counter() - start > PATIENCE:
            break  # a thread count the machine cannot feed: its rate so far says enough
    end = time.perf_counter()
    generated = llama.n_tokens - len(tokens)
    if not first or generated < 2 or end <= first:  # cut off before a second token
        return end - start, max(0, generated) / (end - start)
    return first - start, (generated - 1) / (end - first)


async def _adapter(model: LlamaCppChatModel) -> tuple[float, float]:
    """The same through Parley's adapter (its stream of messages on the event loop)."""
    llama = model.llama
    assert llama is not None
    await model.on_worker(llama.reset)
    cfg = GenerationConfig(temperature=0, max_tokens=MAX_TOKENS, seed=1)
    start = time.perf_counter()
    first = 0.0
    async for piece in model.astream(PROMPT, config=cfg):
        if piece.text() and not first:
            first = time.perf_counter()
    end = time.perf_counter()
    return first - start, (model.last_run.tokens - 1) / (end - first)


async def _measure() -> DecodeFigures:
    figures = DecodeFigures()
    llama_threads._KNOWN.clear()  # as on a machine where the model was never loaded
    with tempfile.TemporaryDirectory() as tmp:
        model = LlamaCppChatModel(n_ctx=2048, threads_file=Path(tmp) / FILE_NAME)
        try:
            await model.aload()
            llama, template, choice = model.llama, model.template, model.threads
            assert llama is not None and template is not None and choice is not None
            figures.threads, figures.source = choice.threads, choice.source
            figures.calibration_s = choice.seconds
            # the prompt and sampling Parley uses (its recipe for the model), token for token
            recipe = model.recipe or PromptRecipe()
            rendered = template.render(plain_messages(PROMPT, "m"), [], recipe)
            tokens = model.prompt_tokens(llama, rendered)
            stop = [template.eos_token]
            counts = candidates()
            ours: list[tuple[float, float]] = []
            peer: dict[int, list[tuple[float, float]]] = {n: [] for n in counts}

            reading = int(llama.context_params.n_threads_batch)
            figures.batch_threads = reading

            def peer_at(n: int) -> tuple[float, float]:
                set_threads(llama, n, n)  # as a server started with --n_threads N, batch N
                try:
                    return _direct(model, tokens, stop)
                finally:
                    set_threads(llama, choice.threads, reading)

            await _adapter(model)  # warm
            for n in counts:
                await model.on_worker(partial(peer_at, n))
            for _ in range(ROUNDS):
                for n in counts:
                    peer[n].append(await model.on_worker(partial(peer_at, n)))
                ours.append(await _adapter(model))
        finally:
            model.close()
    figures.ours_first = statistics.median(x[0] for x in ours)
    figures.ours = statistics.median(x[1] for x in ours)
    figures.peer = {n: statistics.median(x[1] for x in got) for n, got in peer.items()}
    figures.peer_first = {n: statistics.median(x[0] for x in got) for n, got in peer.items()}
    return figures


_MEASURED: list[DecodeFigures] = []


def decode_figures() -> DecodeFigures:
    """The figures, measured the first time they are asked for in this process."""
    if not _MEASURED:
        _MEASURED.append(asyncio.run(_measure()))
    return _MEASURED[0]


def decode_rows(group: str, *, detail: bool = False) -> list[Row]:
    """The local decode rows, the same figures in every group that shows them (with
    ``detail``, also what choosing the threads cost and the peer at each count)."""
    f = decode_figures()
    best = f.best_threads
    peer = f.peer[best]
    ratio = f.ours / peer if peer else 0.0
    rows = [
        Row(group, f"local decode through Parley ({f.threads} threads, prompts "
            f"{f.batch_threads}, {f.source}; {ratio:.0%} of peer)", f.ours, "tok/s", peer,
            f"llama-cpp-python at its best ({best} threads)", ">= 95% of peer",
            f.ours >= 0.95 * peer, higher_is_better=True),
        Row(group, "local time to first token", f.ours_first * 1000, "ms",
            f.peer_first[best] * 1000, f"llama-cpp-python ({best} threads)",
            "<= peer + 50 ms", f.ours_first <= f.peer_first[best] + 0.050),
    ]  # fmt: skip
    if not detail:
        return rows
    rows += [
        Row(group, "choosing the decode threads at a model's first load on a machine",
            f.calibration_s * 1000, "ms", target="< 1000 ms", ok=f.calibration_s < 1.0),
    ]  # fmt: skip
    for n, speed in sorted(f.peer.items()):
        rows.append(Row(group, f"llama-cpp-python decode with {n} thread{'s' * (n > 1)}",
                        speed, "tok/s", higher_is_better=True))  # fmt: skip
    return rows
