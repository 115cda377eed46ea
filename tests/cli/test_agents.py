"""``parley agents`` and ``parley chat --agent``: every command on a real data folder, and
agent files from anywhere — each hostile one refused, or asked about, in one sentence."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import run
from app.store import Store
from tests.cli.process import parley


def cli(data_dir: Path, *args: str) -> tuple[int, str, str]:
    """``parley ARGS`` in this process on ``data_dir``: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = run([*args, "--data-dir", str(data_dir)], out, err)
    return code, out.getvalue(), err.getvalue()


def agent_file(**fields: Any) -> bytes:
    body: dict[str, Any] = {"format": "parley.agent", "version": 1, "name": "Scout"}
    return json.dumps({**body, **fields}).encode()


def test_add_list_show_edit_and_remove(tmp_path: Path) -> None:
    data = tmp_path / "data"
    code, _, err = cli(
        data, "agents", "add", "Scout", "--description", "Finds things",
        "--instructions", "Look things up.", "--tool", "current_time", "--tool", "fetch_url",
        "--starter", "What time is it?", "--max-model-calls", "6",
    )  # fmt: skip
    assert (code, err) == (0, "added agent Scout\n")
    code, out, _ = cli(data, "agents", "list")
    assert code == 0
    parley_line = "Parley (built in)  Plain chat, no tools.  [0 threads]\n"
    assert out == parley_line + "Scout  Finds things  [0 threads]\n"
    code, out, _ = cli(data, "agents", "show", "scout")
    assert code == 0
    assert "tools: current_time, fetch_url\n" in out and "limits: max_model_calls 6\n" in out
    assert "model: the thread's model\n" in out and "\n  What time is it?\n" in out
    assert out.endswith("instructions:\n  Look things up.\n")
    code, _, err = cli(data, "agents", "edit", "Scout", "--name", "Finder", "--tool", "calculator")
    assert (code, err) == (0, "changed agent Finder\n")
    code, out, _ = cli(data, "agents", "show", "Finder")
    assert "tools: calculator\n" in out and "limits: max_model_calls 6\n" in out
    assert cli(data, "agents", "remove", "finder")[2] == "removed agent Finder\n"
    assert (
        cli(data, "agents", "list")[1] == "Parley (built in)  Plain chat, no tools.  [0 threads]\n"
    )


REFUSED = [
    (["add", "X", "--tool", "rm_rf"], "There is no tool called rm_rf here."),
    (["add", "X", "--delegate", "Nobody"], "There is no agent called 'Nobody' to delegate to."),
    (["add", "X", "--max-tool-calls", "0"], "Limits must be positive: max_tool_calls is 0."),
    (
        ["add", "X", *["--starter", "s"] * 4],
        "An agent has at most 3 starter prompts; this one has 4.",
    ),
    (["add", "PARLEY"], "Another agent is already called Parley."),
    (["remove", "Parley"], "Parley is built in and cannot be removed"),
    (["show", "Ghost"], "there is no agent called 'Ghost'; see parley agents list"),
]


@pytest.mark.parametrize(("args", "sentence"), REFUSED)
def test_what_cannot_be_done_says_so_in_one_sentence(
    tmp_path: Path, args: list[str], sentence: str
) -> None:
    code, out, err = cli(tmp_path, "agents", *args)
    assert (code, out, err) == (2, "", f"parley: {sentence}\n")


def test_a_delegate_loop_is_refused_when_saved(tmp_path: Path) -> None:
    assert cli(tmp_path, "agents", "add", "B")[0] == 0
    assert cli(tmp_path, "agents", "add", "A", "--delegate", "B")[0] == 0
    code, _, err = cli(tmp_path, "agents", "edit", "B", "--delegate", "a")
    assert (code, err) == (2, "parley: That makes a loop of delegation: B → A → B.\n")


def test_an_exported_agent_imports_whole_into_another_folder(tmp_path: Path) -> None:
    home, other = tmp_path / "home", tmp_path / "other"
    cli(home, "agents", "add", "Helper")
    cli(
        home, "agents", "add", "Writer", "--model", "openai:gpt-4o", "--instructions",
        "Write plainly.\nShort lines.", "--tool", "calculator", "--delegate", "Helper",
        "--starter", "Draft a memo", "--max-cost", "0.5",
    )  # fmt: skip
    file = tmp_path / "Writer.agent.json"
    code, _, err = cli(home, "agents", "export", "Writer", str(file))
    assert (code, err) == (0, f"exported agent Writer to {file}\n")
    body = json.loads(file.read_bytes())
    assert body["format"] == "parley.agent" and body["version"] == 1
    assert body["secrets"] == ["keyring:openai/api-key"]  # a reference, never the key
    assert body["limits"] == {
        "max_model_calls": None, "max_tool_calls": None, "max_tokens": None, "max_cost": 0.5,
    }  # fmt: skip
    assert cli(home, "agents", "export", "Writer", str(file))[0] == 2  # no --force: kept

    code, out, err = cli(other, "agents", "import", str(file))
    assert code == 1 and err == "nothing was added (--yes adds it without asking)\n"
    assert "Tools: calculator" in out and "Delegates: Helper" in out
    assert "  ! These agents it delegates to do not exist here and are left out: Helper.\n" in out
    cli(other, "agents", "add", "Helper")
    code, out, err = cli(other, "agents", "import", str(file), "--yes")
    assert (code, err) == (0, "added agent Writer\n")
    assert "!" not in out
    assert cli(other, "agents", "show", "Writer")[1] == cli(home, "agents", "show", "Writer")[1]


HOSTILE = [
    (
        agent_file(colour="red"),
        "The file has fields Parley does not know ('colour'); nothing was read.",
    ),
    (
        agent_file(instructions="x" * 40_000),
        "The instructions are 40,000 characters long; at most 32,000 fit. Nothing was imported.",
    ),
    (
        agent_file(instructions="Use sk-abcdefghijklmnopqrstuvwx to call."),
        "The file's 'instructions' holds what looks like a secret in clear; keys go in the "
        "keyring, never in an agent file, so it was not imported.",
    ),
    (
        agent_file(secrets=["hunter2-my-password"]),
        'The file\'s "secrets" hold something other than keyring references '
        "(keyring:SERVICE/NAME): a secret in clear is never imported.",
    ),
    (
        agent_file(name="Sc\x1b]52;c;aGk=\x07out"),
        "The name holds control or invisible characters; type it plainly. Nothing was imported.",
    ),
    (agent_file(delegates=["Scout"]), "An agent cannot delegate to itself. Nothing was imported."),
    (
        agent_file(tools="calculator"),
        "The file's 'tools' is not right: input should be a valid list.",
    ),
    (
        agent_file(limits={"max_calls": 3}),
        "The file's limits name 'max_calls'; an agent's limits are max_model_calls, "
        "max_tool_calls, max_tokens, max_cost.",
    ),
    (
        agent_file(version=9),
        "The file was written by a newer Parley (agent file version 9); update Parley to read it.",
    ),
    (
        b'{"format": "parley.agent", "format": "x"}',
        "The file names 'format' twice, so it was not read.",
    ),
    (b"[" * 100_000, "The file nests too deeply to be an agent file."),
    (b"\xff\xfe", "The file is not UTF-8 text, so it is not an agent file."),
    (
        b" " * 300_000,
        "The file is larger than 256 KB, the most an agent file may be, so it was not read.",
    ),
]


@pytest.mark.parametrize(("content", "sentence"), HOSTILE)
def test_a_hostile_agent_file_is_refused_in_one_sentence(
    tmp_path: Path, content: bytes, sentence: str
) -> None:
    file = tmp_path / "x.agent.json"
    file.write_bytes(content)
    code, out, err = cli(tmp_path / "data", "agents", "import", str(file), "--yes")
    assert (code, err) == (2, f"parley: {sentence}\n")
    assert "\x1b" not in out
    assert cli(tmp_path / "data", "agents", "list")[1].count("\n") == 1  # only Parley


def test_an_imported_agent_joins_the_loop_check_of_the_agents_it_asks(tmp_path: Path) -> None:
    # An import cannot close a loop itself: no agent here can name one that is not here (a
    # delegate must exist, and a delegate cannot be removed or renamed away), and a file
    # naming its own agent is refused above. A loop through it can only be made later.
    data = tmp_path / "data"
    cli(data, "agents", "add", "Helper")
    cli(data, "agents", "add", "Boss", "--delegate", "Helper")
    file = tmp_path / "scout.agent.json"
    file.write_bytes(agent_file(delegates=["Boss"]))
    code, _, err = cli(data, "agents", "import", str(file), "--yes")
    assert (code, err) == (0, "added agent Scout\n")
    assert "delegates: Boss\n" in cli(data, "agents", "show", "Scout")[1]
    # Scout → Boss → Helper; Helper asking Scout closes the loop
    code, _, err = cli(data, "agents", "edit", "Helper", "--delegate", "Scout")
    assert (code, err) == (
        2,
        "parley: That makes a loop of delegation: Helper → Scout → Boss → Helper.\n",
    )
    assert "delegates: none\n" in cli(data, "agents", "show", "Helper")[1]


def test_an_import_whose_chain_through_agents_here_is_too_deep_is_refused(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    cli(data, "agents", "add", "Helper")
    cli(data, "agents", "add", "Boss", "--delegate", "Helper")
    cli(data, "agents", "add", "Chief", "--delegate", "Boss")
    cli(data, "agents", "add", "Director", "--delegate", "Chief")  # three hops: the most
    file = tmp_path / "scout.agent.json"
    file.write_bytes(agent_file(delegates=["Director"]))
    sentence = (
        "parley: That makes Scout's chain of delegation deeper than 3 agents. "
        "Nothing was imported.\n"
    )
    for yes in ([], ["--yes"]):  # refused before any question is asked
        code, _, err = cli(data, "agents", "import", str(file), *yes)
        assert (code, err) == (2, sentence)
    listed = cli(data, "agents", "list")[1]
    assert "Scout" not in listed and listed.count("\n") == 5  # Parley and the four here


def test_an_endpoint_never_configured_and_missing_tools_are_asked_about(tmp_path: Path) -> None:
    file = tmp_path / "scout.agent.json"
    file.write_bytes(
        agent_file(
            model="openai:gpt-9@https://models.example.net/v1", tools=["teleport", "calculator"]
        )
    )
    code, out, _ = cli(tmp_path / "data", "agents", "import", str(file))
    assert code == 1
    endpoint = "https://models.example.net/v1"
    assert (
        f"  ! It sends your messages to {endpoint}, a model endpoint never configured here.\n"
        in out
    )
    assert "  ! These tools do not exist here and are left out: teleport.\n" in out
    assert cli(tmp_path / "data", "agents", "import", str(file), "--yes")[0] == 0
    shown = cli(tmp_path / "data", "agents", "show", "Scout")[1]
    assert (
        "tools: calculator\n" in shown
        and "model: openai:gpt-9@https://models.example.net/v1\n" in shown
    )


def test_chat_with_an_agent_runs_its_model_and_the_thread_keeps_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    mine, other = tmp_path / "mine.json", tmp_path / "other.json"
    mine.write_text(json.dumps([{"text": "From the agent."}]))
    other.write_text(json.dumps([{"text": "From the default."}]))
    assert cli(data, "agents", "add", "Mine", "--model", f"scripted:{mine}")[0] == 0
    done = parley("chat", "--model", f"scripted:{other}", "--agent", "mine", "Hello", data_dir=data)
    assert done.returncode == 0, done.stderr
    assert "From the agent." in done.stdout
    thread_id = done.stderr.strip().rsplit(" ", 1)[-1].rstrip(")")
    again = parley(
        "chat", "--model", f"scripted:{other}", "--thread", thread_id, "More", data_dir=data
    )
    assert again.returncode == 0, again.stderr
    assert "From the agent." in again.stdout  # the agent's model, its script from the start
    assert cli(data, "agents", "list")[1].endswith("Mine  [1 thread]\n")
    with Store.open(data / "parley.db") as store:
        thread = asyncio.run(store.get_thread(thread_id))
        mine_agent = asyncio.run(store.find_agent("Mine"))
    assert thread is not None and mine_agent is not None and thread.agent_id == mine_agent.id
    nobody = parley("chat", "--agent", "Ghost", "Hello", data_dir=data)
    assert nobody.returncode == 2
    assert nobody.stderr == "parley: there is no agent called 'Ghost'; see parley agents list\n"


def test_an_agent_file_s_rules_are_shown_and_kept_after_the_yes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    rule = {"tool": "fetch_url", "kind": "host", "argument": "url", "value": "docs.python.org"}
    file = tmp_path / "scout.agent.json"
    file.write_bytes(agent_file(tools=["fetch_url"], rules=[rule], knowledge=["~/no/such/dir"]))
    code, out, _ = cli(data, "agents", "import", str(file))
    assert code == 1
    assert "  Always allow: fetch_url for docs.python.org\n" in out
    assert "  ! These knowledge folders do not exist here and are left out: ~/no/such/dir.\n" in out
    assert "always allows" not in cli(data, "agents", "show", "Scout")[1]  # nothing yet
    assert cli(data, "agents", "import", str(file), "--yes")[0] == 0
    shown = cli(data, "agents", "show", "Scout")[1]
    assert "always allows: fetch_url for docs.python.org\n" in shown
    exported = json.loads(cli(data, "agents", "export", "Scout", "-")[1])
    assert exported["rules"] == [rule] and exported["knowledge"] == []


@pytest.mark.parametrize("folder", ["/", "/etc"])
def test_a_rule_for_a_folder_outside_home_refuses_the_file(tmp_path: Path, folder: str) -> None:
    rule = {"tool": "write_file", "kind": "folder", "argument": "path", "value": folder}
    file = tmp_path / "scout.agent.json"
    file.write_bytes(agent_file(rules=[rule]))
    code, _, err = cli(tmp_path / "data", "agents", "import", str(file), "--yes")
    assert (code, err) == (
        2,
        f"parley: The file's rule lets write_file reach '{folder}', which is outside your home "
        "folder; a rule from a file reaches only a folder inside your home folder, never a "
        "hidden one.\n",
    )


def test_an_agent_file_claiming_hidden_and_owned_folders_gets_none_of_them(
    tmp_path: Path,
) -> None:
    """``parley agents import`` in a real process, with HOME a folder of the test's own."""
    home, data = tmp_path / "home", tmp_path / "data"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("oauth_token: gho_QuietMarker\n")
    (home / "papers").mkdir()
    (home / "shared").mkdir()
    (home / "notes").mkdir()
    env = {"HOME": str(home)}
    assert parley("agents", "add", "Researcher", data_dir=data, **env).returncode == 0
    papers, shared = str((home / "papers").resolve()), str((home / "shared").resolve())
    for folder, more in ((papers, ["--agent", "Researcher"]), (shared, [])):
        done = parley("knowledge", "add", folder, *more, data_dir=data, **env)
        assert done.returncode == 0, done.stderr
    rule = {"tool": "write_file", "kind": "folder", "argument": "path", "value": "~/notes"}
    file = tmp_path / "scout.agent.json"
    file.write_bytes(
        agent_file(
            knowledge=["~/.config/gh", "/", "~/papers", "~/shared", "~/notes"],
            rules=[rule],
            model="scripted:/tmp/script.json",
        )
    )
    done = parley("agents", "import", str(file), "--yes", data_dir=data, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-6:] == [
        "  ! Its model scripted:/tmp/script.json is a scripted one, whose replies and tool calls "
        "were written in advance; an imported agent never keeps one, so it will use the "
        "thread's model.",
        "  ! The rules for tools the agent does not use are left out: write_file.",
        "  ! The knowledge folder ~/.config/gh is a hidden folder or inside one (.config), so it "
        "is left out.",
        "  ! The knowledge folder / is outside your home folder, so it is left out.",
        "  ! ~/papers is already a knowledge folder of Researcher; it is left as it is.",
        "  ! ~/shared is already a knowledge folder of every thread; it is left as it is.",
    ]
    shown = parley("agents", "show", "Scout", data_dir=data, **env).stdout
    assert f"knowledge: {(home / 'notes').resolve()}\n" in shown
    assert "model: the thread's model\n" in shown and "always allows" not in shown
    shown = parley("agents", "show", "Researcher", data_dir=data, **env).stdout
    assert f"knowledge: {papers}\n" in shown


def test_export_says_what_it_left_out_and_refuses_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, data, outside = tmp_path / "home", tmp_path / "data", tmp_path / "srv"
    (home / "notes").mkdir(parents=True)
    outside.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert cli(data, "agents", "add", "Writer", "--tool", "write_file")[0] == 0
    assert cli(data, "knowledge", "add", str(outside), "--agent", "Writer")[0] == 0
    assert cli(data, "knowledge", "add", str(home / "notes"), "--agent", "Writer")[0] == 0
    file = tmp_path / "Writer.agent.json"
    code, _, err = cli(data, "agents", "export", "Writer", str(file))
    assert (code, err) == (
        0,
        f"parley: The knowledge folder {outside.resolve()} is left out: it is outside your home "
        "folder, and an agent file holds only folders inside the home folder, never hidden "
        f"ones.\nexported agent Writer to {file}\n",
    )
    assert json.loads(file.read_bytes())["knowledge"] == ["~/notes"]
    assert str(tmp_path).encode() not in file.read_bytes()
    key = "xoxb-" + "1234567890-abcdefghijKLMN"
    assert cli(data, "agents", "edit", "Writer", "--instructions", f"Post with {key}.")[0] == 0
    code, out, err = cli(data, "agents", "export", "Writer", "-")
    assert (code, out) == (2, "")
    assert err == (
        "parley: Writer's instructions hold what looks like a key (xoxb…, 30 characters); keys "
        "belong in the keyring, so nothing was exported: take it out and export again.\n"
    )
