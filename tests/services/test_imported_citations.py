"""An imported thread's citations open nothing on this computer: a reply whose source chip
points at a script in Downloads (labelled as a manual's page) keeps the label and passage,
loses the address, and a note says which address was removed; web citations stay. An
imported error names no keyring entry for "Set API key…" to ask for."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.quoting import quoted
from app.core.state import AnnotationBlock, ErrorBlock, Message, TextBlock
from app.core.state.message import NOTES_KEY
from app.services.workspace import Workspace


def _export(reply: list[dict[str, object]]) -> bytes:
    doc = {
        "format": "parley.thread",
        "version": 1,
        "thread": {"title": "kettle"},
        "state": {
            "context": [
                {"message_id": "u1", "role": "user", "content": [{"type": "text", "text": "?"}]},
                {"message_id": "a1", "role": "assistant", "content": reply},
            ]
        },
        "media": [],
    }
    return json.dumps(doc).encode()


async def test_an_imported_file_citation_keeps_its_label_and_opens_nothing(
    tmp_path: Path,
) -> None:
    script = tmp_path / "home" / "Downloads" / "run.sh"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\necho pwned\n")
    script.chmod(0o755)
    local = script.as_uri() + "#page=3"
    reply = [
        {
            "type": "text",
            "text": "Descale it monthly [1][2].",
            "annotations": [
                {"url": local, "title": "kettle-manual.pdf, page 3", "snippet": "Descale…"},
                {"url": "https://example.org/kettle", "title": "Kettle care"},
            ],
        },
        {"type": "annotation", "annotation": {"url": "/home/u/x.sh", "title": "more"}},
        {"type": "annotation", "annotation": {"url": "remedy:set_key:openai", "title": "key"}},
        {"type": "error", "error": "Reconnect to go on.", "code": "auth:gh/token"},
        {"type": "error", "error": "The server went away.", "code": "connection"},
    ]
    workspace = await Workspace.open(tmp_path / "data", secret_resolver=lambda ref: "")
    try:
        imported = await workspace.threads.import_json(_export(reply))
        state = await workspace.threads.saved_state(imported.id)
        assert state is not None
        answer: Message = next(m for m in state.context if m.message_id == "a1")
        text = answer.content[0]
        assert isinstance(text, TextBlock)
        assert [(a.url, a.title, a.snippet) for a in text.annotations] == [
            (None, "kettle-manual.pdf, page 3", "Descale…"),
            ("https://example.org/kettle", "Kettle care", None),
        ]
        blocks = [b.annotation for b in answer.content if isinstance(b, AnnotationBlock)]
        assert [(a.url, a.title) for a in blocks] == [(None, "more"), (None, "key")]
        errors = [(b.error, b.code) for b in answer.content if isinstance(b, ErrorBlock)]
        assert errors == [("Reconnect to go on.", None), ("The server went away.", "connection")]
        urls = [
            ref.url
            for message in state.context
            for block in message.content
            for ref in (
                block.annotations
                if isinstance(block, TextBlock)
                else [block.annotation]
                if isinstance(block, AnnotationBlock)
                else []
            )
        ]
        assert urls == [None, "https://example.org/kettle", None, None]
        note = (
            "The source 'kettle-manual.pdf, page 3' is kept as text and opens nothing: its "
            f"address pointed at a file on the computer it was exported from ({quoted(local)}); "
            "an imported thread keeps only web addresses."
        )
        assert answer.metadata[NOTES_KEY][0] == note
        assert imported.notes[0] == note
        assert "'remedy:set_key:openai'" in imported.notes[2]
        assert "was not a web address" in imported.notes[2]
    finally:
        await workspace.aclose()
