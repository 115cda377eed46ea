"""Web tools: ``fetch_url`` reads a page as text; ``http_request`` calls an API with a token.

Both reach only public internet addresses unless the user allows the local network (checked
after the name is resolved, and again on every redirect), speak only http and https, read at
most a capped number of bytes within a time limit, and need the user's approval.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

from app.core.tools import RuleSpec, Tool, ToolError, tool
from app.net.guard import NetworkPolicy
from app.tools._page import page_text

if TYPE_CHECKING:  # the HTTP client loads with the first call, not with the window
    from app.net.http import Fetched

__all__ = [
    "HTTP_TOKEN_REF",
    "MAX_FETCH_BYTES",
    "MAX_TEXT_CHARS",
    "fetch_tool",
    "http_request_tool",
]

MAX_FETCH_BYTES = 2_000_000
"""At most this much of a response body is read."""

MAX_TEXT_CHARS = 40_000
"""At most this much text of a page is given to the model."""

FETCH_SECONDS = 20.0
"""A request (with its redirects and body) must finish within this time."""

HTTP_TOKEN_REF = "http_request/token"
"""The keyring entry ``http_request`` sends as its bearer token (``parley key set`` it)."""

_TEXTUAL = ("application/json", "application/xml", "application/javascript", "application/xhtml")


def _policy(network: NetworkPolicy | bool) -> NetworkPolicy:
    return network if isinstance(network, NetworkPolicy) else NetworkPolicy(allow_private=network)


def _decoded(fetched: Fetched) -> str:
    try:
        return fetched.body.decode(fetched.charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know: read it as UTF-8
        return fetched.body.decode("utf-8", errors="replace")


def _clip(text: str, fetched: Fetched) -> str:
    notes = []
    if fetched.cut:
        notes.append(f"[... the response was cut after {len(fetched.body)} bytes]")
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS]
        notes.append(f"[... the text was cut at {MAX_TEXT_CHARS} characters]")
    return "\n".join([text.rstrip(), *notes])


def _is_text(media_type: str, body: bytes) -> bool:
    if b"\x00" in body[:1024]:
        return False
    return (
        media_type.startswith("text/")
        or media_type.endswith(("+json", "+xml"))
        or media_type.startswith(_TEXTUAL)
        or not media_type
    )


def fetch_tool(
    network: NetworkPolicy | bool = False, *, seconds: float = FETCH_SECONDS
) -> Tool[..., Any]:
    """Build ``fetch_url``; ``network`` says which addresses it may reach (``True``: any), and
    ``seconds`` how long a fetch may take."""
    policy = _policy(network)

    @tool(
        permissions=("net:fetch",),
        requires_approval=True,
        timeout=seconds + 10,
        rule=RuleSpec("url", "host", verb="fetch", doing="fetching"),
    )
    async def fetch_url(url: str) -> str:
        """Fetch a web page (http or https) and return its readable text, links kept.

        Args:
            url: The full address, e.g. "https://example.org/page".
        """
        from app.net.http import exchange

        fetched = await exchange("GET", url, policy=policy, limit=MAX_FETCH_BYTES, seconds=seconds)
        head = f"URL: {fetched.url}\nStatus: {fetched.status} {fetched.reason}".rstrip()
        if fetched.status >= 400:
            raise ToolError(f"{fetched.url} answered {fetched.status} {fetched.reason}".rstrip())
        if not _is_text(fetched.media_type, fetched.body):
            return (
                f"{head}\nType: {fetched.media_type}\n\nThis is not a text page "
                f"({len(fetched.body)} bytes read), so its content is not shown."
            )
        text = _decoded(fetched)
        if fetched.media_type in ("text/html", "application/xhtml+xml") or (
            not fetched.media_type and "<html" in text[:2000].lower()
        ):
            title, text = page_text(text, fetched.url)
            if title:
                head += f"\nTitle: {title}"
        return f"{head}\n\n{_clip(text, fetched)}"

    return fetch_url


def _scrubbed(text: str, token: str) -> str:
    return text.replace(token, "[token]") if token else text


def http_request_tool(
    network: NetworkPolicy | bool = False,
    token_ref: str = HTTP_TOKEN_REF,
    *,
    seconds: float = FETCH_SECONDS,
) -> Tool[..., Any]:
    """Build ``http_request``: the worked example of a tool that uses a secret.

    The token named ``token_ref`` is read from the keyring just before the call, sent as
    ``Authorization: Bearer ...`` to the URL's own site (never to a site it redirects to), and
    appears in no result or error.
    """
    policy = _policy(network)

    @tool(
        permissions=("net:request",),
        secret_refs={"token": token_ref},
        requires_approval=True,
        timeout=seconds + 10,
    )
    async def http_request(
        url: str,
        method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "GET",
        json_body: dict[str, Any] | list[Any] | None = None,
        token: str = "",
    ) -> str:
        """Call a web API with the user's saved access token; returns the status and the body.

        Args:
            url: The full address of the API endpoint (http or https).
            method: The HTTP method.
            json_body: Data sent as JSON (for POST, PUT and PATCH); leave out for none.
        """
        if not token.isascii() or not token.isprintable():
            raise ToolError(
                f"the saved token {token_ref!r} holds characters an HTTP header cannot carry; "
                f"set it again with: parley key set {token_ref}"
            )
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, */*"}
        content = None
        if json_body is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(json_body).encode()
        from app.net.http import exchange

        try:
            fetched = await exchange(
                method,
                url,
                policy=policy,
                limit=MAX_FETCH_BYTES,
                seconds=seconds,
                headers=headers,
                content=content,
            )
        except ToolError as exc:
            raise ToolError(_scrubbed(str(exc), token)) from None
        except Exception as exc:  # whatever the client says, the token is taken out
            raise ToolError(_scrubbed(f"the request failed ({exc})", token)) from None
        text = (
            _decoded(fetched)
            if _is_text(fetched.media_type, fetched.body)
            else (f"({len(fetched.body)} bytes of {fetched.media_type}, not shown)")
        )
        head = f"Status: {fetched.status} {fetched.reason}".rstrip()
        return _scrubbed(
            f"{head}\nURL: {fetched.url}\nType: {fetched.media_type}\n\n{_clip(text, fetched)}",
            token,
        )

    return http_request
