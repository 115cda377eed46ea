"""The benchmark runner prints its table whatever happens in one section, and says where it
ran. (Not a benchmark: it checks the runner, with a section that cannot load and one that
fails in a child process.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench.__main__ import _section
from bench.machine import describe_machine
from bench.table import Row, failed_row, render


def test_a_failing_section_is_one_row_saying_why_and_the_table_still_prints() -> None:
    missing = _section("no_such_section")
    try:
        subprocess.run(
            [sys.executable, "-c", "raise ValueError('Requested tokens (2049) exceed context')"],
            capture_output=True,
            text=True,
            check=True,
        )
    except subprocess.CalledProcessError as exc:
        child = failed_row("local models", exc)
    fine = Row("state", "something measured", 1.5, "ms", target="< 2 ms", ok=True)
    lines = render([fine, *missing, child]).splitlines()
    assert lines[2].split() == [
        "state:",
        "something",
        "measured",
        "1.5",
        "ms",
        "<",
        "2",
        "ms",
        "yes",
    ]
    assert lines[3].split()[:5] == [
        "no_such_section:",
        "section",
        "failed",
        "FAILED",
        "ModuleNotFoundError:",
    ]
    assert "No module named 'bench.bench_no_such_section'" in lines[3]
    assert lines[4].split()[:4] == ["local", "models:", "section", "failed"]
    assert "ValueError: Requested tokens (2049) exceed context" in lines[4]


def test_the_machine_line_names_cores_and_cpu_model() -> None:
    line = describe_machine()
    cores = len(os.sched_getaffinity(0))
    assert line.startswith(f"Machine: {cores} cores, ")
    model = next(
        (
            x.split(":", 1)[1].strip()
            for x in Path("/proc/cpuinfo").read_text().splitlines()
            if x.startswith("model name")
        ),
        "",
    )
    assert model and model in line
