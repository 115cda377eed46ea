"""``parley schedule``, ``parley runs`` and ``parley scheduler`` in real processes, with the
clock set by ``--now`` and the time zone by ``TZ``: schedules added, listed, paused and
removed; bad times refused in one sentence; missed due times run once with a note; two
runners at once run a due time once; a run that needs approval waits and is answered with
``parley chat --thread ID --resume``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.process import ROOT, parley

BERLIN = {"TZ": "Europe/Berlin"}


def _run(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    done = (
        parley(*args, data_dir=tmp_path, TZ="Europe/Berlin")
        if stdin is None
        else _with_input(tmp_path, args, stdin)
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _with_input(tmp_path: Path, args: tuple[str, ...], stdin: str) -> Any:
    import os

    return subprocess.run(
        [sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120, input=stdin, check=False,
        env={**os.environ, "PARLEY_DATA_DIR": str(tmp_path), **BERLIN},
    )  # fmt: skip


def _add(tmp_path: Path, *args: str) -> str:
    done = _run(tmp_path, "schedule", "add", "--agent", "Parley", *args)
    assert done.returncode == 0, done.stderr
    found = re.match(r"Schedule ([0-9a-f]{8}): ", done.stdout)
    assert found, done.stdout
    return found.group(1)


def _runs(tmp_path: Path) -> list[dict[str, Any]]:
    done = _run(tmp_path, "runs", "--json")
    assert done.returncode == 0, done.stderr
    runs: list[dict[str, Any]] = json.loads(done.stdout)
    return runs


def _script(tmp_path: Path, name: str, turns: list[Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(turns))
    return f"scripted:{path}"


def test_a_schedule_is_added_listed_shown_paused_and_removed(tmp_path: Path) -> None:
    done = _run(
        tmp_path, "schedule", "add", "--agent", "Parley", "--every", "weekdays 18:30",
        "--max-tool-calls", "3", "--now", "2026-12-04T12:00", "Evening summary",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == (
        "Next runs: Friday 4 December at 18:30 CET, Monday 7 December at 18:30 CET and "
        "Tuesday 8 December at 18:30 CET."
    )
    short = done.stdout[9:17]
    listed = _run(tmp_path, "schedule", "list", "--now", "2026-12-04T12:00").stdout
    assert f"{short}  on  Parley  weekdays at 18:30  next: Friday 4 December" in listed
    assert '"Evening summary"' in listed
    shown = _run(tmp_path, "schedule", "show", short, "--now", "2026-12-04T12:00").stdout
    assert "Limits of each run: max_tool_calls 3" in shown
    assert "Into: a new thread each run" in shown
    assert _run(tmp_path, "schedule", "pause", short).stdout == f"Paused schedule {short}.\n"
    assert f"{short}  paused  Parley" in _run(tmp_path, "schedule", "list").stdout
    resumed = _run(tmp_path, "schedule", "resume", short, "--now", "2026-12-05T12:00").stdout
    assert resumed.startswith(f"Schedule {short} is on. Next runs: Monday 7 December at 18:30")
    removed = _run(tmp_path, "schedule", "remove", short)
    assert removed.stdout == f"Removed schedule {short}; its runs and threads are kept.\n"
    assert _run(tmp_path, "schedule", "list").stdout.startswith("No schedules.")


def test_a_time_that_cannot_be_read_is_one_sentence_and_nothing_is_added(tmp_path: Path) -> None:
    for args, sentence in (
        (("--every", "30s"), '"30s" would run more often than once a minute'),
        (("--cron", "0 25 * * *"), 'its hour field "25" is not an hour (0-23)'),
        (("--every", "day 8"), 'the time "8" is not a time of day written HH:MM'),
    ):
        done = _run(tmp_path, "schedule", "add", "--agent", "Parley", *args, "Hi")
        assert done.returncode == 2
        assert sentence in done.stderr and done.stderr.count("\n") == 1
    no_agent = _run(tmp_path, "schedule", "add", "--every", "2h", "Hi")
    assert no_agent.returncode == 2 and "Say which agent runs the schedule" in no_agent.stderr
    no_time = _run(tmp_path, "schedule", "add", "--agent", "Parley", "Hi")
    assert no_time.returncode == 2 and "give --every WHEN or --cron EXPR" in no_time.stderr
    unknown = _run(tmp_path, "schedule", "add", "--agent", "Nobody", "--every", "2h", "Hi")
    assert unknown.returncode == 2 and "Nobody" in unknown.stderr
    bad_now = _run(tmp_path, "scheduler", "--once", "--now", "yesterday")
    assert bad_now.returncode == 2 and '--now "yesterday" is not a time' in bad_now.stderr
    assert _run(tmp_path, "schedule", "list").stdout.startswith("No schedules.")


def test_missed_due_times_run_once_with_a_note(tmp_path: Path) -> None:
    model = _script(tmp_path, "s.json", ["Report one.", "Report two."])
    short = _add(tmp_path, "--every", "day 08:00", "--now", "2026-11-30T07:00", "Morning report")
    done = _run(tmp_path, "scheduler", "--once", "--now", "2026-12-03T09:30", "--model", model)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        f"Schedule {short}: done (missed 3 runs since Monday 30 November at 08:00 CET) in thread"
    )
    again = _run(tmp_path, "scheduler", "--once", "--now", "2026-12-03T09:40", "--model", model)
    assert again.returncode == 0 and again.stdout == ""
    (run,) = _runs(tmp_path)
    assert (run["status"], run["missed"]) == ("done", 3)
    assert run["due"] == "2026-12-03T08:00:00+01:00"
    shown = _run(tmp_path, "threads").stdout
    assert run["thread"] in shown


def test_two_runners_at_once_run_a_due_time_once(tmp_path: Path) -> None:
    import os

    model = _script(tmp_path, "s.json", ["Report."])
    _add(tmp_path, "--every", "1h", "--now", "2026-12-03T07:00", "Hourly")
    env = {**os.environ, "PARLEY_DATA_DIR": str(tmp_path), **BERLIN}
    command = [
        sys.executable, "-m", "app", "scheduler", "--once", "--now", "2026-12-03T08:10",
        "--model", model,
    ]  # fmt: skip
    both = [
        subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    said = [p.communicate(timeout=120) for p in both]
    assert [p.returncode for p in both] == [0, 0]
    assert all(b"Traceback" not in err for _, err in said), said
    (run,) = _runs(tmp_path)
    assert run["status"] == "done"
    outs = [out.decode() for out, _ in said]
    ran = [o for o in outs if o.startswith(f"Schedule {run['schedule'][:8]}") and "done" in o]
    assert len(ran) == 1, outs  # one runner ran the due time
    (other,) = [o for o in outs if o is not ran[0]]
    # the other either found the lock taken, or nothing left due once the first was done
    assert other == "" or "already run by another runner (pid" in other, outs


def test_a_run_needing_approval_waits_and_is_answered_in_the_terminal(tmp_path: Path) -> None:
    target = tmp_path / "note.txt"
    call = {"name": "write_text_file", "args": {"path": str(target), "content": "hello"}}
    first = _script(tmp_path, "first.json", [{"tool_calls": [call]}])
    _add(tmp_path, "--every", "day 08:00", "--now", "2026-12-03T07:00", "Write the note")
    done = _run(tmp_path, "scheduler", "--once", "--now", "2026-12-03T08:05", "--model", first)
    assert done.returncode == 0, done.stderr
    (run,) = _runs(tmp_path)
    thread = run["thread"]
    assert run["status"] == "waiting" and not target.exists()
    assert run["sentence"] == (
        "Waiting for you: the agent asks to run write_text_file. Answer in the window or "
        f"with: parley chat --thread {thread} --resume"
    )
    rest = _script(tmp_path, "rest.json", ["I wrote the note."])
    answered = _run(
        tmp_path, "chat", "--thread", thread, "--resume", "--tools", "--model", rest, stdin="y\n"
    )
    assert answered.returncode == 0, answered.stderr
    assert target.read_text() == "hello"
    assert "I wrote the note." in answered.stdout
    later = _run(tmp_path, "scheduler", "--once", "--now", "2026-12-03T08:30", "--model", rest)
    assert later.returncode == 0 and later.stdout == ""
    (run,) = _runs(tmp_path)
    assert run["status"] == "done" and run["sentence"] == ""


def test_run_now_runs_a_schedule_at_once(tmp_path: Path) -> None:
    model = _script(tmp_path, "s.json", ["Now."])
    short = _add(tmp_path, "--every", "monday 09:00", "Weekly")
    done = _run(tmp_path, "schedule", "run-now", short, "--model", model)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Schedule {short}: done (run now) in thread ")
    (run,) = _runs(tmp_path)
    assert run["note"] == "run now"


def test_install_writes_the_user_service_and_uninstall_removes_it(tmp_path: Path) -> None:
    config = tmp_path / "config"
    data = tmp_path / "my data"
    where = {"XDG_CONFIG_HOME": str(config), "PATH": str(tmp_path / "no-bin")}

    def parley_with(*args: str) -> subprocess.CompletedProcess[str]:
        return parley(*args, XDG_CONFIG_HOME=where["XDG_CONFIG_HOME"], PATH=where["PATH"])

    done = parley_with("scheduler", "install", "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    unit = config / "systemd" / "user" / "parley-scheduler.service"
    assert done.stdout.splitlines()[0] == f"Wrote {unit}."
    assert "systemctl is not found here" in done.stdout
    assert "systemctl --user daemon-reload && systemctl --user enable --now " in done.stdout
    assert (
        unit.read_bytes()
        == (
            "[Unit]\n"
            "Description=Parley: run scheduled agents\n"
            "\n"
            "[Service]\n"
            "Type=simple\n"
            f'ExecStart="{sys.executable}" "-m" "app" "scheduler" "--data-dir" "{data}"\n'
            "Restart=on-failure\n"
            "RestartSec=60\n"
            "\n"
            "[Install]\n"
            "WantedBy=default.target\n"
        ).encode()
    )
    assert unit.stat().st_mode & 0o777 == 0o600
    again = parley_with("scheduler", "install", "--data-dir", str(data))
    assert again.stdout.startswith(f"Replaced {unit}.")
    removed = parley_with("scheduler", "uninstall")
    assert removed.returncode == 0 and removed.stdout.startswith(f"Removed {unit}.")
    assert not unit.exists()
    nothing = parley_with("scheduler", "uninstall")
    assert nothing.stdout == f"There is no scheduler service to remove ({unit}).\n"


def test_a_service_word_with_percent_dollar_or_quote_is_kept_literally() -> None:
    from app.services.schedules.unit import unit_text

    text = unit_text(Path('/d/100% "$HOME"'), "scripted:/m.json", ["/usr/bin/parley"])
    assert 'ExecStart="/usr/bin/parley" "scheduler" "--data-dir" "/d/100%% \\"$$HOME\\""' in text


def test_offline_a_run_on_another_computers_model_fails_with_the_ledgers_sentence(
    tmp_path: Path,
) -> None:
    _add(tmp_path, "--every", "day 08:00", "--now", "2026-12-03T07:00", "Hi")
    remote = "ollama:llama3@http://10.1.2.3:11434"
    done = _run(
        tmp_path, "scheduler", "--once", "--offline", "--now", "2026-12-03T08:01", "--model", remote
    )
    assert done.returncode == 0, done.stderr
    (run,) = _runs(tmp_path)
    assert run["status"] == "failed"
    assert run["sentence"].startswith(
        "Parley is offline, so it did not connect to 10.1.2.3:11434 for the model "
    )


def test_a_run_at_its_budget_waits_and_is_raised_on_a_terminal(tmp_path: Path) -> None:
    import os
    import pty

    from tests.cli.test_chat import _read_until

    call = {"name": "no_such_tool", "args": {}, "id": "c1"}
    model = _script(tmp_path, "s.json", [{"tool_calls": [call]}])
    _add(
        tmp_path, "--every", "day 08:00", "--now", "2026-12-03T07:00", "--max-model-calls", "1",
        "Go",
    )  # fmt: skip
    done = _run(tmp_path, "scheduler", "--once", "--now", "2026-12-03T08:01", "--model", model)
    assert done.returncode == 0, done.stderr
    (run,) = _runs(tmp_path)
    assert run["status"] == "waiting"
    assert run["sentence"].startswith(
        "Waiting for you: The next step would go over the model-call budget (1). Answer in "
    )
    rest = _script(tmp_path, "rest.json", ["Finished after the raise."])
    main, side = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "chat", "--thread", run["thread"], "--resume", "--model",
         rest],
        cwd=ROOT, stdin=side, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PARLEY_DATA_DIR": str(tmp_path), **BERLIN},
    )  # fmt: skip
    os.close(side)
    try:
        question = b"Raise by 1 model call and continue? [y/N]"
        seen = _read_until(proc, question)
        assert question in seen, seen.decode(errors="replace")
        os.write(main, b"y\n")
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        os.close(main)
    assert proc.returncode == 0, err.decode()
    assert "Finished after the raise." in (seen + out).decode()


def test_a_clock_set_back_runs_no_due_time_twice_and_says_so(tmp_path: Path) -> None:
    model = _script(tmp_path, "s.json", ["Report.", "Report again."])
    short = _add(tmp_path, "--every", "day 08:00", "--now", "2026-12-03T07:00", "Morning report")
    done = _run(tmp_path, "scheduler", "--once", "--now", "2026-12-03T08:01", "--model", model)
    assert done.stdout.startswith(f"Schedule {short}: done in thread"), done.stdout
    _run(tmp_path, "schedule", "pause", short)
    _run(tmp_path, "schedule", "resume", short, "--now", "2026-12-02T09:00")  # a day back
    again = _run(tmp_path, "scheduler", "--once", "--now", "2026-12-03T08:05", "--model", model)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        f"Schedule {short} did not run again: the clock went back to Thursday 3 December at "
        "08:05 CET, before its run for Thursday 3 December at 08:00 CET; it runs next Friday "
        "4 December at 08:00 CET.\n"
    )
    assert len(_runs(tmp_path)) == 1
