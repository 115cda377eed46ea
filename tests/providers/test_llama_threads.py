"""The decode thread count is measured on this machine the first time a model file loads,
kept in the data folder under the file and the CPU, re-used after, and overridable."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import llama_cpp
import pytest

from app.core.models.protocol import GenerationConfig
from app.core.state.message import Message
from app.providers import llama_threads
from app.providers.llama_threads import ENV, FILE_NAME, calibration_key, candidates
from app.providers.local import LlamaCppChatModel

GREEDY = GenerationConfig(temperature=0, max_tokens=12, seed=1)


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing measured earlier in this process, and no override in the environment."""
    monkeypatch.setattr(llama_threads, "_KNOWN", {})
    monkeypatch.delenv(ENV, raising=False)


def context_threads(model: LlamaCppChatModel) -> int:
    """The decode thread count llama.cpp's live context reports."""
    assert model.llama is not None
    return int(llama_cpp.llama_n_threads(model.llama._ctx.ctx))


def prompt_threads(model: LlamaCppChatModel) -> int:
    """The prompt-reading thread count llama.cpp's live context reports."""
    assert model.llama is not None
    return int(llama_cpp.llama_n_threads_batch(model.llama._ctx.ctx))


async def answer(model: LlamaCppChatModel) -> str:
    parts = [m.text() async for m in model.astream([Message.text_message("Hi!")], config=GREEDY)]
    return "".join(parts)


def test_candidates_are_one_powers_of_two_and_the_cores() -> None:
    assert candidates(1) == [1]
    assert candidates(2) == [1, 2]
    assert candidates(6) == [1, 2, 4, 6]
    assert candidates(64) == [1, 2, 4, 8, 16]


async def test_first_load_measures_keeps_it_and_the_next_load_reuses_it(
    tmp_path: Path, bundled_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(llama_threads, "physical_cores", lambda: 2)
    file = tmp_path / FILE_NAME
    first = LlamaCppChatModel(bundled_path, n_ctx=512, threads_file=file)
    try:
        said = await answer(first)
        assert first.threads is not None and first.threads.source == "measured"
        assert set(first.threads.speeds) <= {1, 2} and 1 in first.threads.speeds
        assert first.threads.batch_threads in (1, 2)
        assert context_threads(first) == first.threads.threads
        assert prompt_threads(first) == first.threads.batch_threads
    finally:
        first.close()
    kept = json.loads(file.read_text(encoding="utf-8"))
    assert list(kept) == [calibration_key(bundled_path)]
    assert str(bundled_path.resolve()) in next(iter(kept))
    assert kept[calibration_key(bundled_path)]["threads"] == first.threads.threads
    assert kept[calibration_key(bundled_path)]["batch_threads"] == first.threads.batch_threads

    monkeypatch.setattr(llama_threads, "_KNOWN", {})  # as a new process would start
    again = LlamaCppChatModel(bundled_path, n_ctx=512, threads_file=file)
    try:
        assert await answer(again) == said  # measuring left nothing behind in the context
        assert again.threads is not None and again.threads.source == "remembered"
        assert context_threads(again) == first.threads.threads
        assert prompt_threads(again) == first.threads.batch_threads
    finally:
        again.close()
    assert json.loads(file.read_text(encoding="utf-8")) == kept


async def test_a_given_count_or_the_environment_wins_and_nothing_is_measured(
    tmp_path: Path, bundled_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / FILE_NAME
    given = LlamaCppChatModel(bundled_path, n_ctx=512, n_threads=1, threads_file=file)
    try:
        await given.aload()
        assert given.threads == llama_threads.ThreadChoice(1, "given")
        assert context_threads(given) == 1
    finally:
        given.close()
    monkeypatch.setenv(ENV, "2")
    from_env = LlamaCppChatModel(bundled_path, n_ctx=512, threads_file=file)
    try:
        await from_env.aload()
        assert from_env.threads == llama_threads.ThreadChoice(2, "env")
        assert context_threads(from_env) == 2
    finally:
        from_env.close()
    assert not file.exists()


async def test_a_bad_override_or_a_damaged_file_is_measured_again_and_mended(
    tmp_path: Path,
    bundled_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(llama_threads, "physical_cores", lambda: 2)
    monkeypatch.setenv(ENV, "all of them")
    file = tmp_path / FILE_NAME
    file.write_text('{"' + calibration_key(bundled_path) + '": {"threads": "many"', "utf-8")
    model = LlamaCppChatModel(bundled_path, n_ctx=512, threads_file=file)
    try:
        with caplog.at_level(logging.WARNING, logger=llama_threads.__name__):
            await model.aload()
        assert model.threads is not None and model.threads.source == "measured"
    finally:
        model.close()
    assert f"{ENV}='all of them' is not a thread count" in caplog.text
    kept = json.loads(file.read_text(encoding="utf-8"))
    assert kept[calibration_key(bundled_path)]["threads"] == model.threads.threads


async def test_another_model_file_is_measured_for_itself(
    tmp_path: Path, bundled_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(llama_threads, "physical_cores", lambda: 2)
    file = tmp_path / FILE_NAME
    copy = tmp_path / "copy.gguf"
    copy.write_bytes(bundled_path.read_bytes())
    for path in (bundled_path, copy):
        model = LlamaCppChatModel(path, n_ctx=512, threads_file=file)
        try:
            await model.aload()
            assert model.threads is not None and model.threads.source == "measured"
        finally:
            model.close()
    assert set(json.loads(file.read_text(encoding="utf-8"))) == {
        calibration_key(bundled_path),
        calibration_key(copy),
    }
