"""A real ``parley serve`` for tests: the server's application under uvicorn on 127.0.0.1 at
a free port, in a thread of the test's process, over a workspace in a folder of the test's
own whose default model is a scripted one, with keys kept in an in-memory keyring (the same
keyring ``parley serve keys`` reaches, run in this process)."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.cli.main import run as parley
from app.core.models.protocol import ChatModel
from app.server.app import MAX_BODY
from app.server.models import ServedModel, ServedModels
from app.server.queue import WAITING
from app.server.run import ParleyServer, listen, workspace_models
from app.services.key_usage import KeyUsage
from app.services.server_keys import ServerKeys
from tests.services.memory_keyring import MemoryKeyring, installed

ANSWER = "Tides follow the moon: its pull lifts the sea on the side that faces it."
"""What the scripted model answers, every time."""

USAGE = {"prompt_tokens": 21, "completion_tokens": 17, "total_tokens": 38}


class OneModel:
    """The server's models when a test gives its own: ``model`` served as ``parley``."""

    def __init__(self, model: ChatModel) -> None:
        self._model = model

    async def listed(self) -> list[ServedModel]:
        return [ServedModel("parley", "parley")]

    async def knows(self, model_id: str) -> bool:
        return model_id == "parley"

    async def model(self, model_id: str) -> ChatModel:
        return self._model


@dataclass
class Served:
    """A running server: where it answers, a key it takes, its data folder, its keyring."""

    base_url: str
    key: str
    data_dir: Path
    keyring: MemoryKeyring
    script: Path


def run_parley(*args: str) -> tuple[int, str, str]:
    """``parley ARGS`` in this process (so it reaches the test's keyring): exit status,
    what it wrote on stdout, what on stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = parley(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def write_script(path: Path, turns: int = 20, script: list[dict[str, Any]] | None = None) -> Path:
    """A scripted model's file: ``script``'s replies, or ``turns`` replies, each
    :data:`ANSWER` with :data:`USAGE`."""
    replies = script if script is not None else [{"text": ANSWER, "usage": USAGE}] * turns
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


@contextmanager
def serving(
    tmp_path: Path,
    *,
    max_body: int = MAX_BODY,
    models: ServedModels | None = None,
    waiting: int = WAITING,
    script: list[dict[str, Any]] | None = None,
    prepare: Callable[[Path], None] | None = None,
    daily_tokens: int | None = None,
    write_deadline: float | None = None,
) -> Iterator[Served]:
    """Start the server with one key, ``ci-bot``, made by ``parley serve keys add``, and
    one agent, ``Researcher``; stop it at the end. It serves the workspace's models
    unless given ``models``, with ``waiting`` requests at most waiting for a model; the
    scripted model answers with ``script`` when given; ``prepare(data_dir)`` runs once the
    agent is made, before the server starts; the key may use ``daily_tokens`` a day when
    given; a streaming client may take ``write_deadline`` seconds to read a piece when
    given."""
    data_dir = tmp_path / "data"
    script_file = write_script(tmp_path / "tides.json", script=script)
    with installed(MemoryKeyring()) as keyring:
        assert isinstance(keyring, MemoryKeyring)
        limit = () if daily_tokens is None else ("--daily-tokens", str(daily_tokens))
        code, out, err = run_parley(
            "serve", "keys", "add", "ci-bot", *limit, "--data-dir", str(data_dir)
        )
        assert code == 0, err
        key = out.strip()
        agent = ("agents", "add", "Researcher", "--thread-model", "--instructions", "Look it up.")
        code, _, err = run_parley(*agent, "--data-dir", str(data_dir))
        assert code == 0, err
        if prepare is not None:
            prepare(data_dir)
        sock = listen("127.0.0.1", 0)
        port = sock.getsockname()[1]
        started = threading.Event()
        holder: list[ParleyServer] = []
        failed: list[BaseException] = []

        async def main() -> None:
            async with workspace_models(data_dir, f"scripted:{script_file}") as opened:
                served = opened.models if models is None else models
                keys = ServerKeys(data_dir)
                server = ParleyServer(
                    served,
                    keys.check,
                    network=opened.network,
                    max_body=max_body,
                    waiting=waiting,
                    limits=KeyUsage(data_dir, keys),
                    **({} if write_deadline is None else {"write_deadline": write_deadline}),
                )
                holder.append(server)
                started.set()
                await server.serve(sock)

        def thread() -> None:
            try:
                asyncio.run(main())
            except BaseException as exc:
                failed.append(exc)
                started.set()

        runner = threading.Thread(target=thread, name="parley-serve", daemon=True)
        runner.start()
        assert started.wait(60), "the server did not start"
        assert not failed, failed
        try:
            yield Served(f"http://127.0.0.1:{port}/v1", key, data_dir, keyring, script_file)
        finally:
            holder[0].stop()
            runner.join(30)
            sock.close()
        assert not failed, failed
