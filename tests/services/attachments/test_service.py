"""The window's attachment service on a real store: ingest, read back, save, and what a model
will not see."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.models import ScriptedChatModel
from app.core.models.protocol import ChatModel, ModelInfo
from app.services.workspace import Workspace
from tests.media import corpus


def _models(spec: str) -> ChatModel:
    if spec == "scripted:vision":
        info = ModelInfo(
            spec=spec, name="vision", provider="scripted", input_kinds=frozenset({"text", "image"})
        )
        return ScriptedChatModel([], info=info)
    if spec == "scripted:text":
        return ScriptedChatModel([], info=ModelInfo(spec=spec, name="text", provider="x"))
    raise UserError(f"unknown model {spec!r}")


async def test_ingest_store_read_back_and_save(tmp_path: Path) -> None:
    png = corpus.image("PNG", (64, 48))
    source = tmp_path / "dot.png"
    source.write_bytes(png)
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=_models, secret_resolver=lambda r: None
    )
    try:
        service = ws.attachments
        result = await service.ingest(source)
        assert result.block is not None and result.block.type == "image"
        media = result.block.media  # type: ignore[union-attr]
        assert media.sha256 == hashlib.sha256(png).hexdigest()
        assert await service.media(media) == png
        target = tmp_path / "out" / "copy.png"
        target.parent.mkdir()
        await service.save_media(media, str(target))
        assert target.read_bytes() == png
        with pytest.raises(LookupError, match="no longer in Parley's store"):
            await service.save_media(media.model_copy(update={"file_id": "0" * 64}), str(target))
        bad = await service.ingest(tmp_path)
        assert (
            bad.message
            == f"{tmp_path.name}: it is a folder, not a file; attach the files inside it instead"
        )
    finally:
        await ws.aclose()


async def test_left_out_asks_the_threads_model(tmp_path: Path) -> None:
    source = tmp_path / "dot.png"
    source.write_bytes(corpus.image("PNG", (64, 48)))
    ws = await Workspace.open(
        tmp_path / "data", resolve_model=_models, secret_resolver=lambda r: None
    )
    try:
        result = await ws.attachments.ingest(source)
        assert result.block is not None
        blocks = [result.block]
        assert await ws.attachments.left_out(blocks, "scripted:vision") == []
        assert await ws.attachments.left_out(blocks, "scripted:text") == [
            "dot.png was left out: text cannot take images."
        ]
        assert await ws.attachments.left_out(blocks, "nope") == []  # unknown: nothing to say
        assert await ws.attachments.model_info("nope") is None
    finally:
        await ws.aclose()
