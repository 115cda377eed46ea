"""Parley's command line: argument parsing and dispatch."""

from __future__ import annotations

import argparse


def build_parser() -> argparse.ArgumentParser:
    """Return the parser for ``parley``."""
    parser = argparse.ArgumentParser(prog="parley", description="Chat with AI agents locally.")
    parser.add_argument("--data-dir", help="where threads are stored (or PARLEY_DATA_DIR)")
    parser.add_argument("--model", help="model spec, e.g. local, ollama:NAME, openai:NAME")
    return parser


def run(argv: list[str]) -> int:
    """Parse ``argv`` and run the chosen command; return the exit status."""
    build_parser().parse_args(argv)
    return 0
