"""An MCP server for the tests, written with the SDK: tools that answer, fail, dawdle and
crash, a text and an image resource, and a prompt.

``python demo_server.py`` serves over stdio; ``python demo_server.py --http PORT --token T``
serves streamable HTTP on 127.0.0.1:PORT and refuses requests without ``Bearer T``.
``--exit-at-start MESSAGE`` writes MESSAGE to stderr and exits before answering;
``--exit-after SECONDS`` serves for that long, then the process dies.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

server = MCPServer("demo")
READ_ONLY = ToolAnnotations(read_only_hint=True)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True)


@server.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Say the text back."""
    print(f"echo called with {text!r}", file=sys.stderr, flush=True)
    return f"echo: {text}"


@server.tool(annotations=READ_ONLY)
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool(annotations=READ_ONLY)
def fail(why: str) -> str:
    """Always fails, saying why."""
    raise ToolError(f"cannot do that: {why}")


@server.tool(annotations=READ_ONLY)
async def slow(seconds: float) -> str:
    """Answer after a while."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@server.tool(annotations=READ_ONLY)
async def count(steps: int, ctx: Context) -> str:
    """Count to ``steps``, reporting progress at each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"counted to {steps}"


@server.tool(annotations=DESTRUCTIVE)
def crash() -> str:
    """Exit the server process in the middle of the call."""
    print("crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(annotations=DESTRUCTIVE)
def write_note(text: str) -> str:
    """Keep a note (destructive: it replaces the last one)."""
    return f"noted: {text}"


@server.tool()
def pid() -> int:
    """The server's process id (unannotated)."""
    return os.getpid()


@server.tool(annotations=READ_ONLY)
def whoami() -> str:
    """The environment value DEMO_USER the server was started with."""
    return os.environ.get("DEMO_USER", "(unset)")


@server.resource("notes://today", mime_type="text/plain", description="Today's notes")
def today() -> str:
    """Today's notes."""
    return "Buy milk. Call Ada."


@server.resource("images://dot.png", mime_type="image/png")
def dot() -> bytes:
    """A one-pixel image."""
    return PNG


@server.prompt()
def summarize(topic: str) -> str:
    """Ask for a summary of a topic."""
    return f"Summarize {topic} in one sentence."


@server.prompt()
def greeting() -> str:
    """Greet the user warmly."""
    return "Say hello to Ada."


def _serve_http(port: int, token: str) -> None:
    import uvicorn

    app = server.streamable_http_app()
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no"})
            return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument("--token", default="")
    parser.add_argument("--exit-at-start")
    parser.add_argument("--exit-after", type=float)
    args = parser.parse_args()
    if args.exit_after:
        import threading
        import time

        def die() -> None:
            time.sleep(args.exit_after)
            print("time is up", file=sys.stderr, flush=True)
            os._exit(4)

        threading.Thread(target=die, daemon=True).start()
    if args.exit_at_start:
        print(args.exit_at_start, file=sys.stderr, flush=True)
        raise SystemExit(2)
    if args.http:
        _serve_http(args.http, args.token)
    else:
        server.run()


if __name__ == "__main__":
    main()
