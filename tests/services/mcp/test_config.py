"""``mcp.json``: adding, editing and removing servers, and files it refuses to read, on real
files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.services.mcp.config import McpConfig, McpConfigError, mcp_log_dir
from app.tools.mcp import ServerConfig


def test_a_new_data_dir_has_no_servers_and_no_file(tmp_path: Path) -> None:
    config = McpConfig.for_data_dir(tmp_path)
    assert config.servers() == []
    assert config.path == tmp_path / "mcp.json"
    assert not config.path.exists()
    assert mcp_log_dir(tmp_path) == tmp_path / "logs" / "mcp"


def test_add_edit_and_remove_write_the_shared_file_format(tmp_path: Path) -> None:
    config = McpConfig.for_data_dir(tmp_path)
    config.add(ServerConfig(name="time", command="uvx", args=["mcp-server-time"]))
    config.add(ServerConfig(name="docs", url="https://docs.example.org/mcp", policy="approval"))
    config.set_policy("time", "off", tool="convert_time")
    config.edit("docs", timeout=10)
    assert json.loads(config.path.read_text()) == {
        "mcpServers": {
            "time": {
                "command": "uvx",
                "args": ["mcp-server-time"],
                "tools": {"convert_time": "off"},
            },
            "docs": {"url": "https://docs.example.org/mcp", "policy": "approval", "timeout": 10.0},
        }
    }
    assert oct(config.path.stat().st_mode & 0o777) == "0o600"
    config.remove("time")
    assert [s.name for s in config.servers()] == ["docs"]


def test_mistakes_are_refused_with_one_sentence_and_change_nothing(tmp_path: Path) -> None:
    config = McpConfig.for_data_dir(tmp_path)
    config.add(ServerConfig(name="time", command="uvx"))
    before = config.path.read_bytes()
    with pytest.raises(McpConfigError, match="a server named 'time' is already configured"):
        config.add(ServerConfig(name="time", command="other"))
    with pytest.raises(McpConfigError, match=r"no MCP server named 'tmie' \(configured: time\)"):
        config.remove("tmie")
    with pytest.raises(McpConfigError, match="'ftp://x' is not an http:// or https:// address"):
        config.edit("time", command=None, url="ftp://x")
    with pytest.raises(McpConfigError, match="servers have no setting"):
        config.edit("time", colour="red")
    assert config.path.read_bytes() == before


def refusal(path: Path) -> str:
    """What adding a server to the list in ``path`` says; the file is left as it was."""
    before = path.read_bytes()
    with pytest.raises(McpConfigError) as caught:
        McpConfig(path).add(ServerConfig(name="docs", url="https://docs.example.org/mcp"))
    assert path.read_bytes() == before
    return str(caught.value)


def test_a_damaged_file_is_reported_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"time": {"command": "uvx",}}}')
    assert refusal(path) == (
        f"{path} is not valid JSON (line 1, column 43: Expecting property name enclosed in "
        "double quotes); fix it or move it away. Parley has not changed it"
    )


def test_keys_parley_does_not_know_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"theme": "dark", "mcpServers": {"t": {"command": "x", "x-y": 1}}}))
    McpConfig(path).edit("t", policy="allowed")
    assert json.loads(path.read_text()) == {
        "theme": "dark",
        "mcpServers": {"t": {"x-y": 1, "command": "x", "policy": "allowed"}},
    }


def deep_json(levels: int) -> str:
    """A JSON file whose one server's entry nests ``levels`` arrays deep."""
    return (
        '{"mcpServers": {"deep": {"command": "x", "extra": ' + "[" * levels + "]" * levels + "}}}"
    )


def test_a_file_nested_100000_deep_is_one_sentence_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(deep_json(100_000))
    expected = (
        f"{path} nests its values more than 64 levels deep, which no server list does; fix it "
        "or move it away. Parley has not changed it"
    )
    assert refusal(path) == expected
    for reading in (McpConfig(path).servers, McpConfig(path).problems):
        with pytest.raises(McpConfigError) as caught:
            reading()
        assert str(caught.value) == expected
    path.write_text(deep_json(500))  # within Python's own limit, still no server list
    assert refusal(path) == expected


def test_a_server_named_twice_is_reported_and_neither_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    text = (
        '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]},\n'
        '                "time": {"command": "other"},\n'
        '                "docs": {"url": "https://docs.example.org/mcp", "env": {},'
        ' "env": {"A": "1"}}}}'
    )
    path.write_text(text)
    assert refusal(path) == (
        f"{path} names the server 'time' 2 times; keep one of them, or move the file away. "
        "Parley has not changed it"
    )
    config = McpConfig(path)
    path.write_text(text.replace('"time": {"command": "other"}', '"clock": {"command": "other"}'))
    assert [s.name for s in config.servers()] == ["time", "clock"]
    assert config.problems() == {
        "docs": "server 'docs': its entry names 'env' more than once, so it is unclear which "
        "one is meant; keep one"
    }


def test_a_secret_in_a_commands_arguments_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    entry = {"command": "server", "args": ["--token", "{keyring:mcp/gh/token}"]}
    path.write_text(json.dumps({"mcpServers": {"gh": entry}}))
    config = McpConfig(path)
    assert config.servers() == []
    assert config.problems() == {
        "gh": "server 'gh': args: an argument names the keyring secret 'mcp/gh/token', but "
        "secrets are never put on a command line, where any program can read them "
        "(/proc/PID/cmdline); pass it in an environment variable (env) instead"
    }


def test_a_file_far_too_big_for_a_server_list_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {}}' + " " * (10 * 1024 * 1024))
    assert refusal(path) == (
        f"{path} is larger than 10 MB, far more than a server list; fix it or move it away. "
        "Parley has not changed it"
    )
