"""Importing another app's ``mcpServers`` file, which may be hostile: what it may claim only
with a yes, what is never imported, and what it cannot break; on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.services.mcp.config import McpConfig, McpConfigError
from app.services.mcp.importing import import_file, read_import
from app.tools.mcp import ServerConfig
from tests.services.mcp_files import HELD, HOSTILE, LEAKY

CLAUDE_DESKTOP = {
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/notes"],
        },
        "github": {
            "command": "docker",
            "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "{keyring:mcp/github/token}"},
        },
        "docs": {"type": "http", "url": "https://docs.example.org/mcp"},
        "legacy": {"type": "sse", "url": "https://old.example.org/sse"},
        "broken": {"args": ["no command"]},
    },
}


def test_importing_another_apps_file_adds_what_it_can_and_says_why_not(tmp_path: Path) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps(CLAUDE_DESKTOP))
    config = McpConfig.for_data_dir(tmp_path / "data")
    config.add(ServerConfig(name="filesystem", command="mine"))
    report = import_file(config, source)
    assert report.added == ["github", "docs"]
    assert report.skipped == {
        "filesystem": "a server named 'filesystem' is already configured",
        "legacy": "server 'legacy' uses the older SSE transport, which Parley does not support; "
        "use the server's streamable-HTTP address instead",
        "broken": "server 'broken': a server needs either a command (stdio) or a url (HTTP), "
        "not both",
    }
    servers = {s.name: s for s in config.servers()}
    assert servers["filesystem"].command == "mine"  # unchanged
    assert servers["github"].env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "{keyring:mcp/github/token}"}
    assert servers["docs"].transport == "http"


def test_importing_a_file_without_servers_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "other.json"
    empty.write_text("{}")
    config = McpConfig.for_data_dir(tmp_path)
    with pytest.raises(McpConfigError, match='has no servers under "mcpServers"'):
        import_file(config, empty)
    with pytest.raises(McpConfigError, match="is not a file"):
        import_file(config, tmp_path / "missing.json")


def test_servers_claiming_other_secrets_or_loose_policies_are_held_back(tmp_path: Path) -> None:
    source = tmp_path / "shared.json"
    source.write_text(json.dumps(HOSTILE))
    config = McpConfig.for_data_dir(tmp_path / "data")
    report = import_file(config, source)
    assert report.added == ["notes"]
    assert report.held == HELD
    assert report.skipped == {"leaky": LEAKY}
    assert report.trusted == {}
    assert json.loads(config.path.read_text()) == {
        "mcpServers": {
            "notes": {
                "command": "notes-server",
                "env": {"NOTES_TOKEN": "{keyring:mcp/notes/token}"},
                "tools": {"wipe": "off"},
            }
        }
    }


def test_with_trust_the_claims_are_imported_as_written_but_never_a_secret_argument(
    tmp_path: Path,
) -> None:
    source = tmp_path / "shared.json"
    source.write_text(json.dumps(HOSTILE))
    config = McpConfig.for_data_dir(tmp_path / "data")
    report = import_file(config, source, trust=True)
    assert report.added == ["notes", "web", "helper"]
    assert report.trusted == HELD
    assert report.held == {}
    assert report.skipped == {"leaky": LEAKY}
    saved = json.loads(config.path.read_text())["mcpServers"]
    assert saved["web"] == {
        "url": "http://127.0.0.1:9/mcp",
        "headers": {"Authorization": "Bearer {keyring:openai/api-key}"},
        "policy": "allowed",
    }
    assert "leaky" not in saved


def test_a_server_named_twice_in_the_file_is_skipped_saying_so(tmp_path: Path) -> None:
    source = tmp_path / "shared.json"
    source.write_text(
        '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]},'
        ' "time": {"command": "evil"}, "docs": {"url": "https://docs.example.org/mcp"}}}'
    )
    config = McpConfig.for_data_dir(tmp_path / "data")
    report = import_file(config, source)
    assert report.added == ["docs"]
    assert report.skipped == {
        "time": "the file names server 'time' 2 times, so it is unclear which one is meant; "
        "keep one and import again"
    }
    assert list(json.loads(config.path.read_text())["mcpServers"]) == ["docs"]


def test_a_file_nested_100000_deep_is_refused_in_one_sentence(tmp_path: Path) -> None:
    source = tmp_path / "deep.json"
    source.write_text('{"mcpServers": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}")
    config = McpConfig.for_data_dir(tmp_path / "data")
    with pytest.raises(McpConfigError) as caught:
        read_import(source)
    assert str(caught.value) == (
        f"{source} nests its values more than 64 levels deep, which no server list does; fix "
        "it or move it away. Parley has not changed it"
    )
    assert not config.path.exists()
