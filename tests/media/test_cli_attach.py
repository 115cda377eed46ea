"""``parley chat --attach``: a real process, a real database, files good and bad."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from app.store import Store
from tests.cli.test_chat import parley
from tests.media import corpus


def _thread_id(stderr: str) -> str:
    line = next(x for x in stderr.splitlines() if x.startswith("(thread "))
    return line[len("(thread ") : -1]


def _export(data_dir: Path, thread_id: str) -> dict[str, Any]:
    async def read() -> bytes:
        async with Store.open(data_dir / "parley.db") as store:
            return await store.export_json(thread_id)

    exported: dict[str, Any] = json.loads(asyncio.run(read()))
    return exported


def _user_message(exported: dict[str, Any]) -> dict[str, Any]:
    context = exported["state"]["context"]
    return next(m for m in context if m["role"] == "user")


def test_good_files_attach_and_bad_ones_are_named(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "Got them."}]))
    (tmp_path / "notes.txt").write_text("Buy milk.\nCall Ada.")
    (tmp_path / "photo.png").write_bytes(corpus.image("PNG"))
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "folder").mkdir()
    (tmp_path / "cut.jpg").write_bytes(corpus.image("JPEG")[:300])
    files = ["notes.txt", "photo.png", "empty.txt", "missing.pdf", "folder", "cut.jpg"]
    attach = [arg for name in files for arg in ("--attach", str(tmp_path / name))]
    done = parley(
        "chat", "--model", f"scripted:{script}", *attach, "Sort these out", data_dir=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "Got them." in done.stdout
    assert done.stderr.splitlines()[:5] == [
        "not attached: empty.txt: the file is empty (0 bytes)",
        "not attached: missing.pdf: there is no such file",
        "not attached: folder: it is a folder, not a file; attach the files inside it instead",
        "not attached: cut.jpg: it is not a readable image: the file is damaged or cut off",
        "note: photo.png was left out: script cannot take images.",
    ]
    assert "Traceback" not in done.stderr

    message = _user_message(_export(tmp_path, _thread_id(done.stderr)))
    assert [b["type"] for b in message["content"]] == ["text", "document", "image"]
    assert message["content"][0]["text"] == "Sort these out"
    assert message["content"][1]["text"] == "Buy milk.\nCall Ada."
    assert message["metadata"]["notes"] == ["photo.png was left out: script cannot take images."]


def test_attaching_only_bad_files_still_runs_the_turn(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "Nothing came through."}]))
    done = parley(
        "chat",
        "--model",
        f"scripted:{script}",
        "--attach",
        str(tmp_path / "nope.bin"),
        "What did I send?",
        data_dir=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Nothing came through." in done.stdout
    assert done.stderr.splitlines()[0] == "not attached: nope.bin: there is no such file"


def test_attach_needs_a_prompt(tmp_path: Path) -> None:
    done = parley("chat", "--attach", str(tmp_path / "a.txt"), data_dir=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "--attach needs a PROMPT to send the files with\n"


@pytest.mark.slow
def test_the_bundled_model_says_it_cannot_see_an_image(tmp_path: Path) -> None:
    (tmp_path / "cat.png").write_bytes(corpus.image("PNG"))
    done = parley(
        "chat", "--attach", str(tmp_path / "cat.png"), "What is in the picture?", data_dir=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert done.stderr.splitlines()[0] == (
        "note: cat.png was left out: SmolLM2-135M-Instruct.Q4_1 cannot take images."
    )
