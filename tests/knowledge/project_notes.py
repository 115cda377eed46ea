"""A folder of project notes in which many files share the same words (*project*, *launch*,
*code*, *Heron*), and one file, ``projects/heron.md``, whose title and heading answer the
question "Project Heron launch code"."""

from __future__ import annotations

from pathlib import Path

HERON = """# Project Heron

## Overview

Heron is the new field-survey app for the coastal wardens: offline maps, photo notes and
tide tables in one place. The team is four people and the budget is set for the year.

## Launch

The launch code is HX-4471. Read it out on the bridge call when the release is approved;
nobody else uses it.

## Risks

The map tiles are large; the first sync over a slow line takes an hour.
"""

MEETINGS = """# Weekly meetings

""" + "\n\n".join(
    f"Week {week}: the project team talked about the launch again. Code review of the "
    f"project's launch checklist, the code freeze before launch, who writes the launch "
    f"notes, and whether the heron logo stays. Project launch dates moved; the code for "
    f"the project site is late. Launch, launch, launch: the project needs its code."
    for week in range(1, 13)
)

BIRDS = """# Birds seen on the estuary

A grey heron stood in the shallows all morning; a second heron flew over at noon. The heron
colony by the old launch slipway is the biggest on this coast. Herons nest early; the
project to count them needs volunteers who can read a code of ring colours.
"""

CHECKLIST = """# Launch checklist (every project)

1. Freeze the code a week before launch.
2. Every project writes its launch notes.
3. The launch code of each project is kept by its lead, never in these notes.
4. After launch, the project's code is tagged.
"""

OSPREY = """# Project Osprey

## Launch

Osprey launches in May. Its launch code is kept by Dana. The project shares the heron
team's code review.
"""


def make_project_notes(root: Path) -> Path:
    """Fill ``root`` (created) with the project notes; returns it."""
    (root / "projects").mkdir(parents=True, exist_ok=True)
    (root / "projects" / "heron.md").write_text(HERON, encoding="utf-8")
    (root / "projects" / "osprey.md").write_text(OSPREY, encoding="utf-8")
    (root / "meetings.md").write_text(MEETINGS, encoding="utf-8")
    (root / "estuary-birds.md").write_text(BIRDS, encoding="utf-8")
    (root / "launch-checklist.md").write_text(CHECKLIST, encoding="utf-8")
    return root
