"""``parley knowledge`` and ``parley chat`` with knowledge folders, in real processes: add
indexes and lists the unreadable files, search names file and page, a chat's answer lists
its sources, and the exported thread keeps them."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.process import new_thread_id, parley
from tests.knowledge.bindings import (
    python_path_without_sqlean,
    skip_unless_own_sqlite_cannot_load,
    skip_unless_sqlite_vec_can_load,
)
from tests.knowledge.corpus import make_corpus


def test_add_list_search_reindex_remove(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", outside=tmp_path / "elsewhere")
    data = tmp_path / "data"
    added = parley("knowledge", "add", str(root), data_dir=data)
    assert added.returncode == 0, added.stderr
    assert f"{root.resolve()}\n    5 files" in added.stdout
    assert "locked.pdf: it is a password-protected PDF" in added.stdout
    assert "loop-a: it is a link that loops" in added.stdout
    assert "escape.txt: it is a link to a place outside the folder" in added.stdout
    found = parley("knowledge", "search", "glacier walk", data_dir=data)
    assert found.returncode == 0, found.stderr
    first = found.stdout.splitlines()[0]
    assert first == f"[1] guide.pdf, page 3  {(root / 'guide.pdf').resolve().as_uri()}#page=3"
    assert "blue hut" in found.stdout
    nothing = parley("knowledge", "search", "walrus", data_dir=data)
    assert nothing.returncode == 1
    assert nothing.stdout.startswith("Nothing close enough to 'walrus' in the knowledge folders")
    # one shared word (glacier) is not enough for a question about something else
    skiing = parley("knowledge", "search", "best skiing resorts near the glacier", data_dir=data)
    assert skiing.returncode == 1 and skiing.stdout.startswith("Nothing close enough")
    (root / "notes.txt").write_text("The walrus \u202esleeps\u202c on the rocks.\n")
    again = parley("knowledge", "reindex", data_dir=data)
    assert again.returncode == 0, again.stderr
    walrus = parley("knowledge", "search", "walrus", data_dir=data)
    assert "notes.txt" in walrus.stdout
    assert "\u202e" not in walrus.stdout  # a file's bidi controls are shown escaped
    listed = parley("knowledge", "list", data_dir=data)
    assert "5 files" in listed.stdout and "last sync 2" in listed.stdout
    removed = parley("knowledge", "remove", str(root), data_dir=data)
    assert removed.returncode == 0
    assert "No knowledge folders yet" in parley("knowledge", "list", data_dir=data).stdout
    assert parley("knowledge", "remove", str(root), data_dir=data).returncode == 1


def test_a_chat_answer_cites_its_sources_and_the_export_keeps_them(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    data = tmp_path / "data"
    assert parley("knowledge", "add", str(root), data_dir=data).returncode == 0
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "search_knowledge", "args": {"query": "highest tide"}}]},
                {"text": "At noon in March [1]."},
            ]
        )
    )
    done = parley(
        "chat", "--tools", "--model", f"scripted:{script}", "When is the tide highest?",
        data_dir=data,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    url = f"{(root / 'guide.pdf').resolve().as_uri()}#page=2"
    assert f"Sources:\n[1] guide.pdf, page 2  {url}" in done.stdout
    thread_id = new_thread_id(done.stderr)
    exported = parley("threads", "export", thread_id, data_dir=data)
    doc = json.loads(exported.stdout)
    answer = doc["state"]["context"][-1]
    (block,) = [b for b in answer["content"] if b["type"] == "text"]
    assert block["annotations"][0]["url"] == url
    assert "highest tide at noon" in block["annotations"][0]["snippet"]
    markdown = tmp_path / "tide.md"
    written = parley("threads", "export", thread_id, str(markdown), "--markdown", data_dir=data)
    assert written.returncode == 0, written.stderr
    text = markdown.read_text(encoding="utf-8")
    assert text.endswith(f"At noon in March [1].\n\nSources: [guide.pdf, page 2]({url})\n")


def test_a_folder_for_an_agent_needs_the_agent_and_is_listed_with_it(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe lighthouse opens at nine.\n")
    data = tmp_path / "data"
    missing = parley("knowledge", "add", str(root), "--agent", "Writer", data_dir=data)
    assert missing.returncode != 0
    assert "there is no agent called 'Writer'; see parley agents list" in missing.stderr
    assert "No knowledge folders yet" in parley("knowledge", "list", data_dir=data).stdout
    assert parley("agents", "add", "Writer", data_dir=data).returncode == 0
    added = parley("knowledge", "add", str(root), "--agent", "writer", data_dir=data)
    assert added.returncode == 0, added.stderr
    assert f"{root.resolve()}, for agent Writer\n" in added.stdout
    assert ", for agent Writer" in parley("knowledge", "list", data_dir=data).stdout


def test_meaning_is_chosen_in_the_terminal_and_refuses_what_is_not_a_model(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "pets.txt").write_text("Our cat purred on the warm windowsill.\n")
    assert parley("knowledge", "add", str(notes), data_dir=data).returncode == 0
    chosen = parley("knowledge", "meaning", "bundled", data_dir=data)
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout == (
        "Search: words and meaning (SmolLM2 135M (bundled))\n"
        "Passages get their vectors at the next sync: parley knowledge reindex\n"
    )
    listed = parley("knowledge", "list", data_dir=data).stdout
    assert "1 files, 39 bytes, 1 passages (0 with meaning so far); last sync" in listed
    assert json.loads((data / "settings.json").read_text())["knowledge_embedding"] == "bundled"
    text = tmp_path / "notes.txt"
    text.write_text("not a model")
    refused = parley("knowledge", "meaning", str(text), data_dir=data)
    assert refused.returncode != 0
    assert f"{text} is not a GGUF model file; give a .gguf file" in refused.stderr
    unknown = parley("knowledge", "meaning", "bge-small-en-v1.5", data_dir=data)
    assert "there is no embedding model 'bge-small-en-v1.5'; choose one of none, bundled" in (
        unknown.stderr
    )
    off = parley("knowledge", "meaning", "none", data_dir=data)
    assert off.stdout == "Search: words (BM25)\n"


def test_list_says_which_search_is_in_use(tmp_path: Path) -> None:
    data = tmp_path / "data"
    listed = parley("knowledge", "list", data_dir=data)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("Search: words (BM25)\n")
    (data / "settings.json").write_text(json.dumps({"knowledge_embedding": "bundled"}))
    listed = parley("knowledge", "list", data_dir=data)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("Search: words and meaning (SmolLM2 135M (bundled))\n")


def test_list_says_nothing_of_vectors_compared_by_sqlite_vec(tmp_path: Path) -> None:
    skip_unless_sqlite_vec_can_load()
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"knowledge_embedding": "bundled"}))
    listed = parley("knowledge", "list", data_dir=data)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("Search: words and meaning (SmolLM2 135M (bundled))\n")
    assert "Vectors are compared" not in listed.stdout


def test_list_says_vectors_are_compared_by_a_scan_where_sqlite_cannot_load_them(
    tmp_path: Path,
) -> None:
    skip_unless_own_sqlite_cannot_load()
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text(json.dumps({"knowledge_embedding": "bundled"}))
    hidden = python_path_without_sqlean(tmp_path / "no-sqlean", os.environ.get("PYTHONPATH"))
    listed = parley("knowledge", "list", data_dir=data, PYTHONPATH=hidden)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith(
        "Search: words and meaning (SmolLM2 135M (bundled))\n"
        "    Vectors are compared by a scan in memory, not by sqlite-vec: this Python's SQLite "
        "cannot load extensions.\n"
    )


def test_chat_no_knowledge_puts_no_passages_before_the_question(tmp_path: Path) -> None:
    root = make_corpus(tmp_path / "docs", hostile=False)
    data = tmp_path / "data"
    assert parley("knowledge", "add", str(root), data_dir=data).returncode == 0
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "At noon in March."}]))
    question = "When is the highest tide in Tromso?"
    model = f"scripted:{script}"
    usual = parley("chat", "--model", model, question, data_dir=data)
    assert usual.returncode == 0, usual.stderr
    assert "Sources:\n[1] guide.pdf, page 2" in usual.stdout  # the automatic passages
    without = parley("chat", "--no-knowledge", "--model", model, question, data_dir=data)
    assert without.returncode == 0, without.stderr
    assert without.stdout.strip() == "At noon in March."
    assert "Sources:" not in without.stdout
