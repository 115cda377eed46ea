"""Redaction finds a secret in every common encoding, with secrets chosen to need each one."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, quote_plus, urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, computed_field, field_serializer

from app.core.state import Message, ToolResultBlock
from app.core.tools._redact import Redactor, UnredactableSecret

SECRETS = [
    "p+ss/w=rd==x9",  # base64 and URL specials
    "qu\"o'te\\back\\slash",  # quotes and backslashes
    "pässwörd-€-😀-ünï",  # non-ASCII, one beyond the BMP
    "tok en&x=1%?#",  # space and query-string specials
    "plain-token-0123456789",
]


def _b64(data: str) -> str:
    return base64.b64encode(data.encode()).decode()


def _lower_hex(text: str) -> str:
    return re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), text)


ENCODINGS: dict[str, Callable[[str], str]] = {
    "literal": lambda s: s,
    "quote, nothing safe": lambda s: quote(s, safe=""),
    "quote, default": quote,
    "quote, requests-like safe set": lambda s: quote(s, safe="!#$&'()*+,/:;=?@[]~"),
    "quote_plus": quote_plus,
    "quote_plus, slash safe": lambda s: quote_plus(s, safe="/"),
    "percent, lower-case hex": lambda s: _lower_hex(quote(s, safe="")),
    "urlencode in a query": lambda s: "https://api.example/v1?" + urlencode({"token": s, "q": 1}),
    "json.dumps": json.dumps,
    "json.dumps, ensure_ascii=False": lambda s: json.dumps(s, ensure_ascii=False),
    "json.dumps inside an object": lambda s: json.dumps({"auth": {"token": s}}),
    "json of json": lambda s: json.dumps(json.dumps({"t": s}))[1:-1],
    "repr": repr,
    "repr inside a dict with both quotes": lambda s: repr({"token": s, "q": 'it\'s "x"'}),
    "ascii": ascii,
    "repr of the bytes": lambda s: repr(s.encode()),
    "hex": lambda s: s.encode().hex(),
    "base64": _b64,
    "base64 without padding": lambda s: _b64(s).rstrip("="),
    "urlsafe base64": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "basic auth": lambda s: "Authorization: Basic " + _b64(f"alice:{s}"),
    "basic auth, longer user": lambda s: "Basic " + _b64(f"bob.smith@example.org:{s}"),
    "basic auth, empty user": lambda s: "Basic " + _b64(f":{s}"),
    "basic auth in a header dict": lambda s: repr({"Authorization": "Basic " + _b64(f"jo:{s}")}),
    "base64 with text glued in front": lambda s: "auth=xy" + _b64(f"u:{s}"),
    "basic auth in a query string": lambda s: "/?auth=" + quote(_b64(f"alice:{s}"), safe=""),
    "basic auth in a query, lower-case hex": lambda s: _lower_hex(quote(_b64(f"al:{s}"), safe="")),
}


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_every_encoding_of_the_secret_is_redacted(secret: str, encoding: str) -> None:
    encoded = ENCODINGS[encoding](secret)
    redactor = Redactor()
    redactor.add("svc/key", secret)
    out = redactor.text(f"request failed: {encoded} (status 401)")
    assert "[redacted secret svc/key]" in out
    assert encoded not in out
    assert secret not in out
    # nothing left in the output decodes back to a sizable piece of the secret
    raw = secret.encode()
    for run in re.findall(r"[A-Za-z0-9+/=_-]{8,}", out):
        for skip in range(4):
            body = run[skip:].rstrip("=")
            body = body[: len(body) - len(body) % 4]
            try:
                decoded = base64.b64decode(body + "==")
            except ValueError:
                continue
            assert raw[2:-2] not in decoded


def test_the_whole_basic_auth_value_is_replaced() -> None:
    redactor = Redactor()
    redactor.add("svc/key", SECRETS[0])
    header = "Basic " + _b64(f"alice:{SECRETS[0]}")
    redacted = redactor.text(f"sent {header}; refused")
    assert redacted == "sent Basic [redacted secret svc/key]; refused"


@pytest.mark.parametrize(
    "text",
    [
        "The weather in Oslo is sunny, 21 degrees. Nothing else to report.",
        "GET https://api.example/v1/items?page=2&q=p%2Bss - 200 OK",
        "data:image/png;base64," + _b64("an image that is not a secret" * 20),
        '{"token": "[redacted secret svc/key]", "x": "\\u00e9\\n"}',
    ],
)
def test_text_without_the_secret_is_left_alone(text: str) -> None:
    redactor = Redactor()
    for n, secret in enumerate(SECRETS):
        redactor.add(f"svc/key{n}", secret)
    assert redactor.text(text) == text


@settings(max_examples=150, deadline=None)
@given(
    secret=st.text(
        alphabet=st.characters(blacklist_categories=("Cs",)), min_size=6, max_size=40
    ).filter(lambda s: len(s.encode()) >= 8),
    encoding=st.sampled_from(sorted(ENCODINGS)),
    before=st.text(alphabet=" :=,;({[", max_size=2),
)
def test_any_secret_in_any_encoding_is_redacted(secret: str, encoding: str, before: str) -> None:
    encoded = ENCODINGS[encoding](secret)
    redactor = Redactor()
    redactor.add("svc/key", secret)
    out = redactor.text(f"failed{before}{encoded}{before[::-1]} end")
    assert encoded not in out
    assert "[redacted secret svc/key]" in out


class _Shown(BaseModel):
    """A model whose dump writes a string none of its fields holds."""

    key: str

    @field_serializer("key")
    def _spelled(self, key: str) -> str:
        return key[::-1]


class _Computed(BaseModel):
    """A model whose dump adds a computed string."""

    key: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def shown(self) -> str:
        return self.key[::-1]


@dataclass
class _Note:
    """A dataclass held in a message's metadata, which a dump turns into a dict."""

    text: str


def test_secrets_are_found_in_models_as_their_dump_writes_them() -> None:
    secret = "plain-token-0123456789"
    redactor = Redactor()
    redactor.add("svc/key", secret)
    in_a_field = Message.tool_message(
        [ToolResultBlock(call_id="c", output=f"x {secret}", status="completed")]
    )
    assert redactor.value([in_a_field])[0].content[0].output == "x [redacted secret svc/key]"
    clean = Message.text_message("nothing to hide here at all")
    assert redactor.value([clean])[0] is clean
    # the field holds the secret only backwards, the dump forwards: it is searched
    held = {"m": _Shown(key=secret[::-1])}
    assert redactor.value(held) is not held
    computed = {"m": _Computed(key="nothing secret")}
    assert redactor.value(computed) is computed
    assert secret not in json.dumps(_as_json(redactor.value([_Shown(key=secret[::-1])])))
    # the computed field writes the secret from a key that is not it: no redacted model can
    # be made, and none is given back
    with pytest.raises(UnredactableSecret, match="_Computed in it shows a secret"):
        redactor.value({"state": _Computed(key=secret[::-1])})
    noted = Message.text_message("hi", metadata={"note": _Note(secret)})
    assert secret not in json.dumps(_as_json(redactor.value([noted])), default=str)


def _as_json(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_json(v) for v in value]
    return value
