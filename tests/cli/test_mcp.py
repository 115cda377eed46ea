"""``parley mcp``, run as a user would: a real process, a real server, files in a temp dir."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.test_chat import parley
from tests.services.mcp_files import HOSTILE
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


def test_a_hostile_file_is_held_back_line_by_line_until_trusted(tmp_path: Path) -> None:
    source = tmp_path / "shared config.json"
    source.write_text(json.dumps(HOSTILE))
    data = tmp_path / "data"
    held = parley("mcp", "import", str(source), data_dir=data)
    assert held.returncode == 0, held.stderr
    assert held.stdout == "imported notes\ncheck them with: parley mcp list\n"
    assert held.stderr == (
        "skipped leaky: server 'leaky': args: an argument names the keyring secret "
        "'openai/api-key', but secrets are never put on a command line, where any program can "
        "read them (/proc/PID/cmdline); pass it in an environment variable (env) instead\n"
        "held back web: its header 'Authorization' reads the keyring secret 'openai/api-key', "
        "which is not one of its own (mcp/web/...)\n"
        'held back web: it lets every tool run without asking ("policy": "allowed")\n'
        "held back helper: its environment variable 'KEY' reads the keyring secret "
        "'anthropic/api-key', which is not one of its own (mcp/helper/...)\n"
        "held back helper: its environment variable 'ALSO' reads the keyring secret "
        "'mcp/notes/token', which is not one of its own (mcp/helper/...)\n"
        "held back helper: it lets its tool 'shell' run without asking\n"
        "to import web, helper as the file says, run again with --trust: parley mcp import "
        f"'{source}' --trust\n"
    )
    assert list(json.loads((data / "mcp.json").read_text())["mcpServers"]) == ["notes"]

    trusted = parley("mcp", "import", str(source), "--trust", data_dir=data)
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout == (
        "imported web\n"
        "trusted web: its header 'Authorization' reads the keyring secret 'openai/api-key', "
        "which is not one of its own (mcp/web/...)\n"
        'trusted web: it lets every tool run without asking ("policy": "allowed")\n'
        "imported helper\n"
        "trusted helper: its environment variable 'KEY' reads the keyring secret "
        "'anthropic/api-key', which is not one of its own (mcp/helper/...)\n"
        "trusted helper: its environment variable 'ALSO' reads the keyring secret "
        "'mcp/notes/token', which is not one of its own (mcp/helper/...)\n"
        "trusted helper: it lets its tool 'shell' run without asking\n"
        "check them with: parley mcp list\n"
    )
    assert trusted.stderr.splitlines() == [
        "skipped notes: a server named 'notes' is already configured",
        held.stderr.splitlines()[0],  # leaky: a secret never goes on a command line
    ]
    saved = json.loads((data / "mcp.json").read_text())["mcpServers"]
    assert list(saved) == ["notes", "web", "helper"]
    assert all("{keyring:" not in arg for entry in saved.values() for arg in entry.get("args", []))


def test_a_server_named_twice_is_skipped_and_said(tmp_path: Path) -> None:
    source = tmp_path / "twice.json"
    source.write_text('{"mcpServers": {"time": {"command": "uvx"}, "time": {"command": "evil"}}}')
    done = parley("mcp", "import", str(source), data_dir=tmp_path / "data")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "skipped time: the file names server 'time' 2 times, so it is unclear which one is "
        "meant; keep one and import again\n"
    )
    assert not (tmp_path / "data" / "mcp.json").exists()


def test_json_nested_100000_deep_is_one_sentence_for_import_and_for_chat(tmp_path: Path) -> None:
    deep = '{"mcpServers": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    source = tmp_path / "deep.json"
    source.write_text(deep)
    data = tmp_path / "data"
    imported = parley("mcp", "import", str(source), data_dir=data)
    assert (imported.returncode, imported.stdout) == (2, "")
    assert imported.stderr == (
        f"parley: {source} nests its values more than 64 levels deep, which no server list "
        "does; fix it or move it away. Parley has not changed it\n"
    )
    data.mkdir(exist_ok=True)
    (data / "mcp.json").write_text(deep)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "Hello."}]))
    for argv in (
        ("chat", "--tools", "--model", f"scripted:{script}", "Hi"),
        ("mcp", "list"),
    ):
        done = parley(*argv, data_dir=data)
        assert (done.returncode, done.stdout) == (2, ""), argv
        assert done.stderr == (
            f"parley: {data / 'mcp.json'} nests its values more than 64 levels deep, which no "
            "server list does; fix it or move it away. Parley has not changed it\n"
        ), argv
    assert (data / "mcp.json").read_text() == deep


def test_a_name_that_would_forge_output_lines_is_shown_quoted(tmp_path: Path) -> None:
    forged = "x\nimported evil\x1b[2J"
    source = tmp_path / "forged.json"
    source.write_text(json.dumps({"mcpServers": {forged: {"command": "y"}}}))
    done = parley("mcp", "import", str(source), data_dir=tmp_path / "data")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"skipped {forged!r}: {forged!r} cannot name a server: use 1 to 64 letters, digits, "
        "'_', '.' or '-', starting with a letter or digit\n"
    )
