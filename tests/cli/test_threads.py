"""``parley threads export`` and ``parley threads import`` in real processes with real data
folders: a thread moves from one folder to another whole, the Markdown is the window's
export word for word, and a bad file or id gets one sentence and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

from app.services.workspace import Workspace
from tests.cli.process import new_thread_id, parley
from tests.services.import_attack import export_doc, image_at


def a_thread(tmp_path: Path, data_dir: Path) -> str:
    """A thread made by ``parley chat`` in ``data_dir``; its id."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "Pack a **jacket**."}]))
    done = parley("chat", "--model", f"scripted:{script}", "Oslo in May?", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    return new_thread_id(done.stderr)


async def window_export(data_dir: Path, thread_id: str, fmt: str) -> bytes:
    """What the window's Export writes for the thread."""
    workspace = await Workspace.open(data_dir, secret_resolver=lambda ref: None)
    try:
        return await workspace.threads.export(thread_id, fmt)  # type: ignore[arg-type]
    finally:
        await workspace.aclose()


def timeless(export: bytes) -> dict[str, object]:
    """A JSON export without the moment it was made."""
    doc = json.loads(export)
    assert isinstance(doc.pop("exported_at"), float)
    return dict(doc)


async def test_a_thread_exported_to_a_file_imports_into_another_folder(tmp_path: Path) -> None:
    home, other = tmp_path / "home", tmp_path / "other"
    thread_id = a_thread(tmp_path, home)
    file = tmp_path / "oslo.json"
    done = parley("threads", "export", thread_id, str(file), data_dir=home)
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"exported thread {thread_id} to {file}\n"
    assert timeless(file.read_bytes()) == timeless(await window_export(home, thread_id, "json"))

    imported = parley("threads", "import", str(file), data_dir=other)
    assert imported.returncode == 0, imported.stderr
    new_id = imported.stdout.strip()
    assert imported.stdout == f"{new_id}\n" and new_id
    assert parley("threads", data_dir=other).stdout == f"{new_id}  Oslo in May?\n"
    markdown = parley("threads", "export", new_id, "--markdown", data_dir=other)
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.encode() == await window_export(other, new_id, "markdown")
    assert "Pack a **jacket**." in markdown.stdout and "Oslo in May?" in markdown.stdout


async def test_export_to_stdout_is_the_json_the_window_writes(tmp_path: Path) -> None:
    thread_id = a_thread(tmp_path, tmp_path / "data")
    done = parley("threads", "export", thread_id, data_dir=tmp_path / "data")
    assert done.returncode == 0, done.stderr
    shown = timeless(done.stdout.encode())
    assert shown == timeless(await window_export(tmp_path / "data", thread_id, "json"))


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path) -> None:
    data = tmp_path / "data"
    thread_id = a_thread(tmp_path, data)
    file = tmp_path / "notes.md"
    file.write_text("my own notes\n")
    done = parley("threads", "export", thread_id, str(file), "--markdown", data_dir=data)
    assert done.returncode == 2
    assert done.stderr == (
        f"parley: {file} already exists; nothing was written (--force replaces it)\n"
    )
    assert file.read_text() == "my own notes\n"
    forced = parley("threads", "export", thread_id, str(file), "--markdown", "--force",
                    data_dir=data)  # fmt: skip
    assert forced.returncode == 0, forced.stderr
    assert file.read_text().startswith("# Oslo in May?")


def test_a_bad_file_or_id_is_one_sentence_and_adds_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"\xff\xfe not an export")
    for args, said in [
        (("threads", "import", str(junk)), "parley: could not import junk.json: "),
        (("threads", "import", str(tmp_path / "gone.json")),
         f"parley: could not read {tmp_path / 'gone.json'}: No such file or directory"),
        (("threads", "export", "no-such-id"), "parley: there is no thread 'no-such-id'"),
    ]:  # fmt: skip
        done = parley(*args, data_dir=data)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(said), done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert done.stdout == ""
    assert parley("threads", data_dir=data).stdout == ""


def test_an_import_says_in_the_terminal_what_it_left_out(tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY----- not for the model")
    export = tmp_path / "hostile.json"
    export.write_bytes(
        export_doc(
            [{"type": "text", "text": "look"}, image_at(secret.as_uri())],
            model="ollama:llava@http://198.51.100.7:11434",
        )
    )
    done = parley("threads", "import", str(export), data_dir=tmp_path / "data")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) == 1  # the new thread's id, alone on stdout
    notes = done.stderr.splitlines()
    assert notes[0].startswith(
        "parley: The thread's model 'ollama:llava@http://198.51.100.7:11434' was not kept"
    )
    assert notes[1].startswith("parley: An image ('beach.png') was left out of this thread")
    assert "not for the model" not in done.stdout + done.stderr
