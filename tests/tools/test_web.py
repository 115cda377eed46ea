"""``fetch_url`` and ``http_request`` against real HTTP servers on loopback addresses."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.agent import create_agent
from app.core.checkpoint import InMemoryCheckpointer
from app.core.graph import Resume
from app.core.models.scripted import ScriptedChatModel
from app.core.netgate import GATE, install
from app.core.state import HumanMessage, ToolResultBlock
from app.core.state.serde import dump_state
from app.core.tools import ToolError, requests_of
from app.net.guard import NetworkPolicy
from app.net.http import exchange
from app.tools.web import HTTP_TOKEN_REF, MAX_FETCH_BYTES, fetch_tool, http_request_tool
from tests.tools.helpers import ok, refused
from tests.tools.web_server import Served, serve

LOOPBACK_ONLY = NetworkPolicy.of(False, ["127.0.0.1/32"])
TOKEN = "tok-3c9f1e77b2"


@pytest.fixture
def server() -> Iterator[Served]:
    with serve("127.0.0.1") as served:
        yield served


@pytest.fixture
def other() -> Iterator[Served]:
    """A second server on 127.0.0.2: reachable, but not in ``LOOPBACK_ONLY``."""
    with serve("127.0.0.2") as served:
        yield served


async def test_a_page_is_reduced_to_readable_text(server: Served) -> None:
    text = await ok(fetch_tool(True), url=f"{server.url}/page")
    head, body = text.split("\n\n", 1)
    assert head == f"URL: {server.url}/page\nStatus: 200 OK\nTitle: Tide tables & times"
    assert "# High tide" in body
    assert "The next high tide is at **14:32**." in body
    assert f"See [more tables]({server.url}/more)." in body  # links made absolute
    assert "secret" not in body and "color" not in body and "wave.png" not in body


async def test_the_page_charset_is_honoured(server: Served) -> None:
    text = await ok(fetch_tool(True), url=f"{server.url}/latin1")
    assert text.endswith("\n\ncafé crème")
    odd = await ok(fetch_tool(True), url=f"{server.url}/oddcharset")
    assert odd.endswith("\n\nnaïve")


async def test_loopback_is_refused_by_default(server: Served) -> None:
    said = await refused(fetch_tool(), url=f"{server.url}/page")
    assert said == (
        "Tool 'fetch_url' failed: 127.0.0.1 is a loopback address (this computer); web tools "
        "reach only public internet addresses unless the user allows the local network in the "
        "settings"
    )
    said = await refused(fetch_tool(), url=f"http://localhost:{server.port}/page")
    assert "(the address of 'localhost') is a loopback address" in said
    assert server.seen == []  # refused before connecting


@pytest.mark.parametrize(
    "url",
    ["http://10.1.2.3/", "http://192.168.0.1/", "http://169.254.169.254/latest", "http://[::1]/",
     "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://100.64.0.1/"],
)  # fmt: skip
async def test_private_and_reserved_addresses_are_refused(url: str) -> None:
    said = await refused(fetch_tool(), url=url)
    assert "web tools reach only public internet addresses" in said


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("file:///etc/passwd", "only http and https URLs can be fetched, not 'file'"),
        ("ftp://example.org/x", "only http and https URLs can be fetched, not 'ftp'"),
        ("example.org", "only http and https URLs can be fetched, not 'none'"),
        ("http://", "names no host"),
    ],
)
async def test_only_http_and_https(url: str, why: str) -> None:
    assert why in await refused(fetch_tool(True), url=url)


async def test_a_redirect_to_a_private_address_is_refused(server: Served, other: Served) -> None:
    server.redirect_to = f"{other.url}/page"
    said = await refused(fetch_tool(LOOPBACK_ONLY), url=f"{server.url}/redirect")
    assert said.startswith("Tool 'fetch_url' failed: 127.0.0.2 is a loopback address")
    assert other.seen == []  # the second server, though reachable, was never contacted
    server.redirect_to = "file:///etc/passwd"
    said = await refused(fetch_tool(LOOPBACK_ONLY), url=f"{server.url}/redirect")
    assert "only http and https URLs can be fetched, not 'file'" in said


async def test_an_allowed_redirect_is_followed(server: Served) -> None:
    server.redirect_to = "/page"
    text = await ok(fetch_tool(LOOPBACK_ONLY), url=f"{server.url}/redirect")
    assert text.startswith(f"URL: {server.url}/page\nStatus: 200 OK")


async def test_an_oversized_fetch_is_cut_with_a_note(server: Served) -> None:
    text = await ok(fetch_tool(True), url=f"{server.url}/big")
    assert text.endswith(
        f"[... the response was cut after {MAX_FETCH_BYTES} bytes]\n"
        "[... the text was cut at 40000 characters]"
    )
    endless = await ok(fetch_tool(True), url=f"{server.url}/endless")
    assert f"cut after {MAX_FETCH_BYTES} bytes" in endless


async def test_a_slow_server_is_given_up_on(server: Served) -> None:
    said = await refused(fetch_tool(True, seconds=0.5), url=f"{server.url}/slow")
    assert said == f"Tool 'fetch_url' failed: {server.url}/slow did not answer within 0.5 s"


async def test_errors_and_binary_bodies_are_results(server: Served) -> None:
    said = await refused(fetch_tool(True), url=f"{server.url}/missing")
    assert said == f"Tool 'fetch_url' failed: {server.url}/missing answered 404 Not Found"
    image = await ok(fetch_tool(True), url=f"{server.url}/image")
    assert image.endswith("This is not a text page (208 bytes read), so its content is not shown.")
    said = await refused(fetch_tool(True), url="http://127.0.0.1:9/")
    assert said == (
        "Tool 'fetch_url' failed: could not connect to http://127.0.0.1:9/ (refused or unreachable)"
    )


def _agent(tool: Any, call: dict[str, Any], secrets: Any = None) -> Any:
    model = ScriptedChatModel([{"text": "", "tool_calls": [call]}, {"text": "Here it is."}])
    return create_agent(model, [tool], secret_resolver=secrets, checkpointer=InMemoryCheckpointer())


async def test_fetch_needs_approval_and_its_permission(server: Served) -> None:
    call = {"name": "fetch_url", "args": {"url": f"{server.url}/page"}, "id": "f1"}
    agent = _agent(fetch_tool(True), call)
    config = {"thread_id": "t1", "tool_permissions": ["net:fetch"]}
    paused = await agent.ainvoke({"messages": [HumanMessage("tides?")]}, config)
    assert paused.is_interrupted() and server.seen == []
    requests = requests_of(paused.execution_meta.interrupts[0].value)
    assert requests is not None and requests[0].args == {"url": f"{server.url}/page"}
    done = await agent.ainvoke(Resume({"f1": "approve"}), config)
    assert "14:32" in str(done.context[-2].content[0].output)  # type: ignore[union-attr]

    unpermitted = _agent(fetch_tool(True), call)
    done = await unpermitted.ainvoke({"messages": [HumanMessage("x")]}, {"thread_id": "t2"})
    assert not done.is_interrupted()
    assert "needs the permission(s) net:fetch" in str(done.context[2].content[0].output)  # type: ignore[union-attr]


async def test_http_request_sends_the_token_and_never_shows_it(server: Served) -> None:
    from app.secrets.keyring_resolver import SERVICE, KeyringSecretResolver
    from tests.services.memory_keyring import MemoryKeyring

    keyring = MemoryKeyring()
    keyring.set_password(SERVICE, HTTP_TOKEN_REF, TOKEN)
    call = {
        "name": "http_request",
        "args": {"url": f"{server.url}/echo", "method": "POST", "json_body": {"q": 1}},
        "id": "h1",
    }
    agent = _agent(http_request_tool(True), call, KeyringSecretResolver(backend=keyring))
    config = {"thread_id": "t1", "tool_permissions": ["net:request"]}
    paused = await agent.ainvoke({"messages": [HumanMessage("call it")]}, config)
    assert paused.is_interrupted() and server.seen == []
    done = await agent.ainvoke(Resume({"h1": "approve"}), config)
    assert server.seen[0][2]["Authorization"] == f"Bearer {TOKEN}"  # the server got it
    output = next(b for m in done.context for b in m.content if isinstance(b, ToolResultBlock))
    assert str(output.output).startswith(f"Status: 200 OK\nURL: {server.url}/echo")
    assert 'body={"q": 1}' in str(output.output)
    assert "auth=Bearer [" in str(output.output)
    assert TOKEN not in dump_state(done).decode()


async def test_the_token_is_not_carried_to_another_site(server: Served, other: Served) -> None:
    server.redirect_to = f"{other.url}/echo"
    text = await ok(http_request_tool(True), lambda ref: TOKEN, url=f"{server.url}/redirect")
    assert "auth=(none)" in text
    assert other.seen[0][2].get("Authorization") is None


@pytest.mark.parametrize("token", [TOKEN + "\nX-Evil: 1", TOKEN + "é"])
async def test_a_token_a_header_cannot_carry_is_refused_without_showing_it(
    server: Served, token: str
) -> None:
    said = await refused(http_request_tool(True), lambda ref: token, url=f"{server.url}/echo")
    assert said == (
        "Tool 'http_request' failed: the saved token 'http_request/token' holds characters an "
        "HTTP header cannot carry; set it again with: parley key set http_request/token"
    )
    assert TOKEN not in said and server.seen == []


async def test_http_errors_never_show_the_token(server: Served) -> None:
    for url in [f"http://127.0.0.1:9/{TOKEN}", f"{server.url}/slow", f"http://{TOKEN}.invalid/"]:
        tool = http_request_tool(True, seconds=0.5)
        said = await refused(tool, lambda ref: TOKEN, url=url)
        assert TOKEN not in said, said


async def test_a_missing_token_says_how_to_set_it(server: Served) -> None:
    from app.secrets.keyring_resolver import KeyringSecretResolver
    from tests.services.memory_keyring import MemoryKeyring

    resolver = KeyringSecretResolver(backend=MemoryKeyring())
    said = await refused(http_request_tool(True), resolver, url=f"{server.url}/echo")
    assert "parley key set http_request/token" in said
    assert server.seen == []


async def test_a_name_is_sent_as_the_host_though_the_checked_address_is_dialled(
    server: Served,
) -> None:
    text = await ok(fetch_tool(True), url=f"http://localhost:{server.port}/page")
    assert "14:32" in text
    assert server.seen[0][2]["Host"] == f"localhost:{server.port}"


@pytest.fixture
def tls(tmp_path: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A server context with a certificate for ``localhost`` and a client context trusting it."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    return server_side, ssl.create_default_context(cafile=str(cert))


async def test_https_verifies_the_name_while_dialling_the_checked_address(
    tls: tuple[ssl.SSLContext, ssl.SSLContext],
) -> None:
    server_side, trust = tls
    with serve("127.0.0.1", tls=server_side) as served:
        url = f"https://localhost:{served.port}/page"
        fetched = await exchange(
            "GET", url, policy=LOOPBACK_ONLY, limit=1000, seconds=5, verify=trust
        )
        assert fetched.status == 200 and b"14:32" in fetched.body
        assert served.seen[0][2]["Host"] == f"localhost:{served.port}"
        wrong = f"https://127.0.0.1:{served.port}/page"  # the certificate names localhost only
        with pytest.raises(ToolError, match=f"the certificate of {wrong} could not be verified"):
            await exchange("GET", wrong, policy=LOOPBACK_ONLY, limit=1000, seconds=5, verify=trust)


async def test_an_international_name_is_resolved_in_its_ascii_form() -> None:
    said = await refused(fetch_tool(), url="http://bücher.invalid/")
    assert said.startswith(
        "Tool 'fetch_url' failed: the host name 'xn--bcher-kva.invalid' could not"
    )


async def test_offline_a_fetch_is_refused_before_the_server_sees_it(other: Served) -> None:
    install().offline = True
    try:
        said = await refused(fetch_tool(True), url=f"{other.url}/page")
    finally:
        GATE.offline = False
    assert said == (
        f"Tool 'fetch_url' failed: Parley is offline, so it did not connect to "
        f"127.0.0.2:{other.port} for the tool fetch_url in thread t1. To allow it, turn "
        "offline mode off (Settings > Network, or run without --offline and PARLEY_OFFLINE)"
    )
    assert other.seen == []
