"""An imported thread never makes Parley read a file the user did not attach, send another
thread's media, or talk to a server the user did not set up: each attack is imported, a
message is sent, and the secret is looked for on both servers and in the database files."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from app.core.checkpoint import Checkpoint, new_checkpoint_id
from app.core.quoting import quoted
from app.core.state import AgentState, ImageBlock, MediaRef, Message, TextBlock
from app.services.attachments.compose import NOTES_KEY
from tests.services.import_attack import (
    SECRET,
    VISION,
    Scene,
    export_doc,
    holds,
    image_at,
    replies,
    requests_of,
    scene,
)
from tests.services.memory_keyring import MemoryKeyring

if TYPE_CHECKING:
    from app.store import ImportedThread

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)
DEFAULT_NOTE = (
    "The thread uses the default model (ollama:llava) until you pick another in the model picker."
)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring: MemoryKeyring) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


async def _import_and_send(s: Scene, data: bytes) -> tuple[ImportedThread, AgentState]:
    imported = await s.workspace.threads.import_json(data)
    task = await s.workspace.runs.send(imported.id, "What is in the picture?")
    state = await task
    assert state is not None
    return imported, state


def _user_message(state: AgentState) -> Message:
    return next(m for m in state.context if m.message_id == "u1")


async def test_the_issues_export_reads_no_file_and_calls_no_strange_server(
    tmp_path: Path,
) -> None:
    async with scene(tmp_path) as s:
        data = export_doc(
            [{"type": "text", "text": "look"}, image_at(s.secret.as_uri())],
            model=f"ollama:llava@{s.theirs.url}",
        )
        imported, state = await _import_and_send(s, data)
        assert s.theirs.requests == []
        assert len(list(replies(s.mine))) == 1
        assert s.leaks() == []
        assert (await s.workspace.threads.get(imported.id)).model == VISION
        assert state.context[-1].text() == "Hello, world!"
        assert imported.notes == (
            f"The thread's model 'ollama:llava@{s.theirs.url}' was not kept: it talks to the "
            f"server '{s.theirs.url}', which is not set up in Parley. {DEFAULT_NOTE}",
            "An image ('beach.png') was left out of this thread on import: it points at a file "
            f"on this computer ({quoted(s.secret.as_uri())}); an import keeps only media it "
            "carries itself.",
        )
        user = _user_message(state)
        assert user.content == [TextBlock(text="look")]
        assert user.metadata[NOTES_KEY] == [imported.notes[1]]


def _references(s: Scene) -> list[tuple[str, bool]]:
    """Media links an export may hold, each with whether it names a file on this computer."""
    secret = str(s.secret)
    return [
        (s.secret.as_uri(), True),
        ("FILE://" + secret, True),
        ("file:" + secret, True),
        ("file://localhost" + secret, True),
        ("file:///" + secret.lstrip("/").replace("/", "%2F"), True),
        (secret, True),
        ("~/.ssh/id_rsa", True),
        ("../home/.ssh/id_rsa", True),
        (".ssh/id_rsa", True),
        (str(s.data_dir / "parley.db"), True),
        ((s.data_dir / "settings.json").as_uri(), True),
        ("C:\\Users\\me\\.ssh\\id_rsa", True),
        ("\\\\server\\share\\id_rsa", True),
        ("smb://server/share/id_rsa", False),
        ("ftp://127.0.0.1/id_rsa", False),
        ("jar:" + s.secret.as_uri() + "!/x", False),
        ("qrc:/id_rsa", False),
        ("http://127.0.0.1:9/id_rsa", False),
        ("https://example.invalid/id_rsa", False),
        ("data:text/plain,not-base64", False),
    ]


@pytest.mark.parametrize("field", ["media", "thumbnail", "original"])
async def test_no_local_or_linked_reference_survives_an_import(tmp_path: Path, field: str) -> None:
    async with scene(tmp_path) as s:
        own = {"kind": "data", "data_base64": base64.b64encode(PNG).decode()}
        for url, local in _references(s):
            block = image_at(url) if field == "media" else {"type": "image", "media": own}
            if field != "media":
                block[field] = {"kind": "url", "url": url}
            imported = await s.workspace.threads.import_json(export_doc([block]))
            saved = await s.workspace.threads.saved_state(imported.id)
            assert saved is not None
            what = "An image ('beach.png')" if field == "media" else f"An image's {field}"
            where = (
                f"points at a file on this computer ({quoted(url)})"
                if local
                else f"links to {quoted(url)}"
            )
            if field == "original":
                what = "An image's original file"
            assert imported.notes == (
                f"{what} was left out of this thread on import: it {where}; an import keeps only "
                "media it carries itself.",
            )
            kept = _user_message(saved).content
            expected = [] if field == "media" else [ImageBlock(media=MediaRef.model_validate(own))]
            assert kept == expected, url
            assert _user_message(saved).metadata[NOTES_KEY] == list(imported.notes)
        await _import_and_send(s, export_doc([image_at(s.secret.as_uri())]))
        assert s.leaks() == []


async def test_another_threads_media_is_neither_linked_nor_sent(tmp_path: Path) -> None:
    async with scene(tmp_path) as s:
        other = await s.workspace.threads.create(title="keys")
        sha = await s.workspace._store.store_media(SECRET, "image/png", thread_id=other.id)
        own = base64.b64encode(PNG).decode()
        attacks = [
            {"type": "image", "media": {"kind": "file_id", "file_id": sha}},
            {"type": "image", "media": {"kind": "file_id", "file_id": sha.upper()}},
            {
                "type": "image",
                "media": {"kind": "data", "data_base64": own},
                "original": {"kind": "file_id", "file_id": sha, "sha256": sha},
            },
            {"type": "image", "media": {"kind": "data", "data_base64": own, "sha256": sha}},
            {
                "type": "document",
                "media": {"kind": "data", "data_base64": own},
                "preview": {"kind": "file_id", "file_id": sha},
            },
        ]
        imported, state = await _import_and_send(s, export_doc(attacks))
        assert s.theirs.requests == []
        assert not holds(requests_of(s.mine))
        export = await s.workspace.threads.export(imported.id, "json")
        assert not holds(export), "the imported thread holds the other thread's media"
        why = (
            "was left out of this thread on import: it names stored media "
            f"('{sha}') the export does not carry."
        )
        assert state.context[-1].text() == "Hello, world!"
        assert imported.notes == (
            f"An image {why}",
            f"An image {why}",
            f"An image's original file {why}",
            f"A document's preview {why}",
        )
        kept = _user_message(state).content
        assert [b.type for b in kept] == ["image", "image", "document"]
        own_sha = hashlib.sha256(PNG).hexdigest()
        assert [b.media.sha256 for b in kept] == [None, own_sha, None]  # type: ignore[union-attr]
        assert await s.workspace.attachments.media(MediaRef(kind="file_id", file_id=sha)) == SECRET


@pytest.mark.parametrize(
    "spec",
    [
        "ollama:llava@{theirs}",
        "ollama:llava@{theirs_hostport}",
        "ollama:llava@{theirs}/",
        "openai:gpt-4o@{theirs}/v1",
        "anthropic:claude-sonnet-4@{theirs}",
        "gguf:{home}/.ssh/id_rsa",
        "gguf:{home}/evil.gguf",
        "gguf:{data}/models/../../home/evil.gguf",
        "scripted:{home}/.ssh/id_rsa",
        "no-such-provider:x",
    ],
)
async def test_a_model_the_user_never_set_up_is_not_used(tmp_path: Path, spec: str) -> None:
    async with scene(tmp_path) as s:
        (s.home / "evil.gguf").write_bytes(b"GGUF" + SECRET)
        named = spec.format(
            theirs=s.theirs.url,
            theirs_hostport=s.theirs.url.removeprefix("http://"),
            home=s.home,
            data=s.data_dir,
        )
        imported, state = await _import_and_send(s, export_doc([], model=named))
        assert s.theirs.requests == []
        assert len(list(replies(s.mine))) == 1
        assert s.leaks() == []
        assert (await s.workspace.threads.get(imported.id)).model == VISION
        assert state.context[-1].text() == "Hello, world!"
        [note] = imported.notes
        assert note.startswith(f"The thread's model {quoted(named)} was not kept: it ")
        assert note.endswith(DEFAULT_NOTE)


async def test_a_saved_file_link_is_not_read_when_sent(tmp_path: Path) -> None:
    """A thread an older Parley imported may still hold a ``file://`` image: sending in it
    reads nothing and says why."""
    async with scene(tmp_path) as s:
        thread = await s.workspace.threads.create(title="old import")
        image = ImageBlock(media=MediaRef(kind="url", url=s.secret.as_uri(), filename="id_rsa"))
        state = AgentState(context=[Message(role="user", content=[image])])
        await s.workspace._store.checkpointer.aput(
            Checkpoint(thread.id, new_checkpoint_id(), None, 0, state), None
        )
        state_after = await (await s.workspace.runs.send(thread.id, "and this?"))
        assert s.leaks() == []
        assert list(replies(s.mine)) == []
        assert state_after is not None
        errors = [b.error for b in state_after.context[-1].content if b.type == "error"]
        assert errors == [
            "The attachment 'id_rsa' points at a file Parley was not given (it reads only files "
            "you attach), so it was not sent. Attach the file instead."
        ]


async def test_a_thread_exported_here_comes_back_whole_with_its_image(tmp_path: Path) -> None:
    async with scene(tmp_path) as s:
        photo = tmp_path / "dot.png"
        photo.write_bytes(PNG)
        original = await s.workspace.threads.create(title="a dot")
        attached = await s.workspace.attachments.attach([photo])
        assert attached.problems == []
        await (await s.workspace.runs.send(original.id, "What is this?", attached.blocks))
        before = await s.workspace.threads.saved_state(original.id)
        data = await s.workspace.threads.export(original.id, "json")

        imported, after = await _import_and_send(s, data)
        assert imported.notes == ()
        assert imported.model == VISION and imported.title == "a dot"
        assert before is not None and after.context[: len(before.context)] == before.context
        sent = [r["raw"] for r in s.mine.requests if r["path"] == "/api/chat"]
        assert len(sent) == 2 and all(holds(body, PNG) for body in sent)
        assert s.theirs.requests == []


@pytest.mark.parametrize(
    "spec",
    [
        VISION,
        "ollama:llama3",
        "ollama:llava@{mine}",
        "ollama:llava@{mine_upper}/",
        "openai:gpt-4o",
        "anthropic:claude-sonnet-4",
        "gguf:{home}/added.gguf",
        "local",
        None,
    ],
)
async def test_a_model_the_user_set_up_is_kept(tmp_path: Path, spec: str | None) -> None:
    added = tmp_path / "home" / "added.gguf"
    async with scene(tmp_path, gguf_files=[str(added)]) as s:
        named = None
        if spec is not None:
            named = spec.format(mine=s.mine.url, mine_upper=s.mine.url.upper(), home=s.home)
        imported = await s.workspace.threads.import_json(export_doc([], model=named))
        assert (imported.model, imported.notes) == (named, ())
