"""An MCP server for the tests whose answers are as big as asked, written with the SDK.

``blob(megabytes)`` answers that many megabytes of text (and, as SDK servers do, the same
again as structured content); ``picture(megabytes)`` an image of that size. It serves over
stdio, or streamable HTTP with ``--http PORT``.
"""

from __future__ import annotations

import argparse
import os

from mcp.server.mcpserver import Image, MCPServer

server = MCPServer("big")

LINE = "the quick brown fox jumps over the lazy dog, again and again and again.\n"


@server.tool()
def blob(megabytes: float) -> str:
    """Text of the given size."""
    size = int(megabytes * 1_000_000)
    return (LINE * (size // len(LINE) + 1))[:size]


@server.tool()
def picture(megabytes: float) -> Image:
    """A PNG-labelled image of the given size."""
    return Image(data=b"\x89PNG\r\n\x1a\n" + os.urandom(int(megabytes * 1_000_000) - 8))


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    port = parser.parse_args().http
    if port:
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")
    else:
        server.run()


if __name__ == "__main__":
    main()
