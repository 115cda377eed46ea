"""``parley scheduler install`` / ``uninstall``: the systemd user service that runs
``parley scheduler`` while the person is logged in, written to or removed from
``$XDG_CONFIG_HOME/systemd/user`` (``~/.config/systemd/user`` by default).

Nothing here calls ``systemctl``: the file is written, and the person is told the two
commands that start it (systemd reads user units only when asked to).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from app.core.private_files import FILE_MODE

__all__ = ["UNIT_NAME", "install_unit", "remove_unit", "unit_path", "unit_text"]

UNIT_NAME = "parley-scheduler.service"


def unit_path(env: dict[str, str] | None = None) -> Path:
    """Where the user unit goes: ``$XDG_CONFIG_HOME/systemd/user/parley-scheduler.service``."""
    environ = os.environ if env is None else env
    config = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "systemd" / "user" / UNIT_NAME


def _quoted(word: str) -> str:
    """One word of ``ExecStart=``, quoted as systemd reads it (``%`` and ``$`` doubled, so
    neither is expanded)."""
    escaped = word.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'"{escaped}"'


def parley_command() -> list[str]:
    """How to start Parley from a service: the bundle's executable, or this Python with
    ``-m app``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "app"]


def unit_text(data_dir: Path, model: str | None = None, command: list[str] | None = None) -> str:
    """The unit file: ``parley scheduler`` on ``data_dir`` (and ``model``, when given),
    started again a minute after it fails."""
    words = [*(command or parley_command()), "scheduler", "--data-dir", str(data_dir)]
    if model:
        words += ["--model", model]
    line = " ".join(_quoted(w) for w in words)
    return (
        "[Unit]\n"
        "Description=Parley: run scheduled agents\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={line}\n"
        "Restart=on-failure\n"
        "RestartSec=60\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def install_unit(text: str, path: Path) -> bool:
    """Write the unit to ``path`` (readable by its owner alone); whether it replaced one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    existed = path.exists()
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(text, encoding="utf-8")
    os.chmod(temporary, FILE_MODE)
    os.replace(temporary, path)
    return existed


def remove_unit(path: Path) -> bool:
    """Remove the unit at ``path``; whether there was one."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True
