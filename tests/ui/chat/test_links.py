"""Every link intent of the chat is written and read in one place, and a hostile address
names no intent (or only a web page / mail address, which the browser or mail app gets)."""

from __future__ import annotations

import typing

import pytest

from app.ui.chat.links import (
    CopyCode,
    LinkIntent,
    MailLink,
    MediaAction,
    OpenSource,
    Remedy,
    ShowMemories,
    Toggle,
    WebLink,
    href_of,
    parse_link,
)

EXAMPLES: list[LinkIntent] = [
    CopyCode(0),
    CopyCode(12),
    Toggle("5f1c:3"),
    Toggle("run:a:b"),
    Remedy("set_key", "openai/api-key"),
    Remedy("retry"),
    Remedy("pick_model", ""),
    OpenSource(1),
    MediaAction("view", 0),
    MediaAction("save", 7),
    ShowMemories(),
    WebLink("https://example.org/a?b=c#d"),
    WebLink("HTTP://example.org"),
    MailLink("mailto:someone@example.org"),
]


@pytest.mark.parametrize("intent", EXAMPLES, ids=repr)
def test_every_intent_reads_back_as_written(intent: LinkIntent) -> None:
    assert parse_link(href_of(intent)) == intent


def test_the_examples_cover_every_kind_of_intent() -> None:
    assert {type(x) for x in EXAMPLES} == set(typing.get_args(LinkIntent))


@pytest.mark.parametrize(
    "href",
    [
        "",
        ":",
        "copy:",
        "copy:-1",
        "copy:1e3",
        "copy:²",
        "copy:0x10",
        "source:",
        "source:one",
        "toggle:",
        "remedy:",
        "remedy::openai",
        "remedy:Set Key:x",
        "media:view",
        "media:view:",
        "media::3",
        "media:view:3:4",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "thumb:abc",
        "math:inline/x",
        "COPY:1",
        "http:",
        "mailto:",
        "/etc/passwd",
        "C:\\Windows\\system32",
    ],
)
def test_a_hostile_address_names_no_intent(href: str) -> None:
    assert parse_link(href) is None


def test_only_web_and_mail_addresses_leave_the_window() -> None:
    assert parse_link("https://example.org") == WebLink("https://example.org")
    assert parse_link("mailto:a@b.org") == MailLink("mailto:a@b.org")
    assert not isinstance(parse_link("ftp://example.org"), WebLink | MailLink)
