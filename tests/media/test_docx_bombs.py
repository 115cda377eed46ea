"""Word zip bombs under the unpack limit are refused, with the reason, before python-docx
builds them in memory: the attachment is read in a process capped at 2 GiB (so a bomb cannot
take the machine down) and its peak memory stays far below that."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.media import bombs

_READ = """
import json, resource, sys  # VmHWM: this process's own peak (ru_maxrss counts the fork's)
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from app.media.errors import IngestError
from app.media.ingest import document_text
path = sys.argv[1]
data = open(path, "rb").read()
try:
    document_text(data, "report.docx")
    outcome = "read"
except IngestError as exc:
    outcome = exc.reason
except MemoryError:
    outcome = "MemoryError"
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
peak = int(status[0]) * 1024
print(json.dumps({"outcome": outcome, "peak": peak}))
"""

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("bomb", "reason"),
    [
        (
            bombs.many_elements,
            "it is a Word document whose parts hold over 1,000,000 XML elements (a zip bomb?)",
        ),
        (
            bombs.huge_runs,
            "it is a Word document whose text (word/document.xml) unpacks to over 40.0 MB "
            "(a zip bomb?)",
        ),
        (
            bombs.many_styles,
            "it is a Word document whose parts hold over 1,000,000 XML elements (a zip bomb?)",
        ),
    ],
)
def test_a_word_bomb_is_refused_with_its_reason_and_little_memory(
    tmp_path: Path, bomb: Callable[[], bytes], reason: str
) -> None:
    data = bomb()
    assert 10_000 < len(data) < 300_000  # small on disk, under the declared-size limit
    path = tmp_path / "report.docx"
    path.write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-c", _READ, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["outcome"] == reason
    assert result["peak"] < 400 << 20
