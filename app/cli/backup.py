"""``parley backup [FILE]`` (write a backup now), ``parley backups`` (list them) and
``parley restore BACKUP`` (put one in place of the thread database, after asking)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

__all__ = ["COMMANDS", "add_parsers", "run_command"]

COMMANDS = ("backup", "backups", "restore")


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``backup``, ``backups`` and ``restore`` to the ``parley`` subcommands."""
    backup = sub.add_parser(
        "backup",
        parents=[common],
        help="write a consistent backup of the thread database now",
    )
    backup.add_argument(
        "file", nargs="?", help="where to write it (default: backups/ in the data folder)"
    )
    sub.add_parser(
        "backups",
        parents=[common],
        help="list the backups (and the databases restores replaced) with date, size, threads",
    )
    restore = sub.add_parser(
        "restore",
        parents=[common],
        help="replace the thread database with a backup (the current one is kept aside)",
    )
    restore.add_argument("backup", help="the backup file (see `parley backups`)")
    restore.add_argument("--yes", action="store_true", help="do not ask first")


def _service(args: argparse.Namespace) -> Any:
    from app.services.data.backups import BackupService
    from app.services.locations import Locations

    return BackupService(Locations.resolve(args.data_dir).database)


def _backup(args: argparse.Namespace, out: TextIO) -> int:
    from app.text.sizes import human_size

    path = _service(args).take(Path(args.file).expanduser() if args.file else None)
    out.write(f"Backup written to {path} ({human_size(path.stat().st_size)}).\n")
    return 0


def _backups(args: argparse.Namespace, out: TextIO) -> int:
    from app.services.data.backups import describe
    from app.text.sizes import human_size

    service = _service(args)
    entries = service.list()
    if not entries:
        out.write(f"No backups yet in {service.folder}.\n")
        return 0
    for entry in entries:
        out.write(f"{describe(entry)}\n    {entry.path}\n")
    noun = "backup" if len(entries) == 1 else "backups"
    size = human_size(service.space(entries))
    out.write(f"{len(entries)} {noun} in {service.folder}, {size} in all.\n")
    return 0


def _restore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.data.backups import describe

    service = _service(args)
    backup = Path(args.backup).expanduser()
    if not backup.is_file() and (service.folder / backup.name).is_file():
        backup = service.folder / backup.name
    entry = service.inspect(backup)
    if not args.yes and (entry is None or entry.restorable):  # else refused without asking
        what = describe(entry) if entry is not None else str(backup)
        out.write(
            f"Restore {what}?\nThe thread database {service.database} will be moved into "
            f"{service.folder} and replaced by this backup. [y/N]: "
        )
        out.flush()
        try:
            answer = input()
        except EOFError:
            answer = ""
            out.write("\n")
        if answer.strip().lower() not in ("y", "yes"):
            out.write("Nothing was changed.\n")
            return 1
    result = service.restore(backup)
    out.write(result.summary() + "\n")
    return 0


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is one of these; ``None`` when it is another command."""
    if args.command == "backup":
        return _backup(args, out)
    if args.command == "backups":
        return _backups(args, out)
    if args.command == "restore":
        return _restore(args, out, err)
    return None
