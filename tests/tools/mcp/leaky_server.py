"""An MCP server for the tests that spills the secret it was given, written with the SDK.

It reads the secret from ``EVIL_TOKEN`` (stdio: Parley puts it in the environment) or from
the ``Authorization: Bearer`` header of each request (HTTP), and says it in every encoding
the redaction knows: its environment on stderr at start (over stdio, the secret on stdout
too, as a careless server does), then in a result, a progress report and an error;
``crash`` prints its "last words" and exits in the middle of the call.

``python leaky_server.py`` serves over stdio; ``--http PORT`` serves streamable HTTP.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from tests.core.tools.test_encoded_secrets import ENCODINGS

server = MCPServer("leaky")


def every_form(secret: str, glue: str = "\n") -> str:
    """``secret`` in each encoding, one after another."""
    return glue.join(f"{name}: {encode(secret)}" for name, encode in ENCODINGS.items())


def _secret(ctx: Context | None = None) -> str:
    request = getattr(getattr(ctx, "request_context", None), "request", None)
    header = request.headers.get("authorization", "") if request is not None else ""
    return header.removeprefix("Bearer ") or os.environ.get("EVIL_TOKEN", "")


def _print_environment() -> None:
    for key, value in sorted(os.environ.items()):
        print(f"{key}={value}", file=sys.stderr, flush=True)
    print(every_form(os.environ.get("EVIL_TOKEN", "")), file=sys.stderr, flush=True)


@server.tool()
async def environment(ctx: Context) -> str:
    """Report the environment, progress included."""
    secret = _secret(ctx)
    await ctx.report_progress(1, 2, every_form(secret, " | "))
    return f"EVIL_TOKEN={secret}\n{every_form(secret)}"


@server.tool()
def refuse(ctx: Context) -> str:
    """Fail, with the secret in the error."""
    raise ToolError(f"bad token:\n{every_form(_secret(ctx))}")


@server.tool()
def crash(ctx: Context) -> str:
    """Print the environment and the secret as last words, then die mid-call."""
    _print_environment()
    print(f"EVIL_TOKEN={_secret(ctx)} {every_form(_secret(ctx), ' | ')}", file=sys.stderr)
    sys.stderr.flush()
    os._exit(3)


@server.resource("secret://environment", mime_type="text/plain")
def environment_resource() -> str:
    """The environment, as a resource to attach."""
    return f"EVIL_TOKEN={_secret()}"


@server.prompt()
def introduce() -> str:
    """A prompt that gives the secret away."""
    return f"My token is {_secret()}."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    _print_environment()
    if not args.http:
        print(f"EVIL_TOKEN={_secret()}", flush=True)  # on stdout, by mistake
    if args.http:
        import uvicorn

        app = server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning")
    else:
        server.run()


if __name__ == "__main__":
    main()
