"""What a link in the chat asks for: one typed intent per kind, parsed and written here only.

Parley's own rich text carries internal addresses: ``copy:N`` (code block N of the row),
``toggle:KEY`` (fold or unfold a card), ``remedy:ACTION[:TARGET]`` (an error's fix),
``source:N`` (citation N, from 1), ``media:ACTION:N`` (an attachment's action on block N),
``memories:used`` (the memories a reply used).
A message's own text links only to web pages and mail addresses. Every renderer writes its
links with :func:`href_of` and every handler reads them with :func:`parse_link`, then
dispatches on the intent's type; an address that names no intent parses to ``None``.

To add an intent: a frozen dataclass here, a member of :data:`LinkIntent`, a case in
:func:`parse_link` and :func:`href_of` (the round trip is tested for every member), and the
rule in :func:`app.ui.chat.message_html.own_link` saying when a row holds what it names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CopyCode",
    "LinkIntent",
    "MailLink",
    "MediaAction",
    "OpenSource",
    "Remedy",
    "ShowMemories",
    "Toggle",
    "WebLink",
    "href_of",
    "parse_link",
]


@dataclass(frozen=True)
class CopyCode:
    """Copy code block ``index`` (from 0, over the row's text blocks) to the clipboard."""

    index: int


@dataclass(frozen=True)
class Toggle:
    """Fold or unfold the card ``key`` (a tool card, a thinking section, a delegate's run)."""

    key: str


@dataclass(frozen=True)
class Remedy:
    """Carry out an error's fix ``action`` (e.g. ``set_key``) on ``target`` (may be empty)."""

    action: str
    target: str = ""


@dataclass(frozen=True)
class OpenSource:
    """Open the row's citation ``index`` (from 1, as its chip shows)."""

    index: int


@dataclass(frozen=True)
class MediaAction:
    """Do ``action`` (view, play, open, text, copy, save) on the attachment block ``index``."""

    action: str
    index: int


@dataclass(frozen=True)
class ShowMemories:
    """Show the memories the row's reply used, and those held back from its model."""


@dataclass(frozen=True)
class WebLink:
    """A web page (``http`` or ``https``), handed to the system's browser."""

    url: str


@dataclass(frozen=True)
class MailLink:
    """A mail address (``mailto:``), handed to the system's mail app."""

    url: str


LinkIntent = (
    CopyCode | Toggle | Remedy | OpenSource | MediaAction | ShowMemories | WebLink | MailLink
)
"""Everything a link in the chat may ask for."""

_NUMBER = re.compile(r"[0-9]{1,9}")
_WORD = re.compile(r"[a-z_][a-z0-9_]*")


def _number(text: str) -> int | None:
    return int(text) if _NUMBER.fullmatch(text) else None


def parse_link(href: str) -> LinkIntent | None:
    """The intent ``href`` names, or ``None`` when it names none (an unknown scheme, a
    malformed number, a web or mail address with nothing after its colon)."""
    scheme, colon, rest = href.partition(":")
    if not colon or not rest:
        return None
    kind = scheme.lower()
    if kind in ("http", "https"):
        return WebLink(href)
    if kind == "mailto":
        return MailLink(href)
    if scheme == "copy" and (n := _number(rest)) is not None:
        return CopyCode(n)
    if scheme == "toggle":
        return Toggle(rest)
    if scheme == "remedy":
        action, _, target = rest.partition(":")
        return Remedy(action, target) if _WORD.fullmatch(action) else None
    if scheme == "source" and (n := _number(rest)) is not None:
        return OpenSource(n)
    if scheme == "memories" and rest == "used":
        return ShowMemories()
    if scheme == "media":
        action, _, index = rest.partition(":")
        n = _number(index)
        return MediaAction(action, n) if n is not None and _WORD.fullmatch(action) else None
    return None


def href_of(intent: LinkIntent) -> str:
    """The address a renderer writes for ``intent`` (not yet escaped for HTML)."""
    match intent:
        case CopyCode(index):
            return f"copy:{index}"
        case Toggle(key):
            return f"toggle:{key}"
        case Remedy(action, target):
            return f"remedy:{action}:{target}"
        case OpenSource(index):
            return f"source:{index}"
        case MediaAction(action, index):
            return f"media:{action}:{index}"
        case ShowMemories():
            return "memories:used"
        case WebLink(url) | MailLink(url):
            return url
