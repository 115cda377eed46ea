"""Several clients at once on the bundled model, through a real ``parley serve`` in a process
of its own (the model loads there, not in the test's process): the model takes them in turn,
and every one, whole or streamed, by either SDK, gets words, a reason it stopped and its
tokens counted. The words differ from machine to machine, so only that there are some is
checked."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import anthropic
import openai
import pytest

from tests.cli.process import ROOT
from tests.cli.test_keys import _no_keyring

# a busy machine runs the model many times slower: room for that, not a speed check
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

QUESTIONS = ["Name one colour.", "Name one animal.", "Name one fruit.", "Name one city."]
SERVED = re.compile(
    r"Parley serves the OpenAI and Anthropic APIs at (http://127\.0\.0\.1:\d+/v1) "
    r"\(Ctrl\+C stops it\)\n"
)


@dataclass
class Child:
    """A ``parley serve`` process: where it answers and the key it takes."""

    base_url: str
    key: str


@contextmanager
def serving_bundled(tmp_path: Path) -> Iterator[Child]:
    """``parley serve --model local`` on a free port of 127.0.0.1, over a data folder of its
    own, in a process of its own with one key; stopped with Ctrl+C at the end, and killed if
    it does not stop."""
    env = {k: v for k, v in os.environ.items() if k != "PARLEY_DATA_DIR"}
    env.update(_no_keyring(tmp_path))
    errors = tmp_path / "serve.err"
    with errors.open("w", encoding="utf-8") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.server._serve_child", str(tmp_path / "data"),
             "--port", "0", "--model", "local"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=err, text=True,
        )  # fmt: skip
    try:
        assert child.stdout is not None
        key = child.stdout.readline().strip()
        said = child.stdout.readline()
        found = SERVED.fullmatch(said)
        assert key and found, (key, said, errors.read_text(encoding="utf-8"))
        yield Child(found.group(1), key)
    finally:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        finally:
            if child.stdout is not None:
                child.stdout.close()
    assert child.returncode == 0, errors.read_text(encoding="utf-8")


def by_openai(served: Child, question: str) -> tuple[str, int]:
    """A whole chat completion, checked to have stopped for a reason: its words and its
    completion tokens."""
    with openai.OpenAI(
        base_url=served.base_url, api_key=served.key, timeout=600, max_retries=0
    ) as client:
        reply = client.chat.completions.create(
            model="parley", messages=[{"role": "user", "content": question}], max_tokens=8
        )
    assert reply.usage is not None
    assert reply.usage.prompt_tokens > 0
    usage = reply.usage
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    choice = reply.choices[0]
    assert choice.finish_reason in ("stop", "length")
    return choice.message.content or "", usage.completion_tokens


def by_openai_streamed(served: Child, question: str) -> tuple[str, int]:
    """A streamed chat completion, its usage asked for: the same, from its chunks."""
    with openai.OpenAI(
        base_url=served.base_url, api_key=served.key, timeout=600, max_retries=0
    ) as client:
        chunks = list(
            client.chat.completions.create(
                model="parley",
                messages=[{"role": "user", "content": question}],
                max_tokens=8,
                stream=True,
                stream_options={"include_usage": True},
            )
        )
    words = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    usage = chunks[-1].usage
    assert usage is not None
    assert usage.prompt_tokens > 0
    assert finishes[-1] in ("stop", "length")
    return words, usage.completion_tokens


def by_anthropic_streamed(served: Child, question: str) -> tuple[str, int]:
    """A streamed message by Anthropic's SDK, checked to have stopped for a reason: its words
    and its output tokens."""
    with (
        anthropic.Anthropic(
            base_url=served.base_url.removesuffix("/v1"),
            api_key=served.key,
            timeout=600,
            max_retries=0,
        ) as client,
        client.messages.stream(
            model="parley", max_tokens=8, messages=[{"role": "user", "content": question}]
        ) as stream,
    ):
        words = "".join(stream.text_stream)
        message = stream.get_final_message()
    assert message.usage.input_tokens > 0
    assert message.stop_reason in ("end_turn", "max_tokens")
    return words, message.usage.output_tokens


def test_clients_at_once_on_the_bundled_model_are_all_answered(tmp_path: Path) -> None:
    asks: list[Callable[[Child, str], tuple[str, int]]] = [
        by_openai, by_openai_streamed, by_openai, by_anthropic_streamed,
    ]  # fmt: skip
    with serving_bundled(tmp_path) as served, ThreadPoolExecutor(len(asks)) as pool:
        running = [pool.submit(ask, served, q) for ask, q in zip(asks, QUESTIONS, strict=True)]
        answers = [done.result() for done in running]
    for words, tokens in answers:
        assert words.strip(), answers
        assert 0 < tokens <= 8, answers  # at most the tokens asked for
