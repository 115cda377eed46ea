"""``parley diagnostics`` (the report for a bug report) and ``parley doctor`` (is the database
healthy; ``--export FOLDER`` saves what a damaged one still holds, from a copy)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any, TextIO

__all__ = ["add_parsers", "run_command"]

COMMANDS = ("diagnostics", "doctor")


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``diagnostics`` and ``doctor`` to the ``parley`` subcommands."""
    sub.add_parser(
        "diagnostics",
        parents=[common],
        help="print versions, platform, keyring, models and data folders for a bug report "
        "(no content, no secrets)",
    )
    doctor = sub.add_parser(
        "doctor", parents=[common], help="check that the thread database is healthy"
    )
    doctor.add_argument(
        "--export",
        metavar="FOLDER",
        help="copy the database aside and export every thread that can be read into FOLDER",
    )


def _diagnostics(args: argparse.Namespace, out: TextIO) -> int:
    from app.services.diagnostics import diagnostics_report
    from app.services.locations import Locations

    specs = [args.model] if args.model else []
    out.write(diagnostics_report(Locations.resolve(args.data_dir), model_specs=specs))
    return 0


def _doctor(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.data.actions import check_store, export_database

    health = check_store(args.data_dir)
    (out if health.healthy else err).write(health.summary() + "\n")
    if not args.export:
        return 0 if health.healthy else 1
    if not health.exists:
        return 0
    result = asyncio.run(export_database(health, Path(args.export)))
    out.write(result.summary() + "\n")
    return 0 if health.healthy else 1


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is one of these; ``None`` when it is another command."""
    if args.command == "diagnostics":
        return _diagnostics(args, out)
    if args.command == "doctor":
        return _doctor(args, out, err)
    return None
