"""An agent's run asked through ``parley serve`` is kept as a thread marked as asked through
the API, unless the key says to keep none (``parley serve keys add NAME --no-threads``):
then the reply comes all the same, whole or streamed, and no thread is left."""

from __future__ import annotations

import asyncio
from pathlib import Path

import openai

from app.services.workspace import Workspace
from tests.server.harness import ANSWER, run_parley, serving

ASK = [{"role": "user", "content": "Why are there tides?"}]


def _threads(data_dir: Path) -> list[tuple[str, str]]:
    """Each kept thread's title and where it was started from."""

    async def read() -> list[tuple[str, str]]:
        ws = await Workspace.open(data_dir)
        try:
            return [(s.thread.title, s.thread.origin) for s in await ws.threads.list_all()]
        finally:
            await ws.aclose()

    return asyncio.run(read())


def test_an_agents_run_is_a_thread_marked_api_unless_the_key_keeps_none(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        data = str(served.data_dir)
        code, quiet_key, err = run_parley(
            "serve", "keys", "add", "quiet", "--no-threads", "--data-dir", data
        )
        assert code == 0, err
        with openai.OpenAI(
            base_url=served.base_url, api_key=quiet_key.strip(), max_retries=0
        ) as quiet:
            whole = quiet.chat.completions.create(model="agent:Researcher", messages=ASK)
            assert whole.choices[0].message.content == ANSWER
            streamed = quiet.chat.completions.create(
                model="agent:Researcher", messages=ASK, stream=True
            )
            assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == (
                ANSWER
            )
        assert _threads(served.data_dir) == []

        with openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as api:
            kept = api.chat.completions.create(model="agent:Researcher", messages=ASK)
            assert kept.choices[0].message.content == ANSWER
        assert _threads(served.data_dir) == [("Why are there tides?", "api")]

        code, out, err = run_parley("serve", "keys", "list", "--data-dir", data)
        assert (code, err) == (0, "")
        assert (
            out.splitlines()[1] == "quiet: 76 tokens used today (no daily limit); keeps no threads"
        )
        code, out, err = run_parley(
            "serve", "keys", "remove", "quiet", "--no-threads", "--data-dir", data
        )
        assert (code, out, err) == (2, "", "--no-threads goes with parley serve keys add\n")
