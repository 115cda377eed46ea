"""When a schedule runs: reading "day 08:00", "weekdays 18:30", "monday 09:00", "2h", "30m"
or a cron expression into one :class:`ScheduleRule`, and the times it is due.

Pure: no Qt, no SQLite, no clock of its own (every function is handed the time it asks
about). Times of day are in the person's time zone (a :class:`~zoneinfo.ZoneInfo`); a time
that does not exist on the day clocks go forward (02:30 in Berlin on the last Sunday of
March) runs at the first minute that does (03:00), and one that happens twice when they go
back runs once, the first time, as cron does. An interval ("2h") counts real time from when
the schedule was made, whatever the clocks do. Cron expressions are read by ``cronsim``
(five fields; a sixth, seconds, is refused: nothing runs more often than once a minute).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from cronsim import CronSim, CronSimError

from app.core.errors import UserError

__all__ = [
    "MAX_COUNTED",
    "ScheduleRule",
    "due_times",
    "in_words",
    "next_due",
    "next_runs_in_words",
    "parse_cron",
    "parse_when",
    "rule_of",
]

Kind = Literal["every", "cron"]

MAX_COUNTED = 100_000
"""The most due times :func:`due_times` counts (a minute's schedule off for ten weeks)."""

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_WORDS: dict[str, tuple[str, str]] = {
    "day": ("*", "every day"),
    "daily": ("*", "every day"),
    "weekdays": ("1-5", "weekdays"),
    "weekday": ("1-5", "weekdays"),
    "weekends": ("0,6", "weekends"),
    "weekend": ("0,6", "weekends"),
    **{name: (str((i + 1) % 7), f"every {name.title()}") for i, name in enumerate(_DAYS)},
    **{name[:3]: (str((i + 1) % 7), f"every {name.title()}") for i, name in enumerate(_DAYS)},
}
_UNITS = {
    "s": 1, "sec": 1, "second": 1, "seconds": 1,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hour": 3600, "hours": 3600,
    "d": 86400, "day": 86400, "days": 86400,
}  # fmt: skip
_INTERVAL = re.compile(r"^(\d+)\s*([a-z]+)$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")
_FIELDS = (
    ("minute", "a minute (0-59)"),
    ("hour", "an hour (0-23)"),
    ("day-of-month", "a day those months have (1-31, L or LW)"),
    ("month", "a month (1-12 or JAN-DEC)"),
    ("day-of-week", "a day of the week (0-7 or SUN-SAT)"),
)
_LONGEST = 366 * 86400


@dataclass(frozen=True)
class ScheduleRule:
    """When a schedule is due: every ``every`` seconds of real time, or at the times of the
    five-field ``cron`` expression in the person's time zone. ``text`` is what was written,
    ``words`` says it for people ("every day at 08:00")."""

    kind: Kind
    text: str
    words: str
    cron: str | None = None
    every: int | None = None


def rule_of(kind: str, text: str) -> ScheduleRule:
    """The rule a schedule kept as ``kind`` (``every`` or ``cron``) and ``text``."""
    return parse_cron(text) if kind == "cron" else parse_when(text)


def parse_when(text: str) -> ScheduleRule:
    """Read WHEN: ``"day 08:00"``, ``"weekdays 18:30"``, ``"monday 09:00"``, ``"2h"``,
    ``"30m"`` (``"every"`` and ``"at"`` may be written too). :class:`UserError`, one
    sentence naming the part, when it cannot be read or would run more often than once a
    minute."""
    shown = " ".join(text.split())
    words = shown.lower().split()
    if words[:1] == ["every"]:
        words = words[1:]
    words = [w for w in words if w != "at"]
    if not words:
        raise UserError(
            'The schedule says no time: write one like "day 08:00", "weekdays '
            '18:30", "monday 09:00", "2h" or "30m".'
        )
    if len(words) <= 2 and (found := _INTERVAL.match("".join(words))) is not None:
        return _interval(shown, int(found.group(1)), found.group(2))
    day = words[0]
    if day not in _DAY_WORDS:
        raise UserError(
            f'"{shown}" cannot be read: "{day}" is not day, weekdays, weekends, a day of '
            f'the week or an interval like "2h" or "30m".'
        )
    if len(words) != 2:
        raise UserError(
            f'"{shown}" cannot be read: write the time after "{day}", as in "{day} 08:00".'
        )
    hour, minute = _time_of(shown, words[1])
    days, said = _DAY_WORDS[day]
    return ScheduleRule(
        kind="every",
        text=shown,
        words=f"{said} at {hour:02d}:{minute:02d}",
        cron=f"{minute} {hour} * * {days}",
    )


def _time_of(shown: str, part: str) -> tuple[int, int]:
    found = _TIME.match(part)
    if found is None:
        raise UserError(
            f'"{shown}" cannot be read: the time "{part}" is not a time of day '
            f"written HH:MM, as in 08:00 or 18:30."
        )
    hour, minute = int(found.group(1)), int(found.group(2))
    if hour > 23:
        raise UserError(
            f'"{shown}" cannot be read: the time "{part}" has hour {hour}; hours go from 00 to 23.'
        )
    if minute > 59:
        raise UserError(
            f'"{shown}" cannot be read: the time "{part}" has minute {minute}; '
            f"minutes go from 00 to 59."
        )
    return hour, minute


def _interval(shown: str, count: int, unit: str) -> ScheduleRule:
    if unit not in _UNITS:
        raise UserError(
            f'"{shown}" cannot be read: "{unit}" is not a unit; use m for '
            f'minutes, h for hours or d for days, as in "30m" or "2h".'
        )
    seconds = count * _UNITS[unit]
    if seconds < 60:
        raise UserError(
            f'"{shown}" would run more often than once a minute; a schedule runs at most '
            f'once a minute ("1m" or more).'
        )
    if seconds > _LONGEST:
        raise UserError(
            f'"{shown}" is longer than a year; write a date with a cron expression instead.'
        )
    return ScheduleRule(kind="every", text=shown, words=f"every {_span(seconds)}", every=seconds)


def _span(seconds: int) -> str:
    for size, name in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds % size == 0:
            n = seconds // size
            return name if n == 1 else f"{n} {name}s"
    raise AssertionError(seconds)  # every interval is whole minutes


def parse_cron(expression: str) -> ScheduleRule:
    """Read a five-field cron expression (minute hour day-of-month month day-of-week);
    :class:`UserError`, one sentence naming the field, when it cannot be read."""
    shown = " ".join(expression.split())
    parts = shown.split(" ") if shown else []
    if len(parts) != 5:
        raise UserError(
            f'The cron expression "{shown}" has {len(parts)} field'
            f"{'' if len(parts) == 1 else 's'}; it needs five: minute, hour, day of the "
            f'month, month and day of the week, as in "0 8 * * 1-5".'
        )
    try:
        CronSim(shown, datetime(2000, 1, 1))
    except CronSimError as exc:
        raise UserError(_cron_problem(shown, parts, str(exc))) from None
    except (ValueError, IndexError):
        raise UserError(f'The cron expression "{shown}" cannot be read.') from None
    rule = ScheduleRule(kind="cron", text=shown, words=f'cron "{shown}"', cron=shown)
    try:
        next_due(rule, datetime(2000, 1, 1, tzinfo=UTC), ZoneInfo("UTC"), None)
    except UserError:
        raise UserError(f'The cron expression "{shown}" names a day that never comes.') from None
    return rule


def _cron_problem(shown: str, parts: list[str], why: str) -> str:
    for index, (name, what) in enumerate(_FIELDS):
        if why == f"Bad {name}":
            return (
                f'The cron expression "{shown}" cannot be read: its {name} field '
                f'"{parts[index]}" is not {what}.'
            )
    return f'The cron expression "{shown}" cannot be read.'


def next_due(
    rule: ScheduleRule, after: datetime, zone: ZoneInfo, anchor: datetime | None
) -> datetime:
    """The first time strictly after ``after`` the rule is due, in ``zone``. An interval
    counts from ``anchor`` (when the schedule was made). :class:`UserError` when a cron
    rule is never due again."""
    after = after.astimezone(zone)
    if rule.every is not None:
        start = (anchor or after).astimezone(UTC)
        step = timedelta(seconds=rule.every)
        passed = (after.astimezone(UTC) - start) // step
        return (start + step * max(passed + 1, 1)).astimezone(zone)
    assert rule.cron is not None
    try:
        found = next(iter(CronSim(rule.cron, after)))
    except StopIteration:
        raise UserError(f"{rule.words} is never due again.") from None
    return found.astimezone(zone)


def due_times(
    rule: ScheduleRule,
    first: datetime,
    until: datetime,
    zone: ZoneInfo,
    anchor: datetime | None,
) -> tuple[int, datetime]:
    """How many due times there are from ``first`` (itself a due time) to ``until``, both
    included (at most :data:`MAX_COUNTED`), and the last of them. ``first`` after ``until``
    counts none (and the last is ``first``)."""
    if first > until:
        return 0, first
    if rule.every is not None:
        step = timedelta(seconds=rule.every)
        count = min((until - first) // step + 1, MAX_COUNTED)
        return count, (first + step * (count - 1)).astimezone(zone)
    count, last = 1, first
    while count < MAX_COUNTED:
        following = next_due(rule, last, zone, anchor)
        if following > until:
            break
        count, last = count + 1, following
    return count, last.astimezone(zone)


def in_words(when: datetime, zone: ZoneInfo, now: datetime | None = None) -> str:
    """``when`` for people, in ``zone``: "Friday 4 December at 08:00 CET" (the year too when
    it is not ``now``'s)."""
    local = when.astimezone(zone)
    year = "" if now is not None and now.astimezone(zone).year == local.year else f" {local.year}"
    return (
        f"{local.strftime('%A')} {local.day} {local.strftime('%B')}{year} at "
        f"{local.strftime('%H:%M')} {local.tzname()}"
    )


def next_runs_in_words(
    rule: ScheduleRule,
    now: datetime,
    zone: ZoneInfo,
    anchor: datetime | None,
    count: int = 3,
) -> str:
    """The next ``count`` run times after ``now``, in words, for the editor and the
    terminal: "Next runs: Friday 4 December at 08:00 CET, Saturday 5 ... and Sunday 6 ..."."""
    times: list[datetime] = []
    after = now
    try:
        for _ in range(count):
            after = next_due(rule, after, zone, anchor)
            times.append(after)
    except UserError:
        pass
    if not times:
        return "It is never due again."
    said = [in_words(t, zone, now) for t in times]
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return f"Next run{'s' if len(said) > 1 else ''}: {listed}."
