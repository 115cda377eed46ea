"""Cutting a server's output into lines holds at most the limit, whatever arrives."""

from __future__ import annotations

from app.tools.mcp._framing import Lines, Oversized, request_id


def test_lines_come_out_whole_across_chunks() -> None:
    lines = Lines(100)
    assert lines.feed(b'{"a": 1}\n{"b"') == [b'{"a": 1}']
    assert lines.feed(b": 2}\n\n") == [b'{"b": 2}', b""]
    assert lines.rest() == b""


def test_a_message_over_the_limit_keeps_only_its_ends_and_names_its_request() -> None:
    lines = Lines(1000)
    head = b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"'
    out = lines.feed(head)
    for _ in range(50):
        out += lines.feed(b"x" * 4096)
    out += lines.feed(b'"}]}}\n{"jsonrpc":"2.0","id":8,"result":{}}\n')
    [big, small] = out
    assert isinstance(big, Oversized)
    assert big.size == len(head) + 50 * 4096 + len(b'"}]}}')
    assert big.head.startswith(head)
    assert big.tail.endswith(b'"}]}}')
    assert len(big.head) + len(big.tail) <= 1024
    assert request_id(big) == 7
    assert small == b'{"jsonrpc":"2.0","id":8,"result":{}}'


def test_the_id_may_come_last_or_be_a_string_and_a_request_of_the_server_names_none() -> None:
    late = Oversized(10**8, b'{"result":{"text":"xx', b'xx"},"id":"r-9","jsonrpc":"2.0"}')
    own = Oversized(10**8, b'{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"', b"}")
    assert request_id(late) == "r-9"
    assert request_id(own) is None


def test_free_text_over_the_limit_comes_out_in_pieces() -> None:
    lines = Lines(4, cut_long=True)
    assert lines.feed(b"abcdefghij") == [b"abcd", b"efgh"]
    assert lines.feed(b"k\nlm") == [b"ijk"]
    assert lines.rest() == b"lm"
