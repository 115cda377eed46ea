"""``make pytest`` runs both halves of the tests, the window's and the rest, even when the
first fails, and fails when either did. A stand-in interpreter in a throwaway virtualenv
records what make ran, so no real tests run here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


Done = subprocess.CompletedProcess[str]


def _make_pytest(tmp_path: Path, failing: str) -> tuple[Done, list[str]]:
    """Run ``make pytest`` with a virtualenv whose python logs its arguments and fails for
    the half named ``failing`` (``window``, ``rest`` or ``none``)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls.log"
    python = venv / "bin" / "python"
    python.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        'case "$*" in *--ignore=*) half=rest ;; *) half=window ;; esac\n'
        f'[ "$half" = "{failing}" ] && exit 1\n'
        "exit 0\n",
        encoding="utf-8",
    )
    python.chmod(0o755)
    for stamp in (".installed-stamp", ".test-deps-stamp"):
        (venv / stamp).touch()  # newer than pyproject.toml: make sets nothing up
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "pytest", f"VENV={venv}"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return done, calls


@pytest.mark.parametrize("failing", ["rest", "window"])
def test_both_halves_run_and_a_failure_in_either_fails_the_target(
    tmp_path: Path, failing: str
) -> None:
    done, calls = _make_pytest(tmp_path, failing)
    assert calls == [
        "-m pytest -q --ignore=tests/ui --ignore=tests/e2e/window",
        "-m pytest -q tests/ui tests/e2e/window",
    ], done.stdout + done.stderr
    assert done.returncode != 0
    name = "non-window" if failing == "rest" else "window"
    assert f"pytest failed in: {name} tests" in done.stdout


def test_the_target_passes_when_both_halves_pass(tmp_path: Path) -> None:
    done, calls = _make_pytest(tmp_path, "none")
    assert len(calls) == 2
    assert done.returncode == 0, done.stdout + done.stderr
