"""An agent through ``parley serve`` (``model: "agent:NAME"``), asked with the official
``openai`` and ``anthropic`` SDKs: it answers as a model does and its turn is kept as a
thread of that agent; a call that needs approval is denied when nobody is at the window,
the client is told so and nothing is written; a rule made ahead of time lets it run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anthropic
import openai

from app.core.tools.argument_rules import ArgumentRule
from app.services.workspace import Workspace
from tests.server.harness import ANSWER, USAGE, Served, run_parley, serving


def _client(served: Served) -> openai.OpenAI:
    return openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)


def _kept(data_dir: Path) -> dict[str, tuple[str, list[str]]]:
    """Each kept thread by title: its agent's id and its messages' texts."""

    async def read() -> dict[str, tuple[str, list[str]]]:
        ws = await Workspace.open(data_dir)
        try:
            kept = {}
            for summary in await ws.threads.list_all():
                state = await ws.threads.saved_state(summary.thread.id)
                texts = [m.text() for m in state.context] if state else []
                kept[summary.thread.title] = (summary.thread.agent_id, texts)
            return kept
        finally:
            await ws.aclose()

    return asyncio.run(read())


def test_an_agent_answers_and_its_turn_is_kept_as_a_thread(tmp_path: Path) -> None:
    with serving(tmp_path) as served, _client(served) as client:
        reply = client.chat.completions.create(
            model="agent:Researcher",
            messages=[
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "What moves the sea?"},
                {"role": "assistant", "content": "The wind, mostly."},
                {"role": "user", "content": "And the tides?"},
            ],
        )
        assert reply.choices[0].message.content == ANSWER
        assert reply.model == "agent:Researcher"
        assert reply.usage is not None
        assert reply.usage.completion_tokens == USAGE["completion_tokens"]

        chunks = list(
            client.chat.completions.create(
                model="agent:Researcher",
                messages=[{"role": "user", "content": "Why are there tides?"}],
                stream=True,
            )
        )
        streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert streamed == ANSWER

    kept = _kept(served.data_dir)
    assert sorted(kept) == ["And the tides?", "Why are there tides?"]
    agent_id, texts = kept["And the tides?"]
    assert agent_id not in ("", "parley")  # Researcher's, not the plain chat's
    # the client's earlier turns came before its question, its system prompt did not
    assert texts[:4] == ["What moves the sea?", "The wind, mostly.", "And the tides?", ANSWER]


def _writer(notes: Path, rule: bool) -> Any:
    """Make the agent Writer, which may write files, and share ``notes`` with Parley (with a
    rule that lets Writer write there unasked when ``rule``)."""

    def prepare(data_dir: Path) -> None:
        code, _, err = run_parley(
            "agents", "add", "Writer", "--thread-model", "--tool", "write_file",
            "--instructions", "Write what you are asked to.", "--data-dir", str(data_dir),
        )  # fmt: skip
        assert code == 0, err

        async def share() -> None:
            ws = await Workspace.open(data_dir)
            try:
                await ws.tools.grant_folder(notes)
                if rule:
                    await ws.agents.add_rule(
                        await ws.agents.get("Writer"),
                        ArgumentRule(
                            tool="write_file",
                            kind="folder",
                            argument="path",
                            value=str(notes.resolve()),
                        ),
                    )
            finally:
                await ws.aclose()

        asyncio.run(share())

    return prepare


def _write_script(target: Path) -> list[dict[str, Any]]:
    return [
        {
            "text": "",
            "tool_calls": [
                {"name": "write_file", "args": {"path": str(target), "content": "tide table"}}
            ],
        },
        {"text": "Done: the tide table is written.", "usage": USAGE},
    ]


def test_a_call_that_needs_approval_is_denied_with_nobody_at_the_window(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    target = notes / "tides.txt"
    script = _write_script(target)
    with (
        serving(tmp_path, script=script, prepare=_writer(notes, rule=False)) as served,
        anthropic.Anthropic(
            base_url=served.base_url.removesuffix("/v1"), api_key=served.key, max_retries=0
        ) as client,
    ):
        reply = client.messages.create(
            model="agent:Writer",
            max_tokens=200,
            messages=[{"role": "user", "content": "Write the tide table to notes."}],
        )
    text = "".join(b.text for b in reply.content if b.type == "text")
    assert "Parley denied write_file: it needs the owner's approval" in text
    assert not target.exists()


def test_a_rule_made_ahead_lets_the_agent_write_through_the_api(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    target = notes / "tides.txt"
    script = _write_script(target)
    with (
        serving(tmp_path, script=script, prepare=_writer(notes, rule=True)) as served,
        _client(served) as client,
    ):
        reply = client.chat.completions.create(
            model="agent:Writer",
            messages=[{"role": "user", "content": "Write the tide table to notes."}],
        )
    assert reply.choices[0].message.content == "Done: the tide table is written."
    assert target.read_text(encoding="utf-8") == "tide table"
