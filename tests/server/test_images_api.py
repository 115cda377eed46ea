"""Images sent to ``parley serve`` with the official ``openai`` and ``anthropic`` SDKs: an
inline image reaches a model that takes images as the picture it is, and a link, a file, a
damaged or mislabelled image, one too big, or any image for a model that takes none, is
refused with one sentence while the server stays up."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from PIL import Image

from app.core.models.protocol import ModelInfo
from app.core.models.scripted import ScriptedChatModel
from app.core.state.message import Message
from app.core.state.message_block import ImageBlock
from tests.server.harness import ANSWER, OneModel, Served, serving


def _picture(kind: str = "PNG", size: tuple[int, int] = (3, 2)) -> str:
    out = io.BytesIO()
    Image.new("RGB", size, (255, 0, 0)).save(out, kind)
    return base64.b64encode(out.getvalue()).decode("ascii")


RED = _picture()


def _look(messages: Sequence[Message]) -> dict[str, Any]:
    """Say what each image of the last message is, from its bytes."""
    seen = []
    for block in messages[-1].content:
        if isinstance(block, ImageBlock):
            data = base64.b64decode(block.media.data_base64 or "")
            with Image.open(io.BytesIO(data)) as im:
                seen.append(f"a {im.width}x{im.height} {im.format} of {im.getpixel((0, 0))}")
    return {"text": f"{messages[-1].text()} I see {', '.join(seen) or 'nothing'}."}


def _seeing() -> OneModel:
    info = ModelInfo(spec="eyes", name="eyes", provider="scripted", input_kinds={"text", "image"})
    return OneModel(ScriptedChatModel(_look, info=info))


def _openai(served: Served) -> openai.OpenAI:
    return openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0)


def _anthropic(served: Served) -> anthropic.Anthropic:
    root = served.base_url.removesuffix("/v1")
    return anthropic.Anthropic(base_url=root, api_key=served.key, max_retries=0)


def test_an_inline_image_reaches_a_model_that_takes_images(tmp_path: Path) -> None:
    said = "What is this? I see a 3x2 PNG of (255, 0, 0)."
    with serving(tmp_path, models=_seeing()) as served:
        with _openai(served) as api:
            reply = api.chat.completions.create(
                model="parley",
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "What is this?"},
                            {
                                "type": "image_url",
                                "image_url": {"url": f"data:image/png;base64,{RED}"},
                            },
                        ],
                    }
                ],
            )
            assert reply.choices[0].message.content == said
        with _anthropic(served) as api:
            message = api.messages.create(
                model="parley",
                max_tokens=100,
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "What is this?"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": RED,
                                },
                            },
                        ],
                    }
                ],
            )
            assert [getattr(b, "text", None) for b in message.content] == [said]


def _openai_image(url: str) -> dict[str, Any]:
    part = {"type": "image_url", "image_url": {"url": url}}
    return {"model": "parley", "messages": [{"role": "user", "content": [part]}]}


def _anthropic_image(source: dict[str, Any]) -> dict[str, Any]:
    part = {"type": "image", "source": source}
    return {"model": "parley", "max_tokens": 10, "messages": [{"role": "user", "content": [part]}]}


_WHERE = "messages[0].content[0]"
_TEXT = base64.b64encode(b"just some words, not a picture").decode()
_BIG = base64.b64encode(bytes(5 * 1024 * 1024 + 1)).decode()


@pytest.mark.parametrize(
    ("path", "body", "said"),
    [
        (
            "chat/completions",
            _openai_image("https://example.org/cat.png"),
            f"{_WHERE}.image_url.url points at a link or a file, and Parley's server fetches "
            "nothing",
        ),
        (
            "chat/completions",
            _openai_image("file:///etc/passwd"),
            f"{_WHERE}.image_url.url points at a link or a file",
        ),
        (
            "messages",
            _anthropic_image({"type": "url", "url": "http://127.0.0.1:9/x.png"}),
            f"{_WHERE}.source points at a link or a file",
        ),
        (
            "chat/completions",
            _openai_image("data:image/png;base64,not base64!"),
            f"{_WHERE}.image_url.url is not valid base64",
        ),
        (
            "chat/completions",
            _openai_image(f"data:image/png;base64,{_TEXT}"),
            f"{_WHERE}.image_url.url cannot be used: it is not an image",
        ),
        (
            "messages",
            _anthropic_image(
                {"type": "base64", "media_type": "image/png", "data": _picture("JPEG")}
            ),
            f"{_WHERE}.source is named image/png but holds image/jpeg data; name its real type",
        ),
        (
            "messages",
            _anthropic_image({"type": "base64", "media_type": "image/bmp", "data": RED}),
            f"{_WHERE}.source's type is 'image/bmp': Parley takes image/png, image/jpeg",
        ),
        (
            "messages",
            {
                "model": "parley",
                "max_tokens": 10,
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": RED,
                                },
                            }
                        ]
                        * 101,
                    }
                ],
            },
            "The request holds 101 images; Parley takes at most 100",
        ),
        (
            "chat/completions",
            _openai_image(f"data:image/png;base64,{_BIG}"),
            f"{_WHERE}.image_url.url is over 5 MB, the most Parley takes for one image",
        ),
    ],
)
def test_images_the_server_cannot_take_are_refused(
    tmp_path: Path, path: str, body: dict[str, Any], said: str
) -> None:
    with serving(tmp_path, models=_seeing()) as served:
        headers = {"x-api-key": served.key, "content-type": "application/json"}
        refused = httpx.post(f"{served.base_url}/{path}", content=json.dumps(body), headers=headers)
        assert refused.status_code == 400
        message = refused.json()["error"]["message"]
        assert message.startswith(said)
        assert message.endswith(".")
        ask = [{"role": "user", "content": "Anything?"}]
        with _openai(served) as api:  # the server answers the next request
            reply = api.chat.completions.create(model="parley", messages=ask)
            assert reply.choices[0].message.content == "Anything? I see nothing."


def test_a_model_that_takes_no_images_is_sent_none(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        with _openai(served) as api, pytest.raises(openai.BadRequestError) as refused:
            api.chat.completions.create(
                model="parley",
                messages=[
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "image_url",
                                "image_url": {"url": f"data:image/png;base64,{RED}"},
                            }
                        ],
                    }
                ],
            )
        assert refused.value.code == "images_unsupported"
        assert refused.value.body is not None
        assert isinstance(refused.value.body, dict)
        assert refused.value.body["message"] == (
            "The model parley takes no images; send the request without them, or name a model "
            "that takes images."
        )
        with _anthropic(served) as api:
            with pytest.raises(anthropic.BadRequestError):
                api.messages.create(
                    model="parley",
                    max_tokens=10,
                    messages=[
                        {
                            "role": "user",
                            "content": [
                                {
                                    "type": "image",
                                    "source": {
                                        "type": "base64",
                                        "media_type": "image/png",
                                        "data": RED,
                                    },
                                }
                            ],
                        }
                    ],
                )
            reply = api.messages.create(
                model="parley", max_tokens=10, messages=[{"role": "user", "content": "Tides?"}]
            )
            assert [getattr(b, "text", None) for b in reply.content] == [ANSWER]
