"""A user name and password written inside a web address (``http://USER:PASS@HOST/``).

Parley never keeps a password that way: a model address holding one is refused (the password
belongs in the keyring), and any text Parley shows or keeps (the network ledger, a reply's
error, an export) has it taken out of every address it holds.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

__all__ = ["has_userinfo", "without_userinfo"]

_IN_TEXT = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s?#\\\"'<>]*@")
"""``scheme://`` followed by everything up to the last ``@`` before the host ends."""


def has_userinfo(url: str) -> bool:
    """Whether ``url`` names a user (and maybe a password) before its host."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        netloc = url
    return "@" in netloc or _IN_TEXT.search(url) is not None


def without_userinfo(text: str) -> str:
    """``text`` with the user name and password taken out of every address in it
    (``see http://me:pw@host/v1`` -> ``see http://host/v1``)."""
    return _IN_TEXT.sub(r"\1", text) if "@" in text else text
