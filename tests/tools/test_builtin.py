"""The built-in tool sets: the terminal's older one, and the full one built from settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.tools.builtin import (
    BUILTIN_PERMISSIONS,
    BUILTIN_TOOLS,
    MAX_READ_BYTES,
    builtin_tools,
    permissions_of,
    read_text_file,
    write_text_file,
)
from tests.tools.helpers import ok, refused


def test_file_tools_need_approval_and_permissions() -> None:
    by_name = {t.name: t for t in BUILTIN_TOOLS}
    assert not by_name["current_time"].requires_approval
    assert by_name["read_text_file"].requires_approval
    assert by_name["write_text_file"].permissions == ("files:write",)
    assert permissions_of(BUILTIN_TOOLS) == BUILTIN_PERMISSIONS


def test_write_refuses_to_overwrite_unless_asked(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    assert "wrote 2 bytes" in write_text_file(str(target), "hi")
    with pytest.raises(FileExistsError, match="overwrite"):
        write_text_file(str(target), "again")
    write_text_file(str(target), "again", overwrite=True)
    assert read_text_file(str(target)) == "again"


def test_read_cuts_huge_files(tmp_path: Path) -> None:
    target = tmp_path / "big.txt"
    target.write_bytes(b"a" * (MAX_READ_BYTES + 10))
    text = read_text_file(str(target))
    assert text.endswith(f"[... cut at {MAX_READ_BYTES} bytes]")


async def test_the_full_set_from_settings(tmp_path: Path) -> None:
    async def search(text: str, limit: int) -> list[object]:
        return []

    tools = builtin_tools([tmp_path], False, search)
    names = [t.name for t in tools]
    assert names == [
        "current_time", "calculator", "list_directory", "read_file", "search_files",
        "write_file", "fetch_url", "http_request", "search_threads",
    ]  # fmt: skip
    assert [t.name for t in tools if t.requires_approval] == [
        "write_file", "fetch_url", "http_request",
    ]  # fmt: skip
    assert permissions_of(tools) == (
        "files:read", "files:write", "net:fetch", "net:request", "threads:read",
    )  # fmt: skip
    assert "search_threads" not in [t.name for t in builtin_tools([tmp_path])]
    for tool in tools:
        assert tool.description and tool.spec.parameters["type"] == "object"
        for name, prop in tool.spec.parameters["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
    assert "token" not in {t.name: t for t in tools}["http_request"].spec.parameters["properties"]


async def test_the_settings_reach_the_tools(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("granted")
    tools = {t.name: t for t in builtin_tools([tmp_path])}
    assert await ok(tools["read_file"], path="a.txt") == "granted"
    assert "loopback" in await refused(tools["fetch_url"], url="http://127.0.0.1:9/")
    opened = {t.name: t for t in builtin_tools([tmp_path], True)}
    assert "could not connect" in await refused(opened["fetch_url"], url="http://127.0.0.1:9/")
    assert "no folder is shared" in await refused(
        {t.name: t for t in builtin_tools()}["read_file"], path=str(tmp_path / "a.txt")
    )


async def test_current_time_is_iso_8601() -> None:
    import datetime as dt

    stamp = await ok(builtin_tools()[0])
    assert abs(dt.datetime.fromisoformat(stamp).timestamp() - dt.datetime.now().timestamp()) < 5
