"""``parley mcp``, run as a user would: a real process, a real server, files in a temp dir."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.test_cli import parley
from tests.tools.mcp.helpers import DEMO


@pytest.mark.slow
def test_add_list_and_remove_a_stdio_server(tmp_path: Path) -> None:
    added = parley(
        "mcp", "add", "demo", "--policy", "approval", "--", sys.executable, str(DEMO),
        data_dir=tmp_path,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith(f"added demo (stdio: {sys.executable} {DEMO})")
    assert json.loads((tmp_path / "mcp.json").read_text()) == {
        "mcpServers": {
            "demo": {"command": sys.executable, "args": [str(DEMO)], "policy": "approval"}
        }
    }
    listed = parley("mcp", "list", data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"demo  (stdio: {sys.executable} {DEMO})  running"
    assert "  demo__add         approval  Add two whole numbers." in lines
    assert f"  log: {tmp_path / 'logs' / 'mcp' / 'demo.log'}" in lines
    removed = parley("mcp", "remove", "demo", data_dir=tmp_path)
    assert (removed.returncode, removed.stdout) == (0, "removed demo\n")
    empty = parley("mcp", "list", data_dir=tmp_path)
    assert empty.stdout.startswith("No MCP servers are configured")


@pytest.mark.slow
def test_an_http_server_and_one_that_cannot_start_are_listed_with_reasons(
    tmp_path: Path,
) -> None:
    added = parley(
        "mcp", "add", "docs", "--url", "http://127.0.0.1:9/mcp", "--header", "X-Team=blue",
        data_dir=tmp_path,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    parley("mcp", "add", "gone", "--", "parley-no-such-command", data_dir=tmp_path)
    listed = parley("mcp", "list", data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith(
        "docs  (http: http://127.0.0.1:9/mcp)  failed: server 'docs' could not start: "
        "nothing answers at http://127.0.0.1:9/mcp"
    )
    assert lines[1].startswith(
        "gone  (stdio: parley-no-such-command)  failed: server 'gone' could not start: the "
        "command 'parley-no-such-command' was not found"
    )
    assert "Traceback" not in listed.stderr


def test_import_and_bad_input_each_get_one_sentence(tmp_path: Path) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {"command": "uvx", "args": ["mcp-server-time"]},
                    "old": {"type": "sse", "url": "https://old.example.org/sse"},
                }
            }
        )
    )
    imported = parley("mcp", "import", str(source), data_dir=tmp_path / "data")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith("imported time\n")
    assert imported.stderr.startswith("skipped old: server 'old' uses the older SSE transport")
    again = parley("mcp", "import", str(source), data_dir=tmp_path / "data")
    assert again.returncode == 1
    assert "skipped time: a server named 'time' is already configured" in again.stderr

    cases = {
        ("mcp", "add", "x"): "parley: parley mcp add needs a command after -- or --url",
        ("mcp", "add", "x", "--url", "http://h/mcp", "--", "cmd"): (
            "parley: give either a command after -- or --url, not both"
        ),
        ("mcp", "add", "a b", "--", "cmd"): "parley: 'a b' cannot name a server",
        ("mcp", "add", "x", "--env", "TOKEN", "--", "cmd"): (
            "parley: --env 'TOKEN' needs the form NAME=VALUE"
        ),
        ("mcp", "remove", "nope"): "parley: there is no MCP server named 'nope'",
        ("mcp", "import", str(tmp_path / "missing.json")): "parley: ",
    }
    for argv, expected in cases.items():
        done = parley(*argv, data_dir=tmp_path / "data")
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.startswith(expected), (argv, done.stderr)
        assert "Traceback" not in done.stderr
