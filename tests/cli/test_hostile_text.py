"""What a model and an MCP server send reaches the terminal with its controls escaped: no
ESC, C1, clipboard write or bidi override gets through raw; letters, emoji, newlines and tabs
are printed as they are. A real process (or the command line's entry, for what starts no
server), a real server, the exact bytes printed."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

from app.cli import run
from tests.cli.test_chat import parley_raw
from tests.tools.mcp.hostile_server import HOSTILE

SERVER = Path(__file__).parents[1] / "tools" / "mcp" / "hostile_server.py"

SHOWN = (
    r"A\x1b[2J\x1b[8mhidden\x1b[0m \x1b]52;c;cm0gLXJmIH4=\x07 \x1bP+q\x1b\ \x07\x08\x7f\x9b31m "
    r"\u202aa\u202bb\u202cc\u202dd\u202ee \u2066f\u2067g\u2068h\u2069 \u200ei\u200fj\u061ck "
    "é日本👍"
)
"""``HOSTILE`` as the terminal shows it."""

AS_JSON = (
    r"A\u001b[2J\u001b[8mhidden\u001b[0m \u001b]52;c;cm0gLXJmIH4=\u0007 \u001bP+q\u001b\\ "
    r"\u0007\b\u007f\u009b31m \u202aa\u202bb\u202cc\u202dd\u202ee \u2066f\u2067g\u2068h\u2069 "
    r"\u200ei\u200fj\u061ck é日本👍"
)
"""``HOSTILE`` inside the JSON of a call's arguments, as the terminal shows it."""

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What must never reach the terminal as it is."""

ASK = "Allow this call? [y/yes/approve, n/no/deny, e/edit, always]: \n"


def _servers(data: Path) -> None:
    """Configure the hostile server, and the same server broken at start."""
    data.mkdir(parents=True, exist_ok=True)
    evil = {"command": sys.executable, "args": [str(SERVER)], "policy": "approval"}
    broken = {"command": sys.executable, "args": [str(SERVER), "--exit-at-start"]}
    servers = {"mcpServers": {"evil": evil, "broken": broken}}
    (data / "mcp.json").write_text(json.dumps(servers), encoding="utf-8")


def _text(raw: bytes | str) -> str:
    """What was printed, checked to hold no control."""
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    assert not RAW.search(text), f"a control reached the terminal: {text!r}"
    return text


BROKEN = (
    "MCP server broken is not available: server 'broken' exited before it answered "
    f"(last words: broken: {SHOWN})\n"
)


def test_a_turn_prints_replies_approvals_and_errors_with_their_controls_escaped(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    _servers(data)
    script = tmp_path / "script.json"
    peek = {"name": "evil__peek", "args": {"path": f"n{HOSTILE}"}}
    turns = [
        {"text": f"Look: {HOSTILE}", "tool_calls": [peek]},  # streamed 4 characters at a time
        {"tool_calls": [{"name": "evil__fail", "args": {}}]},
        {"text": f"Done:\n\tline\r{HOSTILE}"},
    ]
    script.write_text(json.dumps(turns), encoding="utf-8")
    done = parley_raw(
        "chat", "--tools", "--model", f"scripted:{script}", f"hi {HOSTILE}",
        data_dir=data, stdin=b"y\ny\n",
    )  # fmt: skip
    out, err = _text(done.stdout), _text(done.stderr)
    assert done.returncode == 0, err
    assert out == (
        f"Look: {SHOWN}\n"
        "Tool call 1 of 1 needs your approval: evil__peek\n"
        f"  Reads a note {SHOWN}\n"
        "  Permissions: mcp:evil\n"
        "  Arguments: {\n"
        f'    "path": "n{AS_JSON}"\n'
        "  }\n"
        f"{ASK}"
        "[evil__peek: started]\n"
        "\n"
        "Tool call 1 of 1 needs your approval: evil__fail\n"
        "  Always fails.\n"
        "  Permissions: mcp:evil\n"
        "  Arguments: {}\n"
        f"{ASK}"
        "[evil__fail: started]\n"
        "\n"
        "[evil__fail: error Tool 'evil__fail' failed: McpToolError: Error executing tool fail: "
        f"cannot: {SHOWN}]\n"
        f"Done:\n\tline\\r{SHOWN}\n"
    )
    thread_id = err.rsplit("(thread ", 1)[1].rstrip(")\n")
    assert err == f"{BROKEN}(thread {thread_id})\n"

    listed = parley_raw("threads", data_dir=data)
    assert _text(listed.stdout) == (
        f"{thread_id}  hi "
        r"A\x1b[2J\x1b[8mhidden\x1b[0m \x1b]52;c;cm0gLXJmIH4=\x07 \x1bP+q\x1b\ \x07\x08\x7f\x9b31m "
        "…\n"
    )
    found = parley_raw("threads", "--search", "Look", data_dir=data)
    assert _text(found.stdout) == f"{thread_id}  [Look]: {SHOWN}\n"


def test_a_model_error_is_printed_with_its_controls_escaped(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"error": HOSTILE}]), encoding="utf-8")
    done = parley_raw("chat", "--model", f"scripted:{script}", "Hi", data_dir=tmp_path)
    err = _text(done.stderr)
    assert done.returncode == 1
    assert _text(done.stdout) == "\n"
    assert err.startswith(f"error: {SHOWN}\n(thread "), err


def test_mcp_list_prints_descriptions_and_server_errors_with_their_controls_escaped(
    tmp_path: Path,
) -> None:
    _servers(tmp_path)
    listed = parley_raw("mcp", "list", data_dir=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert _text(listed.stdout) == (
        f"evil  (stdio: {sys.executable} {SERVER})  running\n"
        f"  evil__peek  approval  Reads a note {SHOWN}\n"
        "  evil__fail  approval  Always fails.\n"
        f"  log: {tmp_path / 'logs' / 'mcp' / 'evil.log'}\n"
        f"broken  (stdio: {sys.executable} {SERVER} --exit-at-start)  failed: server 'broken' "
        f"exited before it answered (last words: broken: {SHOWN})\n"
    )


def test_an_imported_file_s_names_and_commands_are_printed_with_their_controls_escaped(
    tmp_path: Path,
) -> None:
    source = tmp_path / "servers.json"
    servers = {f"x{HOSTILE}": {"command": "uvx"}, "ok": {"command": f"uvx{HOSTILE}"}}
    source.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    data = ["--data-dir", str(tmp_path / "data")]
    out, err = io.StringIO(), io.StringIO()
    assert run(["mcp", "import", str(source), *data], out, err) == 0
    in_repr = SHOWN.replace("\\x1b\\ ", "\\x1b\\\\ ")  # a repr doubles the backslash
    assert _text(out.getvalue()) == "imported ok\ncheck them with: parley mcp list\n"
    assert _text(err.getvalue()) == (
        f"skipped 'x{in_repr}': 'x{in_repr}' cannot name a server: use 1 to 64 letters, digits, "
        "'_', '.' or '-', starting with a letter or digit\n"
    )
    out = io.StringIO()
    assert run(["mcp", "list", *data], out, io.StringIO()) == 0
    assert _text(out.getvalue()) == (
        f"ok  (stdio: uvx{SHOWN})  failed: server 'ok' could not start: the command "
        f"'uvx{in_repr}' was not found; check that it is installed and on PATH\n"
    )
