"""What the hostile-import tests share: a secret file on "this computer", exports that reach
for it, the user's own model server and an attacker's one (real HTTP servers on 127.0.0.1),
and a scan of every place the secret must never reach."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.services.settings import AppSettings, save_settings
from app.services.workspace import Workspace
from tests.providers.replay_server import ReplayServer, Reply, lines

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY-----\nparley-test-secret-4711\n-----END-----\n"
"""The bytes of the private key the exports reach for."""

VISION = "ollama:llava"
"""The user's default model: a vision model on the Ollama server set up in settings."""


def encodings(data: bytes) -> list[bytes]:
    """``data`` as it could travel: raw, base64 (three alignments), hex."""
    forms = [data, data.hex().encode()]
    for skip in range(3):
        text = base64.b64encode(data[skip:]).decode()
        forms.append(text[4:-4].encode())  # the middle is the same wherever the data starts
    return forms


def holds(blob: bytes, data: bytes = SECRET) -> bool:
    """Whether ``blob`` contains ``data`` in any of its :func:`encodings`."""
    return any(form in blob for form in encodings(data))


def export_doc(content: list[dict[str, Any]], *, model: str | None = VISION) -> bytes:
    """A thread export whose one user message holds ``content``, on ``model``."""
    doc = {
        "format": "parley.thread",
        "version": 1,
        "thread": {"title": "holiday photos", "model": model},
        "state": {
            "context": [
                {"message_id": "u1", "role": "user", "content": content},
                {
                    "message_id": "a1",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Nice photo!"}],
                },
            ]
        },
        "media": [],
    }
    return json.dumps(doc).encode()


def image_at(url: str, **extra: Any) -> dict[str, Any]:
    """An image block whose media is the link ``url``."""
    media = {"kind": "url", "url": url, "mime_type": "image/png", "filename": "beach.png"}
    return {"type": "image", "media": media, **extra}


def ollama_server() -> ReplayServer:
    """A real server answering Ollama chat requests with "Hello, world!"."""
    server = ReplayServer().start()
    server.add("/api/chat", Reply(chunks=lines("ollama_text.ndjson")))
    return server


@dataclass
class Scene:
    """One hostile-import scene: the user's workspace, their Ollama, an attacker's server."""

    workspace: Workspace
    data_dir: Path
    home: Path
    secret: Path
    mine: ReplayServer
    theirs: ReplayServer

    def leaks(self) -> list[str]:
        """Every place the secret reached: either server, the database files."""
        found = [f"request to {s}" for s in (self.mine, self.theirs) if holds(requests_of(s))]
        for path in sorted(self.data_dir.rglob("*")):
            if path.is_file() and holds(path.read_bytes()):
                found.append(str(path.relative_to(self.data_dir)))
        return found


def requests_of(server: ReplayServer) -> bytes:
    """Everything the server was sent (paths, headers, bodies), as bytes."""
    return b"\n".join(
        r["path"].encode() + repr(r["headers"]).encode() + r["raw"] for r in server.requests
    )


@asynccontextmanager
async def scene(tmp_path: Path, **settings: Any) -> AsyncIterator[Scene]:
    """A workspace whose default model is :data:`VISION` on the user's own server, with
    ``~/.ssh/id_rsa`` holding :data:`SECRET` (``HOME`` must already point at ``tmp/home``)."""
    home = tmp_path / "home"
    secret = home / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_bytes(SECRET)
    data_dir = tmp_path / "data"
    mine, theirs = ollama_server(), ollama_server()
    save_settings(data_dir, AppSettings(default_model=VISION, ollama_url=mine.url, **settings))
    workspace = await Workspace.open(data_dir, secret_resolver=lambda ref: "")
    try:
        yield Scene(workspace, data_dir, home, secret, mine, theirs)
    finally:
        await workspace.aclose()
        mine.stop()
        theirs.stop()


def replies(server: ReplayServer) -> Iterator[dict[str, Any]]:
    """The chat requests the server was sent, as JSON."""
    return (r["json"] for r in server.requests if r["path"] == "/api/chat")
