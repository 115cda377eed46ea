"""The host of a URL, named only when every common URL parser would open that same host.

Python's ``urllib``, ``httpx`` and the browsers' parser (WHATWG, used by servers written in
JavaScript or TypeScript) read some URLs differently: for ``https://evil.example\\@docs.python.org/``
``urllib`` says ``docs.python.org`` while a browser-style parser opens ``evil.example``, since
``\\`` ends the host there. A decision about a host (an approval rule, "is this on this
computer") must not depend on which parser the code that opens the URL uses, so
:func:`host_of` names a host only for URLs written the one plain way:

- ``http://`` or ``https://`` (any case), nothing else and no other number of slashes;
- no space, control or other unprintable character, and no ``\\``, anywhere in the URL;
- a host of ASCII letters, digits, ``-`` and ``.`` only: no user name or password (``@``), no
  percent-escapes, no Unicode (nor its ``xn--`` form), no empty part;
- a host ending in a number is a dotted IPv4 address of four decimal parts (no ``0x``, octal
  ``0177`` or shortened ``127.1`` forms); an IPv6 address only in its shortest form;
- an optional port of up to five digits, at most 65535.

Anything else gets ``None``: it matches no host rule and is asked about.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

__all__ = ["host_of"]

_START = re.compile(r"(?i)(https?)://")
_AUTHORITY = re.compile(
    r"(?P<host>[A-Za-z0-9.-]+|\[(?P<ipv6>[0-9A-Fa-f:]+)\])(?::(?P<port>[0-9]{1,5}))?"
)
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?")
_NUMBER = re.compile(r"[0-9]+|0x[0-9a-f]*")
_OCTET = re.compile(r"0|[1-9][0-9]{0,2}")


def _plain(url: str) -> bool:
    """Whether every character is printable and none is a space or a backslash."""
    return url.isprintable() and " " not in url and "\\" not in url


def _name(host: str) -> str | None:
    """``host`` (lower case, ASCII) without a trailing dot, when every parser reads it alike."""
    name = host.removesuffix(".")
    labels = name.split(".")
    if not all(_LABEL.fullmatch(label) for label in labels):
        return None  # an empty part, or a part that starts or ends with '-'
    if any(label.startswith("xn--") for label in labels):
        return None  # an international name: shown as ASCII, read as look-alike letters
    if _NUMBER.fullmatch(labels[-1]):
        # a browser reads a host ending in a number as an IPv4 address, in any of its forms
        canonical = len(labels) == 4 and all(_OCTET.fullmatch(p) and int(p) <= 255 for p in labels)
        return name if canonical and host == name else None
    return name


def _ipv6(text: str) -> str | None:
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return None
    return text if str(address) == text and address.ipv4_mapped is None else None


def host_of(url: str) -> str | None:
    """The lower-case host of an ``http``/``https`` URL, without a trailing dot; ``None`` when
    ``url`` is not one, or is written so that URL parsers could disagree on its host (see the
    module)."""
    if not isinstance(url, str) or not _plain(url):
        return None
    start = _START.match(url)
    if start is None:
        return None
    rest = url[start.end() :]
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    parts = _AUTHORITY.fullmatch(authority.lower())
    if parts is None:
        return None
    if parts["port"] is not None and int(parts["port"]) > 65535:
        return None
    host = _ipv6(parts["ipv6"]) if parts["ipv6"] else _name(parts["host"])
    if host is None:
        return None
    try:  # the same URL as Python reads it: the same host, or no host at all
        seen = urlsplit(url).hostname
    except ValueError:
        return None
    return host if seen is not None and seen.removesuffix(".") == host else None
