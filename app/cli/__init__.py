"""Parley's command line: ``parley`` opens the window; its commands (``chat``, ``threads``,
``key``, ``mcp``, ``diagnostics``, ``doctor``, ``backup``, ``backups``, ``restore``,
``network``, ``models``) work in the terminal, each in a module of its own here."""

from app.cli.main import run
from app.cli.parser import build_parser

__all__ = ["build_parser", "run"]
