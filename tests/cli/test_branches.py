"""Branches from the terminal, in real processes on real data folders: ``parley chat --thread
ID --regenerate`` answers again as a branch, ``parley threads branches ID`` prints the tree,
``parley threads show ID [--branch N]`` one path, and an export carries every branch to
another folder (its Markdown the branch shown)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.process import new_thread_id, parley


def script(tmp_path: Path, name: str, text: str) -> str:
    """A scripted model answering ``text`` once."""
    file = tmp_path / f"{name}.json"
    file.write_text(json.dumps([{"text": text}]))
    return f"scripted:{file}"


def answered_three_times(tmp_path: Path, data: Path) -> str:
    """A thread whose one question was answered, then answered again twice; its id."""
    first = script(tmp_path, "one", "Take a jacket.\nIt rains.")
    done = parley("chat", "--model", first, "Oslo in May?", data_dir=data)
    assert done.returncode == 0, done.stderr
    thread_id = new_thread_id(done.stderr)
    for name, text in (("two", "Bring an umbrella."), ("three", "Pack light.")):
        again = parley(
            "chat", "--thread", thread_id, "--model", script(tmp_path, name, text),
            "--regenerate", data_dir=data,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() == text
    return thread_id


TREE = (
    "message 2, 3 versions:\n"
    "  1  Take a jacket.  (2 messages)\n"
    "  2  Bring an umbrella.  (2 messages)\n"
    "  3  Pack light.  (2 messages, shown)\n"
)


def test_answering_again_makes_branches_the_terminal_prints_and_shows(tmp_path: Path) -> None:
    data = tmp_path / "data"
    thread_id = answered_three_times(tmp_path, data)
    tree = parley("threads", "branches", thread_id, data_dir=data)
    assert tree.returncode == 0, tree.stderr
    assert tree.stdout == TREE
    shown = parley("threads", "show", thread_id, data_dir=data)
    assert shown.stdout == "user: Oslo in May?\nassistant: Pack light.\n"
    first = parley("threads", "show", thread_id, "--branch", "1", data_dir=data)
    assert first.stdout == "user: Oslo in May?\nassistant: Take a jacket.\nIt rains.\n"
    one = parley("threads", "export", thread_id, "--markdown", "--branch", "1", data_dir=data)
    assert one.returncode == 0, one.stderr
    assert "Take a jacket." in one.stdout and "Pack light." not in one.stdout
    whole = parley("threads", "export", thread_id, "--branch", "1", data_dir=data)
    assert whole.returncode == 2 and "add --markdown" in whole.stderr
    missing = parley("threads", "show", thread_id, "--branch", "4", data_dir=data)
    assert missing.returncode == 2
    assert missing.stderr == "parley: this thread has 3 branches; there is no branch 4\n"


def test_an_export_with_branches_imports_with_every_branch(tmp_path: Path) -> None:
    home, other = tmp_path / "home", tmp_path / "other"
    thread_id = answered_three_times(tmp_path, home)
    file = tmp_path / "oslo.json"
    assert parley("threads", "export", thread_id, str(file), data_dir=home).returncode == 0
    imported = parley("threads", "import", str(file), data_dir=other)
    assert imported.returncode == 0, imported.stderr
    new_id = imported.stdout.strip()
    assert parley("threads", "branches", new_id, data_dir=other).stdout == TREE
    for n, answer in ((1, "Take a jacket.\nIt rains."), (2, "Bring an umbrella.")):
        path = parley("threads", "show", new_id, "--branch", str(n), data_dir=other)
        assert path.stdout == f"user: Oslo in May?\nassistant: {answer}\n"
    # exported again, the same branches come out
    again = parley("threads", "export", new_id, data_dir=other)
    mine = json.loads(file.read_text())["branches"]
    theirs = json.loads(again.stdout)["branches"]
    assert [(b["n"], b["line"], b["state"] is None) for b in theirs] == [
        (b["n"], b["line"], b["state"] is None) for b in mine
    ]
    markdown = parley("threads", "export", new_id, "--markdown", data_dir=other)
    assert "Pack light." in markdown.stdout and "umbrella" not in markdown.stdout


def test_regenerate_needs_a_thread_and_no_prompt(tmp_path: Path) -> None:
    alone = parley("chat", "--regenerate", data_dir=tmp_path / "data")
    assert alone.returncode == 2
    assert alone.stderr == "--regenerate needs --thread THREAD_ID\n"
    with_prompt = parley("chat", "--thread", "x", "--regenerate", "Hi", data_dir=tmp_path / "d")
    assert with_prompt.returncode == 2
    assert "send a prompt after it" in with_prompt.stderr


def test_a_thread_without_branches_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = parley("chat", "--model", script(tmp_path, "one", "Yes."), "Hi?", data_dir=data)
    thread_id = new_thread_id(done.stderr)
    tree = parley("threads", "branches", thread_id, data_dir=data)
    assert tree.stdout == f"thread {thread_id} has no branches: each message has one version\n"
    gone = parley("threads", "branches", "nope", data_dir=data)
    assert gone.returncode == 2 and gone.stderr == "parley: there is no thread nope\n"


def test_search_names_the_branch_of_a_hit_the_thread_does_not_show(tmp_path: Path) -> None:
    data = tmp_path / "data"
    thread_id = answered_three_times(tmp_path, data)
    found = parley("threads", "--search", "jacket", data_dir=data)
    assert found.returncode == 0, found.stderr
    assert found.stdout == f"{thread_id}  Take a [jacket].\nIt rains.  (branch 1)\n"
    shown = parley("threads", "--search", "light", data_dir=data)
    assert shown.stdout == f"{thread_id}  Pack [light].\n"  # on the path shown: no branch
