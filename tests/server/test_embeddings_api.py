"""``POST /v1/embeddings`` through a real ``parley serve``, asked with the official ``openai``
SDK: with the bundled stand-in chosen for meaning search, one unit-length vector a text in
OpenAI's shape (base64, as the SDK asks by default, and floats), close meanings closer, and
the usage counted; with no embedding model chosen, or another model named, or token ids
sent, OpenAI's error with one sentence, and the server stays up."""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
import openai
import pytest

from tests.server.harness import serving

pytestmark = pytest.mark.slow

CAT = "The cat sat on the warm windowsill and purred all afternoon."
MONEY = "Quarterly revenue rose by twelve percent thanks to strong sales in Europe."
KITTEN = "kitten resting by a sunny window"


def _bundled(data_dir: Path) -> None:
    path = data_dir / "settings.json"
    settings = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**settings, "knowledge_embedding": "bundled"}))


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_texts_are_embedded_by_the_model_chosen(tmp_path: Path) -> None:
    with (
        serving(tmp_path, prepare=_bundled) as served,
        openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as client,
    ):
        made = client.embeddings.create(model="parley-embedding", input=[CAT, MONEY, KITTEN])
        assert [d.index for d in made.data] == [0, 1, 2]
        cat, money, kitten = (d.embedding for d in made.data)
        assert {len(cat), len(money), len(kitten)} == {576}
        assert all(math.isclose(_dot(v, v), 1.0, rel_tol=1e-3) for v in (cat, money, kitten))
        assert _dot(kitten, cat) > _dot(kitten, money)
        assert made.usage.prompt_tokens == made.usage.total_tokens > 0
        floats = client.embeddings.create(model="bundled", input=KITTEN, encoding_format="float")
        assert [round(x, 5) for x in floats.data[0].embedding] == [round(x, 5) for x in kitten]

        with pytest.raises(openai.BadRequestError) as other:
            client.embeddings.create(model="text-embedding-3-small", input="x")
        assert other.value.body["message"] == (  # type: ignore[index]
            "There is no embedding model 'text-embedding-3-small' here; name parley-embedding."
        )
        ids = httpx.post(
            f"{served.base_url}/embeddings",
            headers={"Authorization": f"Bearer {served.key}"},
            json={"model": "parley-embedding", "input": [[1, 2, 3]]},
        )
        assert ids.status_code == 400
        assert ids.json()["error"]["message"].startswith("input holds token ids")
        assert len(client.embeddings.create(model="parley-embedding", input="ok").data) == 1


def test_without_an_embedding_model_none_is_made(tmp_path: Path) -> None:
    with (
        serving(tmp_path) as served,
        openai.OpenAI(base_url=served.base_url, api_key=served.key, max_retries=0) as client,
    ):
        with pytest.raises(openai.BadRequestError) as refused:
            client.embeddings.create(model="parley-embedding", input="tides")
        assert refused.value.body["message"] == (  # type: ignore[index]
            "No embedding model is chosen, so Parley makes no embeddings; choose one in "
            "Settings > Knowledge or with parley knowledge meaning."
        )
        assert client.models.list().data[0].id == "parley"  # still up
