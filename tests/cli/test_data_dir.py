"""Every ``parley`` subcommand takes ``--data-dir``, before or after the subcommand's own
words, as ``PARLEY_DATA_DIR`` does: parsed for each command the parser has, and run for
real with ``parley models`` and ``parley threads`` (a real hub on 127.0.0.1 for the
download)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import build_parser
from app.services.models.catalogue import CATALOGUE
from tests.cli.process import parley
from tests.services.hub_server import HostedFile, HubServer


def _commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """Every command line the parser knows, with a value for each required word."""
    filled = list(words)
    for action in parser._actions:
        if action.option_strings or action.nargs in ("?", "*", argparse.SUPPRESS):
            continue
        if isinstance(action, argparse._SubParsersAction):
            continue
        filled.append(str(next(iter(action.choices))) if action.choices else "x")
    yield tuple(filled)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _commands(child, (*words, name))


COMMANDS = sorted(set(_commands(build_parser())))


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_takes_data_dir_before_and_after_its_words(command: tuple[str, ...]) -> None:
    parser = build_parser()
    before = parser.parse_args(["--data-dir", "D1", *command])
    after = parser.parse_args([*command, "--data-dir", "D2"])
    assert (before.data_dir, after.data_dir) == ("D1", "D2")


def test_the_commands_checked_include_every_models_action() -> None:
    assert {c[:2] for c in COMMANDS if c[:1] == ("models",)} >= {
        ("models", "list"), ("models", "download"), ("models", "remove"), ("models", "add")
    }  # fmt: skip


def test_models_download_with_data_dir_installs_into_that_folder(tmp_path: Path) -> None:
    entry = next(e for e in CATALOGUE if not e.sha256)
    hub = HubServer().start()
    try:
        hub.host(entry.repo, entry.filename, HostedFile(b"GGUF" + bytes(1000)))
        data = tmp_path / "data"
        argv = ("models", "download", entry.name, "--data-dir", str(data))
        done = parley(*argv, PARLEY_HUB_URL=hub.url)
    finally:
        hub.stop()
    assert done.returncode == 0, done.stderr
    target = data / "models" / entry.filename
    assert done.stdout == f'installed {entry.name}: parley chat --model gguf:{target} "..."\n'
    assert target.read_bytes() == b"GGUF" + bytes(1000)
    listed = parley("models", "list", "--data-dir", str(data))
    assert f"installed: --model gguf:{target}" in listed.stdout


def test_models_add_and_threads_use_the_data_dir_given_after_the_command(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + bytes(100))
    data = tmp_path / "data"
    added = parley("models", "add", str(gguf), "--data-dir", str(data))
    assert added.returncode == 0, added.stderr
    assert json.loads((data / "models" / "models.json").read_text())
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "Hello."}]))
    chat = parley("chat", "--model", f"scripted:{script}", "Hi there", "--data-dir", str(data))
    assert chat.returncode == 0, chat.stderr
    listed = parley("--data-dir", str(data), "threads")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.endswith("  Hi there\n")
