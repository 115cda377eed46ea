"""The compare view on its own: a column takes in an answer as it streams, shows its figures
or its failure's sentence, and draws an ended answer as Markdown only when it is short enough
to draw at once (a long one stays the plain text it streamed in)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.services.compare import Column, Figures
from app.ui.compare.view import FORMAT_LIMIT, CompareView


def column(spec: str, text: str, state: str = "streaming") -> Column:
    found = Column(spec, state=state)
    found.add(text)
    return found


def test_columns_stream_then_show_figures_or_the_failure(qtbot: QtBot) -> None:
    view = CompareView()
    qtbot.addWidget(view)
    view.begin("Why is the sky **blue**?", ["local", "openai:m", "ollama:x"])
    first, second, third = view.columns
    view.update_column(0, column("local", "Light **scatters**"))
    view.update_column(2, Column("ollama:x", state="waiting"))
    qtbot.waitUntil(lambda: first.text.toPlainText() == "Light **scatters**")
    assert first.figures.text() == "Answering…"
    qtbot.waitUntil(lambda: third.figures.text().startswith("Waiting for its turn"))
    done = column("local", "Light **scatters**.", "done")
    done.figures = Figures(first_token=0.25, tokens_per_second=40.0, tokens=5, cost=0.0)
    failed = Column("openai:m", state="failed", error="the server went away")
    view.finish([done, failed, column("ollama:x", "x" * (FORMAT_LIMIT + 1), "done")])
    assert first.figures.text() == "0.25 s to first token, 40.0 tokens/s, 5 tokens, free"
    qtbot.waitUntil(lambda: first.formatted)
    assert first.text.toPlainText() == "Light scatters."  # its Markdown drawn
    assert second.error.text() == "the server went away" and not second.keep.isEnabled()
    assert first.keep.isEnabled() and third.keep.isEnabled()
    qtbot.wait(50)
    assert not third.formatted  # too long to draw at once: the text it streamed in
    assert third.text.toPlainText() == "x" * (FORMAT_LIMIT + 1)
    assert view.close_button.isEnabled()
