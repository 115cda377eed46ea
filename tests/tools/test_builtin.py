"""The built-in tools, called through the same pipeline a model's calls go through."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.tools.builtin import BUILTIN_TOOLS, MAX_READ_BYTES, read_text_file, write_text_file


def test_file_tools_need_approval_and_permissions() -> None:
    by_name = {t.name: t for t in BUILTIN_TOOLS}
    assert not by_name["current_time"].requires_approval
    assert by_name["read_text_file"].requires_approval
    assert by_name["write_text_file"].permissions == ("files:write",)


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
