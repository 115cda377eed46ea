"""A user name and password inside a web address are found and taken out of any text."""

from __future__ import annotations

import pytest

from app.core.userinfo import has_userinfo, without_userinfo


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("http://alice:hunter2@10.0.0.5:8080/v1", "http://10.0.0.5:8080/v1"),
        (
            "the model openai:m@https://bob@host/v1 failed",
            "the model openai:m@https://host/v1 failed",
        ),
        ("at 'http://a:p@ss@host/v1/chat' (refused)", "at 'http://host/v1/chat' (refused)"),
        ("HTTPS://U:P@HOST", "HTTPS://HOST"),
        ("two: http://a:b@one/ and ws://c:d@two/x", "two: http://one/ and ws://two/x"),
        ("mail me@example.com, see http://host/a@b", "mail me@example.com, see http://host/a@b"),
        ("openai:m@http://127.0.0.1:8080/v1", "openai:m@http://127.0.0.1:8080/v1"),
    ],
)
def test_userinfo_is_taken_out_of_every_address_and_nothing_else(text: str, clean: str) -> None:
    assert without_userinfo(text) == clean


def test_an_address_naming_a_user_is_found() -> None:
    assert has_userinfo("http://alice:hunter2@host/v1")
    assert has_userinfo("http://alice@host")
    assert not has_userinfo("http://host/v1?to=me@example.com")
    assert not has_userinfo("http://127.0.0.1:11434")
