"""``parley scheduler`` as a process that keeps running: killed (SIGKILL) in the middle of a
run it loses nothing (the next runner resumes the cut-off turn from its last saved step and
writes how it ended; the model is a real HTTP server on 127.0.0.1 speaking Ollama's
``/api/chat``, holding its first answer open until the runner is killed); running, it runs
what falls due and what is asked to run now, tells a second runner it runs, and stops on
SIGTERM."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.cli.process import ROOT, parley

BERLIN = {"TZ": "Europe/Berlin"}


@contextmanager
def stalling_ollama() -> Iterator[tuple[str, threading.Event, list[int]]]:
    """An Ollama-like server: the first ``/api/chat`` sends a word and then waits until the
    event is set; the later ones answer whole. Yields its URL, the event and how many chats
    it was asked for."""
    release = threading.Event()
    chats: list[int] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path != "/api/chat":
                self._json({"models": [], "capabilities": ["completion"]})
                return
            chats.append(1)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            if len(chats) == 1:
                self._line({"message": {"role": "assistant", "content": "Thinking"}})
                release.wait(60)
                return
            self._line({"message": {"role": "assistant", "content": "Resumed answer."}})
            self._line({"message": {"role": "assistant", "content": ""}, "done": True})

        do_GET = do_POST

        def _line(self, data: dict[str, Any]) -> None:
            self.wfile.write(json.dumps(data).encode() + b"\n")
            self.wfile.flush()

        def _json(self, data: dict[str, Any]) -> None:
            body = json.dumps(data).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", release, chats
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def _runs(tmp_path: Path) -> list[dict[str, Any]]:
    done = parley("runs", "--json", data_dir=tmp_path, TZ="Europe/Berlin")
    assert done.returncode == 0, done.stderr
    runs: list[dict[str, Any]] = json.loads(done.stdout)
    return runs


def test_a_runner_killed_mid_run_is_resumed_by_the_next(tmp_path: Path) -> None:
    with stalling_ollama() as (url, release, chats):
        model = f"ollama:tiny@{url}"
        added = parley(
            "schedule", "add", "--agent", "Parley", "--every", "day 08:00",
            "--now", "2026-12-03T07:00", "Write the report", data_dir=tmp_path, TZ="Europe/Berlin",
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        runner = subprocess.Popen(
            [sys.executable, "-m", "app", "scheduler", "--once", "--now", "2026-12-03T08:01",
             "--model", model],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PARLEY_DATA_DIR": str(tmp_path), **BERLIN},
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not chats and time.monotonic() < deadline and runner.poll() is None:
                time.sleep(0.1)
            assert chats, runner.communicate(timeout=5)
            (run,) = _runs(tmp_path)
            assert run["status"] == "running" and run["thread"]
        finally:
            runner.send_signal(signal.SIGKILL)
            runner.communicate(timeout=30)
        release.set()
        again = parley(
            "scheduler", "--once", "--now", "2026-12-03T08:20", "--model", model,
            data_dir=tmp_path, TZ="Europe/Berlin",
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert "Traceback" not in again.stderr
    (after,) = _runs(tmp_path)
    assert (after["id"], after["status"], after["thread"]) == (run["id"], "done", run["thread"])
    shown = parley("threads", "export", run["thread"], "--markdown", data_dir=tmp_path)
    assert "Resumed answer." in shown.stdout, shown.stdout + shown.stderr
    assert shown.stdout.count("## You\n\nWrite the report") == 1  # the prompt sent once


def _wait_for_runs(tmp_path: Path, count: int, runner: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and runner.poll() is None:
        if len([r for r in _runs(tmp_path) if r["status"] == "done"]) >= count:
            return
        time.sleep(0.5)
    raise AssertionError(f"no {count} runs done: {_runs(tmp_path)}")


def test_a_running_scheduler_runs_what_falls_due_and_another_is_told_it_runs(
    tmp_path: Path,
) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps(["First.", "Second."]))
    model = f"scripted:{script}"
    added = parley(
        "schedule", "add", "--agent", "Parley", "--every", "1m", "--now", "2026-12-03T08:00:00",
        "Tick", data_dir=tmp_path, TZ="Europe/Berlin",
    )  # fmt: skip
    short = added.stdout[9:17]
    runner = subprocess.Popen(
        [sys.executable, "-m", "app", "scheduler", "--now", "2026-12-03T08:00:58", "--model",
         model],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PARLEY_DATA_DIR": str(tmp_path), **BERLIN},
    )  # fmt: skip
    try:
        assert runner.stdout is not None
        first = runner.stdout.readline().decode()
        assert first == f"Running schedules (pid {runner.pid}); stop with Ctrl-C.\n"
        _wait_for_runs(tmp_path, 1, runner)  # due two seconds after it started
        other = parley("scheduler", "--once", data_dir=tmp_path, TZ="Europe/Berlin")
        assert other.returncode == 0
        started = r"started 2026-12-03T08:0[01]:\d\d\+01:00"
        assert re.fullmatch(
            rf"Schedules are already run by another runner \(pid {runner.pid}, {started}\); "
            r"this one stops\.\n",
            other.stdout,
        ), other.stdout
        asked = parley("schedule", "run-now", short, data_dir=tmp_path, TZ="Europe/Berlin")
        assert re.fullmatch(
            rf"Asked the runner \(pid {runner.pid}, {started}\) to run schedule {short} now\.\n",
            asked.stdout,
        ), asked.stdout
        _wait_for_runs(tmp_path, 2, runner)  # at its next look
    finally:
        runner.send_signal(signal.SIGTERM)
        _, err = runner.communicate(timeout=30)
    assert runner.returncode == 0, err.decode()
    assert b"Traceback" not in err
    notes = sorted(r["note"] for r in _runs(tmp_path))
    assert notes == ["", "run now"]
