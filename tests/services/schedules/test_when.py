"""Reading WHEN and cron expressions, and the times a schedule is due, with a controlled
clock: every time is handed in, and daylight-saving changes in Berlin and New York."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.core.errors import UserError
from app.services.schedules.when import (
    due_times,
    next_due,
    next_runs_in_words,
    parse_cron,
    parse_when,
    rule_of,
)

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def _following(text: str, start: datetime, zone: ZoneInfo, n: int) -> list[str]:
    rule = parse_when(text) if not text.startswith("cron:") else parse_cron(text[5:])
    times, at = [], start
    for _ in range(n):
        at = next_due(rule, at, zone, start)
        times.append(at.isoformat())
    return times


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("day 08:00", "every day at 08:00"),
        ("every day at 8:05", "every day at 08:05"),
        ("weekdays 18:30", "weekdays at 18:30"),
        ("Monday 09:00", "every Monday at 09:00"),
        ("2h", "every 2 hours"),
        ("30m", "every 30 minutes"),
        ("every 90 minutes", "every 90 minutes"),
        ("1m", "every minute"),
    ],
)
def test_each_form_of_when_is_read(text: str, words: str) -> None:
    rule = parse_when(text)
    assert rule.words == words
    assert rule_of(rule.kind, rule.text) == rule


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("30s", '"30s" would run more often than once a minute'),
        ("0m", '"0m" would run more often than once a minute'),
        ("fortnightly 08:00", '"fortnightly" is not day, weekdays'),
        ("day 25:00", 'the time "25:00" has hour 25; hours go from 00 to 23'),
        ("day 08:75", 'the time "08:75" has minute 75'),
        ("day 8am", 'the time "8am" is not a time of day written HH:MM'),
        ("monday", 'write the time after "monday"'),
        ("2 weeks", '"weeks" is not a unit'),
        ("", "The schedule says no time"),
    ],
)
def test_a_when_that_cannot_be_read_is_one_sentence_naming_the_part(
    text: str, sentence: str
) -> None:
    with pytest.raises(UserError) as caught:
        parse_when(text)
    assert sentence in str(caught.value)


@pytest.mark.parametrize(
    ("expression", "sentence"),
    [
        ("0 25 * * *", 'its hour field "25" is not an hour (0-23)'),
        ("61 8 * * *", 'its minute field "61" is not a minute (0-59)'),
        ("0 8 * * MON-XYZ", 'its day-of-week field "MON-XYZ" is not a day of the week'),
        ("0 8 * 13 *", 'its month field "13" is not a month'),
        ("0 0 30 2 *", 'its day-of-month field "30" is not a day those months have'),
        ("* * *", "has 3 fields; it needs five"),
        ("0 0 8 * * 1-5", "has 6 fields; it needs five"),
    ],
)
def test_a_cron_expression_that_cannot_be_read_names_its_field(
    expression: str, sentence: str
) -> None:
    with pytest.raises(UserError) as caught:
        parse_cron(expression)
    assert sentence in str(caught.value)


def test_a_daily_time_in_the_spring_gap_runs_at_the_first_minute_that_exists() -> None:
    start = datetime(2026, 3, 27, 12, tzinfo=BERLIN)
    assert _following("day 02:30", start, BERLIN, 3) == [
        "2026-03-28T02:30:00+01:00",
        "2026-03-29T03:00:00+02:00",  # 02:30 does not exist that night
        "2026-03-30T02:30:00+02:00",
    ]


def test_a_daily_time_in_the_autumn_overlap_runs_once() -> None:
    start = datetime(2026, 10, 24, 12, tzinfo=BERLIN)
    assert _following("day 02:30", start, BERLIN, 2) == [
        "2026-10-25T02:30:00+02:00",  # the first 02:30 only
        "2026-10-26T02:30:00+01:00",
    ]


def test_a_daily_time_keeps_its_local_hour_across_new_york_changes() -> None:
    march = _following("day 08:00", datetime(2026, 3, 7, 12, tzinfo=NEW_YORK), NEW_YORK, 2)
    assert march == ["2026-03-08T08:00:00-04:00", "2026-03-09T08:00:00-04:00"]
    november = _following("day 01:30", datetime(2026, 10, 31, 12, tzinfo=NEW_YORK), NEW_YORK, 2)
    assert november == ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"]


def test_a_cron_every_half_hour_runs_in_real_time_through_the_overlap() -> None:
    start = datetime(2026, 10, 25, 1, 50, tzinfo=BERLIN)
    times = [
        datetime.fromisoformat(t).astimezone(UTC).strftime("%H:%M")
        for t in _following("cron:*/30 * * * *", start, BERLIN, 5)
    ]
    assert times == ["00:00", "00:30", "01:00", "01:30", "02:00"]


def test_an_interval_counts_real_time_across_a_change() -> None:
    made = datetime(2026, 3, 29, 0, 30, tzinfo=BERLIN)
    assert _following("2h", made, BERLIN, 2) == [
        "2026-03-29T03:30:00+02:00",  # two hours later: the clock jumped one
        "2026-03-29T05:30:00+02:00",
    ]


def test_weekdays_skip_the_weekend_and_a_day_name_runs_on_that_day() -> None:
    friday = datetime(2026, 12, 4, 19, tzinfo=BERLIN)
    assert _following("weekdays 18:30", friday, BERLIN, 1) == ["2026-12-07T18:30:00+01:00"]
    assert _following("monday 09:00", friday, BERLIN, 2) == [
        "2026-12-07T09:00:00+01:00",
        "2026-12-14T09:00:00+01:00",
    ]
    assert _following("cron:0 8 * * 1-5", friday, BERLIN, 1) == ["2026-12-07T08:00:00+01:00"]


def test_due_times_count_what_was_missed() -> None:
    daily = parse_when("day 08:00")
    first = datetime(2026, 11, 30, 8, tzinfo=BERLIN)
    count, last = due_times(daily, first, datetime(2026, 12, 3, 9, tzinfo=BERLIN), BERLIN, None)
    assert (count, last.isoformat()) == (4, "2026-12-03T08:00:00+01:00")
    hourly = parse_when("1h")
    count, last = due_times(hourly, first, first + timedelta(hours=5, minutes=5), BERLIN, first)
    assert (count, last.isoformat()) == (6, "2026-11-30T13:00:00+01:00")
    assert due_times(daily, first, first - timedelta(minutes=1), BERLIN, None)[0] == 0


def test_the_next_three_runs_in_words() -> None:
    now = datetime(2026, 12, 3, 19, tzinfo=NEW_YORK)
    assert next_runs_in_words(parse_when("weekdays 18:30"), now, NEW_YORK, now) == (
        "Next runs: Friday 4 December at 18:30 EST, Monday 7 December at 18:30 EST and "
        "Tuesday 8 December at 18:30 EST."
    )
    assert next_runs_in_words(parse_cron("0 9 1 1 *"), now, BERLIN, now).startswith(
        "Next runs: Friday 1 January 2027 at 09:00 CET"
    )
