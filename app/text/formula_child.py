"""The typesetting child's side: lay out each formula the app asks for (``TexProcess`` in
the window starts it). It imports ziamath and :mod:`app.text.formula_svg` only, no Qt: the
child starts sooner and holds less than one that loaded the window's package."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.text.formula_svg import FormulaError, FormulaSvg, formula_svg, load_typesetter

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["Request", "answer", "serve"]

Request = tuple[str, bool, float, str]
"""What one formula is laid out from: its LaTeX, whether displayed, size and colour."""


def serve(conn: Connection) -> None:
    """The child: load ziamath, say so, then lay out each formula asked for until the app
    closes its end of the pipe (or sends ``None``, or is gone)."""
    try:
        load_typesetter()
        conn.send("ready")
        while (request := conn.recv()) is not None:
            conn.send(answer(request))
    except (EOFError, OSError):  # the app closed the pipe, or exited
        return


def answer(request: Request) -> FormulaSvg | str:
    """The formula of ``request`` laid out, or why it cannot be (one sentence)."""
    try:
        return formula_svg(*request)
    except FormulaError as exc:
        return exc.problem
    except Exception as exc:  # shown as the source, whatever went wrong
        return f"The formula could not be typeset: {type(exc).__name__}."
