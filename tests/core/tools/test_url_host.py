"""A URL's host is named only when Python's parser, httpx and the browsers' parser (WHATWG,
here the ``ada`` library) would all open that host: over a table of tricky URLs, whatever host
:func:`host_of` names is the one all three read, and the tricks that make them disagree (or
that hide a host) are named no host, match no host rule and get no host rule offered."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.tools import ArgumentRule, suggest_rule
from app.core.tools.argument_rules import host_of

ada_url = pytest.importorskip("ada_url", reason="the WHATWG URL parser (ada-url) is not installed")

PLAIN = {
    "https://docs.python.org/3/": "docs.python.org",
    "HTTPS://Docs.Python.ORG:443/a?b#c": "docs.python.org",
    "http://docs.python.org./x": "docs.python.org",
    "https://docs.python.org": "docs.python.org",
    "https://docs.python.org?q=@evil.example": "docs.python.org",
    "https://docs.python.org#@evil.example": "docs.python.org",
    "https://docs.python.org/%5C@evil.example/": "docs.python.org",
    "https://docs.python.org/ünïcode/päth": "docs.python.org",
    "https://a-b.example.com:8443/": "a-b.example.com",
    "http://127.0.0.1:8080/v1": "127.0.0.1",
    "http://localhost:65535/": "localhost",
    "http://10.0.0.255/": "10.0.0.255",
    "http://[::1]:8000/": "::1",
    "http://[2001:db8::1]/": "2001:db8::1",
}

TRICKS = [
    # a backslash ends the host for a browser, not for Python
    "https://evil.example\\@docs.python.org/",
    "https://evil.example\\docs.python.org/",
    "https://docs.python.org\\@evil.example/",
    "https://docs.python.org\\.evil.example/",
    "https://docs.python.org/\\@evil.example",
    # a user name or password before the host
    "https://evil.example@docs.python.org/",
    "https://docs.python.org@evil.example/",
    "https://user:pw@docs.python.org/",
    "https://docs.python.org:443@evil.example/",
    "https://docs.python.org%2F@evil.example/",
    "https://evil.example%5C@docs.python.org/",
    # spaces, tabs, new lines and other controls (a browser drops tabs and new lines)
    " https://docs.python.org/",
    "https://docs.python.org/ ",
    "https://docs.python.org /",
    "https://docs\tpython.org/",
    "https://docs.python.org\n.evil.example/",
    "https://docs.python.org\r/",
    "https://docs.python.org\x00.evil.example/",
    "https://docs.python.org\x1b/",
    "https://docs.python.org\u00a0/",
    "https://docs.python.org\u2028/",
    # another scheme, or slashes a browser forgives
    "https:docs.python.org/",
    "https:/docs.python.org/",
    "https:///docs.python.org/",
    "https:\\\\docs.python.org/",
    "//docs.python.org/",
    "docs.python.org/3/",
    "ftp://docs.python.org/",
    "file:///etc/passwd",
    "javascript://docs.python.org/%0Aalert(1)",
    "blob:https://docs.python.org/x",
    "view-source:https://docs.python.org/",
    "ws://docs.python.org/",
    # escapes and Unicode in the host, look-alikes and their ASCII form
    "https://docs%2Epython.org/",
    "https://%64ocs.python.org/",
    "https://\u217eocs.python.org/",  # small roman numeral d
    "https://docs.pyth\u043en.org/",  # Cyrillic o
    "https://docs\uff0epython\uff0eorg/",  # full-width full stops
    "https://docs.python.org\u3002evil/",  # ideographic full stop
    "https://DOCS.PYTHON.ORG\u0130/",
    "https://xn--dcs-5cd.python.org/",
    "https://docs.python.org\uff20evil.example/",  # full-width @
    # IPv4 written the other ways a browser reads
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://2130706433/",
    "http://127.1/",
    "http://127.0.0.01/",
    "http://1.2.3.4.5/",
    "http://256.0.0.1/",
    "http://127.0.0.1./",
    "http://example.0x/",
    "http://example.123/",
    # IPv6 not in its shortest form, zones, mapped IPv4
    "http://[0:0::1]/",
    "http://[::FFFF:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::1%25eth0]/",
    "http://[::1]]/",
    # odd host names and ports
    "https://docs..python.org/",
    "https://.docs.python.org/",
    "https://docs.python.org../",
    "https://-docs.python.org/",
    "https://docs_python.org/",
    "https://docs.python.org:99999/",
    "https://docs.python.org:65536/",
    "https://docs.python.org:443:80/",
    "https://docs.python.org:/",
    "https://docs.python.org:-1/",
    "https:///",
    "https://",
    "",
]


def _urllib(url: str) -> str | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.removesuffix(".") if host else None


def _httpx(url: str) -> str | None:
    try:
        host = httpx.URL(url).host
    except (httpx.InvalidURL, ValueError, TypeError):
        return None
    return host.removesuffix(".").lower() if host else None


def _whatwg(url: str) -> str | None:
    try:
        host = ada_url.URL(url).hostname
    except ValueError:
        return None
    return host.strip("[]").removesuffix(".") if host else None


def _all_read(url: str, host: str) -> None:
    assert (_urllib(url), _httpx(url), _whatwg(url)) == (host, host, host), url


@pytest.mark.parametrize("url", list(PLAIN))
def test_a_plain_url_names_the_host_every_parser_reads(url: str) -> None:
    host = host_of(url)
    assert host == PLAIN[url]
    _all_read(url, host)


def test_the_backslash_trick_fools_python_but_not_a_browser() -> None:
    url = "https://evil.example\\@docs.python.org/"
    assert _urllib(url) == "docs.python.org"
    assert _whatwg(url) == "evil.example"
    assert host_of(url) is None


@pytest.mark.parametrize("url", TRICKS)
def test_a_tricky_url_names_no_host_matches_no_rule_and_gets_no_host_rule(url: str) -> None:
    assert host_of(url) is None
    for host in {"docs.python.org", "evil.example", "127.0.0.1"}:
        rule = ArgumentRule.host("fetch", "url", host)
        assert not rule.matches("fetch", {"url": url})
    offered = suggest_rule("fetch", {"url": url})
    assert offered is None or offered.kind != "host"


_PIECES = st.sampled_from(
    ["docs", "python", "org", "evil", "example", ".", ":", "/", "@", "\\", "%2e", "%40", "[",
     "]", "::1", "0x7f", "0177", "1", "127", "\t", "\n", " ", "?", "#", "xn--", "\u217e",
     "\uff0e", "-", "443", "99999", "http://", "https://", "https:"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=12).map("".join))
def test_any_host_named_is_the_one_every_parser_reads(tail: str) -> None:
    for url in (f"https://{tail}", tail):
        host = host_of(url)
        if host is not None:
            _all_read(url, host)


def test_a_host_rule_is_made_only_for_a_host_written_the_plain_way() -> None:
    assert ArgumentRule.host("fetch", "url", "Docs.Python.org.").value == "docs.python.org"
    assert ArgumentRule.host("fetch", "url", "::1").value == "::1"
    for odd in ("evil.example\\@docs.python.org", "docs%2Epython.org", "0x7f.1", "xn--dcs-5cd"):
        with pytest.raises(ValueError, match="not a host name"):
            ArgumentRule.host("fetch", "url", odd)
