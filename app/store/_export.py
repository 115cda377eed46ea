"""Export a thread to JSON or Markdown, and import it back from JSON (on the store thread).

The JSON document holds the thread's settings, its latest state exactly as
:func:`app.core.state.serde.dump_state` writes it, its branches (see
:mod:`app.store._export_branches`; version 2 of the format, written only when there are any)
and the media it uses (base64), so an import on another machine gives the same conversation.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import sqlite_utils

from app.core.checkpoint.base import Checkpoint, new_checkpoint_id
from app.core.errors import DecodeError, UserError
from app.core.state.agent_state import AgentState
from app.core.state.serde import dump_state, load_state
from app.core.state.storable import problem_in
from app.core.userinfo import without_userinfo
from app.store import _branches, _checkpoints, _export_branches, _media, _threads
from app.store._checkpoints import gc_paused
from app.store._db import write_tx
from app.store._import_links import keep_web_citations
from app.store._import_media import keep_carried_media
from app.store._markdown import render_markdown
from app.store.models import ImportedThread, Thread

__all__ = [
    "FORMAT",
    "ModelCheck",
    "export_branch_markdown",
    "export_json",
    "export_markdown",
    "import_json",
]

ModelCheck = Callable[[str | None], tuple[str | None, str | None]]
"""Given an export's model spec, the spec the new thread gets and, when it differs, why."""

FORMAT = "parley.thread"
VERSION = 2


def _latest(
    db: sqlite_utils.Database, thread_id: str, state_cls: type[AgentState]
) -> tuple[Thread, AgentState]:
    thread = _threads.get(db, thread_id)
    if thread is None:
        raise UserError(f"there is no thread {thread_id!r} to export")
    checkpoint = _checkpoints.get(db, thread_id, state_cls, None)
    return thread, (checkpoint.state if checkpoint else state_cls())


def export_json(db: sqlite_utils.Database, thread_id: str, state_cls: type[AgentState]) -> bytes:
    """Return the thread as a JSON document :func:`import_json` reads back."""
    thread, state = _latest(db, thread_id, state_cls)
    media = []
    for sha in sorted(_media.thread_media(db.conn, thread_id)):
        blob = _media.get(db, sha)
        if blob is not None:
            media.append(
                {
                    "sha256": sha,
                    "mime_type": blob.mime_type,
                    "data_base64": base64.b64encode(blob.data).decode(),
                }
            )
    branches = _export_branches.export_branches(db, thread_id, state_cls)
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION if branches else 1,
        "exported_at": time.time(),
        "thread": {
            "title": thread.title,
            "created_at": thread.created_at,
            "updated_at": thread.updated_at,
            "model": None if thread.model is None else without_userinfo(thread.model),
            "system_prompt": thread.system_prompt,
            "archived": thread.archived,
        },
        "state": _errors_without_userinfo(json.loads(dump_state(state))),
        "media": media,
    }
    if branches:
        doc["branches"] = _errors_without_userinfo(branches)
    return json.dumps(doc, ensure_ascii=False, indent=1).encode()


def _errors_without_userinfo(value: Any) -> Any:
    """``value`` (a state as JSON) with no user name or password left in the address of an
    error a reply kept (one saved before such addresses were refused)."""
    if isinstance(value, dict):
        return {
            k: without_userinfo(v)
            if k == "error" and isinstance(v, str)
            else _errors_without_userinfo(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_errors_without_userinfo(v) for v in value]
    return value


def export_markdown(db: sqlite_utils.Database, thread_id: str, state_cls: type[AgentState]) -> str:
    """Return the thread as readable Markdown (for sharing; not for importing)."""
    thread, state = _latest(db, thread_id, state_cls)
    return render_markdown(thread, state.context)


def export_branch_markdown(
    db: sqlite_utils.Database, thread_id: str, number: int, state_cls: type[AgentState]
) -> str:
    """Return branch ``number`` of the thread (as :func:`app.store._branches.tree` numbers
    them) as readable Markdown."""
    thread, _ = _latest(db, thread_id, state_cls)
    return render_markdown(thread, _branches.path_of(db, thread_id, number, state_cls))


def _bad(why: str) -> UserError:
    return UserError(f"this file is not a Parley thread export: {why}")


_LATEST_TIME = 253402300799.0  # the last second of the year 9999


def _no_constant(name: str) -> float:
    raise ValueError(f"it holds {name}, which is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"it holds the number {text}, which is too large")
    return value


def _json(data: bytes | str) -> Any:
    try:
        return json.loads(data, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise _bad("its values are nested too deeply") from None
    except ValueError as exc:  # also bytes that are not UTF-8, and too many digits
        raise _bad(f"it is not JSON Parley can read ({exc})") from None


def _text(value: Any, what: str) -> str | None:
    """``value`` as optional text; raises when it is something else or not valid Unicode."""
    if value is None:
        return None
    problem = problem_in(value) if isinstance(value, str) else "something that is not text"
    if problem is not None:
        raise _bad(f"{what} holds {problem}")
    return str(value)


def _time(value: Any, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(f"{what} is not a time")
    if not 0 <= value <= _LATEST_TIME:
        raise _bad(f"{what} ({value}) is not a time between 1970 and 9999")
    return float(value)


def _media_items(doc: dict[str, Any]) -> list[tuple[str, str, bytes]]:
    blobs = []
    for item in doc.get("media", []):
        if not isinstance(item, dict) or not isinstance(item.get("data_base64"), str):
            raise _bad("a media entry is damaged (it has no base64 data)")
        try:
            raw = base64.b64decode(item["data_base64"], validate=True)
        except ValueError as exc:
            raise _bad(f"a media entry is damaged ({exc})") from None
        sha = (_text(item.get("sha256"), "a media entry's SHA-256") or "").lower()
        mime = _text(item.get("mime_type"), "a media entry's MIME type")
        if hashlib.sha256(raw).hexdigest() != sha:
            raise _bad(f"media {sha[:64]!r} does not match its SHA-256")
        blobs.append((sha, mime or "application/octet-stream", raw))
    return blobs


def _parse(
    data: bytes | str, state_cls: type[AgentState]
) -> tuple[
    dict[str, Any],
    AgentState,
    list[tuple[str, str, bytes]],
    list[_export_branches.ImportedBranch],
]:
    doc = _json(data)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _bad("the 'format' field is missing or wrong")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version > VERSION:
        raise _bad(f"export version {version!r} is newer than this Parley knows"[:200])
    if not isinstance(doc.get("thread", {}), dict) or not isinstance(doc.get("media", []), list):
        raise _bad("the 'thread' or 'media' field has the wrong shape")
    meta = doc.get("thread", {})
    clean: dict[str, Any] = {
        name: _text(meta.get(name), f"the thread's {name!r}")
        for name in ("title", "model", "system_prompt")
    }
    clean["created_at"] = _time(meta.get("created_at"), "the thread's 'created_at'")
    clean["archived"] = bool(meta.get("archived"))
    try:
        state = load_state(json.dumps(doc.get("state")), state_cls)
    except DecodeError as exc:
        raise _bad(str(exc)) from None
    branches = _export_branches.parse_branches(doc.get("branches"), state_cls, _text, _time, _bad)
    return clean, state, _media_items(doc), branches


def import_json(
    db: sqlite_utils.Database,
    data: bytes | str,
    state_cls: type[AgentState],
    check_model: ModelCheck | None = None,
) -> ImportedThread:
    """Create a new thread (new id) from an :func:`export_json` document.

    The thread keeps only media whose bytes the export carries (see
    :mod:`app.store._import_media`), only web addresses in its citations (see
    :mod:`app.store._import_links`) and the model ``check_model`` allows (the export's own
    model when it is not given); its ``notes`` say what was left out and why."""
    with gc_paused():  # the parse allocates an object per value; collecting doubles it
        meta, state, blobs, branches = _parse(data, state_cls)
    carried = {sha for sha, _, _ in blobs}
    notes = keep_carried_media(state, carried)
    notes += keep_web_citations(state)
    for branch in branches:
        if branch.state is not None:
            notes += [
                n
                for n in keep_carried_media(branch.state, carried)
                + keep_web_citations(branch.state)
                if n not in notes
            ]
    model = meta["model"]
    if check_model is not None:
        model, why = check_model(model)
        notes[:0] = [why] if why else []
    new_id = uuid.uuid4().hex
    for kept in [state, *(b.state for b in branches if b.state is not None)]:
        if kept.execution_meta.thread_id is not None:
            kept.execution_meta.thread_id = new_id
    now = time.time()
    with write_tx(db) as conn:
        _threads.create_in(
            conn,
            new_id,
            meta["title"] or "",
            model,
            meta["system_prompt"],
            now=meta["created_at"] or now,
        )
        for sha, mime, raw in blobs:
            conn.execute(
                "INSERT OR IGNORE INTO media (sha256, mime_type, size, created_at, data) "
                "VALUES (?, ?, ?, ?, ?)",
                (sha, mime, len(raw), now, raw),
            )
            conn.execute(
                "INSERT OR IGNORE INTO thread_media (thread_id, sha256) VALUES (?, ?)",
                (new_id, sha),
            )
        parent: str | None = None
        tips: list[str | None] = []
        for saved in [b.state for b in branches] + [state]:
            if saved is None:  # a branch on the path shown: its tip is the thread's latest
                tips.append(None)
                continue
            checkpoint = Checkpoint(
                thread_id=new_id,
                checkpoint_id=new_checkpoint_id(),
                parent_id=parent,
                step=saved.execution_meta.step,
                state=saved,
                source="input",
                created_at=now,
            )
            _checkpoints.put_in(conn, checkpoint, None)
            parent = checkpoint.checkpoint_id
            tips.append(parent)
        head = tips.pop()
        assert head is not None
        _export_branches.write_branches(
            conn, new_id, branches, [head if tip is None else tip for tip in tips]
        )
        conn.execute(
            "UPDATE threads SET archived = ? WHERE id = ?",
            (int(meta["archived"]), new_id),
        )
        thread = _threads.get_in(conn, new_id)
    assert thread is not None
    return ImportedThread(**asdict(thread), notes=tuple(notes))
