"""The README's Server section, done as it says against a real ``parley serve``: its SDK
example prints the answer by both SDKs, the environment it names points each SDK at Parley
with no address or key in the code, and the editor's settings it shows name an address, a
model and a key the server takes."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import anthropic
import openai
import pytest

from tests.server.harness import ANSWER, Served, serving

README = Path(__file__).resolve().parents[2] / "README.md"
SHOWN_ROOT = "http://127.0.0.1:8765"
SHOWN_KEY = "pk-..."


def server_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("\n## Server\n", 1)[1].split("\n## ", 1)[0]


def blocks(language: str) -> list[str]:
    """The section's code blocks in ``language``, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", server_section(), re.DOTALL | re.MULTILINE)


def as_served(text: str, served: Served) -> str:
    """``text`` with the README's address and key replaced by the running server's."""
    root = served.base_url.removesuffix("/v1")
    return text.replace(SHOWN_ROOT, root).replace(SHOWN_KEY, served.key)


def test_the_sdk_example_prints_the_answer_by_both_sdks(tmp_path: Path) -> None:
    [example] = blocks("py")
    out = io.StringIO()
    with serving(tmp_path) as served, contextlib.redirect_stdout(out):
        exec(compile(as_served(example, served), str(README), "exec"), {"__name__": "readme"})
    assert out.getvalue() == f"{ANSWER}\n{ANSWER}\n"


def test_the_environment_named_points_each_sdk_at_parley(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [line for b in blocks("sh") for line in b.splitlines() if "_BASE_URL=" in line]
    assert len(lines) == 2, lines
    ask = [{"role": "user", "content": "Why are there tides?"}]
    with serving(tmp_path) as served:
        for line in lines:
            words = shlex.split(as_served(line, served))
            for word in words[: words.index("python")]:
                name, value = word.split("=", 1)
                monkeypatch.setenv(name, value)
        with openai.OpenAI(max_retries=0) as chat:
            reply = chat.chat.completions.create(model="parley", messages=ask)
        assert reply.choices[0].message.content == ANSWER
        with anthropic.Anthropic(max_retries=0) as claude:
            message = claude.messages.create(model="parley", max_tokens=99, messages=ask)
        assert [b.text for b in message.content if b.type == "text"] == [ANSWER]


def test_the_editors_settings_reach_the_model_and_the_agent(tmp_path: Path) -> None:
    [settings] = blocks("yaml")
    fields = dict(re.findall(r"^\s+-?\s*(\w+): (\S+)", settings, re.MULTILINE))
    assert fields["provider"] == "openai"
    others = re.search(r"# or (.*)$", settings, re.MULTILINE)
    assert others
    assert fields["apiKey"] == SHOWN_KEY
    with serving(tmp_path) as served:
        base_url = as_served(fields["apiBase"], served)
        assert base_url == served.base_url
        with openai.OpenAI(base_url=base_url, api_key=served.key, max_retries=0) as editor:
            listed = {m.id for m in editor.models.list()}
            reply = editor.chat.completions.create(
                model=fields["model"], messages=[{"role": "user", "content": "Tides?"}]
            )
    named = [fields["model"], *(m.strip() for m in others.group(1).split(", or "))]
    assert set(named) <= listed, (named, listed)
    assert reply.choices[0].message.content == ANSWER
