"""The bundled model as a new user meets it: ``parley chat`` in a fresh data directory, in a
real process, answers the first question anyone asks, and offers a tool call when asked for the
time; on the public evaluation set it keeps its measured score."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.providers.local import LlamaCppChatModel
from tests.eval.runner import parley_agent, parley_chat
from tests.eval.scoring import load_set

# a busy machine runs the model many times slower: room for that, not a speed check
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[2]


def parley(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PARLEY_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=800, env=env, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("run", [1, 2, 3])
def test_the_capital_of_france_is_paris_every_time(tmp_path: Path, run: int) -> None:
    done = parley("chat", "What is the capital of France?", data_dir=tmp_path / f"fresh{run}")
    assert done.returncode == 0, done.stderr
    assert "Paris" in done.stdout, done.stdout


def test_asking_for_the_time_calls_the_clock(tmp_path: Path) -> None:
    done = parley("chat", "--tools", "What time is it now?", data_dir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[current_time: started]" in done.stdout, done.stdout


@pytest.fixture(scope="module")
def model() -> Iterator[LlamaCppChatModel]:
    loaded = LlamaCppChatModel(n_ctx=2048)
    try:
        yield loaded
    finally:
        loaded.close()


async def test_default_chat_keeps_its_score_on_the_public_set(model: LlamaCppChatModel) -> None:
    tally = await parley_chat(model, load_set())
    # measured: 29 of 45 (64%); llama.cpp's own chat completion gets 27 (60%)
    assert tally.answer_rate >= 60, tally.failures


async def test_default_agent_calls_are_valid_and_mostly_well_chosen(
    model: LlamaCppChatModel,
) -> None:
    tally = await parley_agent(model, load_set())
    # measured: 14 of 20 right decisions, 15 of 16 calls valid (one cut at the token limit)
    assert tally.valid_rate >= 90, tally.failures
    assert tally.decision_rate >= 65, tally.failures
