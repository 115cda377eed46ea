"""Looking for a secret, in every encoding the redaction knows, where it must never be."""

from __future__ import annotations

import json
from pathlib import Path

from app.core.models import ScriptedChatModel
from app.secrets.keyring_resolver import KeyringSecretResolver
from tests.core.tools.test_encoded_secrets import ENCODINGS
from tests.services.memory_keyring import MemoryKeyring


def leaked_forms(secret: str) -> dict[str, bytes]:
    """Every encoded form of ``secret``, and each as it looks inside stored JSON."""
    forms: dict[str, bytes] = {}
    for name, encode in ENCODINGS.items():
        text = encode(secret)
        forms[name] = text.encode()
        forms[f"{name}, in JSON"] = json.dumps(text)[1:-1].encode()
        forms[f"{name}, in ASCII JSON"] = json.dumps(text, ensure_ascii=False)[1:-1].encode()
    return forms


def files_holding(folder: Path, forms: dict[str, bytes]) -> list[str]:
    """``path: encoding`` for every file under ``folder`` holding one of ``forms``."""
    return [
        f"{path.relative_to(folder)}: {name}"
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        for name, form in forms.items()
        if form in path.read_bytes()
    ]


def places_holding(forms: dict[str, bytes], **places: str | bytes) -> list[str]:
    """``place: encoding`` for every one of ``places`` holding one of ``forms``."""
    found = []
    for place, text in places.items():
        data = text.encode() if isinstance(text, str) else text
        found += [f"{place}: {name}" for name, form in forms.items() if form in data]
    return found


def turn_leaks(
    forms: dict[str, bytes],
    model: ScriptedChatModel,
    exports: tuple[bytes, bytes],
    events: list[str],
    log: str,
    **more: str | bytes,
) -> list[str]:
    """Where a turn let one of ``forms`` out: what ``model`` was sent, the JSON and Markdown
    ``exports``, the ``events``, the ``log`` and ``more`` places."""
    sent = json.dumps([[m.model_dump(mode="json") for m in call] for call in model.calls])
    return places_holding(
        forms,
        model_input=sent,
        json_export=exports[0],
        markdown_export=exports[1],
        events="\n".join(events),
        log=log,
        **more,
    )


def keyring_holding(ref: str, secret: str) -> KeyringSecretResolver:
    """A resolver over an in-memory keyring holding ``secret`` as ``ref``."""
    keyring = MemoryKeyring()
    keyring.set_password("parley", ref, secret)
    return KeyringSecretResolver(backend=keyring)
