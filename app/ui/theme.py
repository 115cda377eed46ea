"""Light and dark: the system palette by default, or Fusion with a light or dark palette, one
accent colour, and a small style sheet on the 8 px grid."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

__all__ = ["ACCENT", "DARK", "DROP_GROUND", "LIGHT", "Roles", "apply_theme", "is_dark", "roles"]


@dataclass(frozen=True, slots=True)
class Roles:
    """The colours of the window by what they are for, one set for light and one for dark:
    the only place a colour is written (a test holds every other module to it)."""

    surface: str
    """What text is read on: the chat, fields, cards' ground."""
    raised: str
    """A block set off from the surface: a tool's output, a quoted result."""
    border: str
    """Lines around cards and fields."""
    text: str
    muted: str
    """Secondary text: times, hints, sizes."""
    accent: str
    """The accent as text and lines on the surface."""
    accent_fill: str
    """The accent as a button's ground (Send)."""
    on_accent: str
    """Text on the accent's fill."""
    chip: str
    chip_text: str
    card: str
    """A card painted in the chat (a citation's, a file's)."""
    delegate_card: str
    """A delegate's card in the chat."""
    code: str
    code_border: str
    success: str
    danger: str
    danger_ground: str
    warning: str
    """Warning text."""
    warning_ground: str
    warning_mark: str
    """A warning's mark that is not text: a meter's bar, a status dot."""
    highlight_mark: str
    """The outline that shows where a found passage is on a page."""
    placeholder: str
    """A picture not drawn yet."""
    video: str
    """Around a video's picture."""


LIGHT = Roles(
    surface="#ffffff", raised="#f7f7f9", border="#d3d9e1", text="#1f2328", muted="#646b78",
    accent="#3b6fd8", accent_fill="#3b6fd8", on_accent="#ffffff",
    chip="#e8eef8", chip_text="#1a4d8f",
    card="#eef2f8", delegate_card="#eef4fb", code="#f4f5f7", code_border="#dfe1e5",
    success="#2e7d32", danger="#b42318", danger_ground="#fdecea", warning="#92400e",
    warning_ground="#fff4e0", warning_mark="#d08a1e", highlight_mark="#ff9800",
    placeholder="#dde2e8", video="#000000",
)  # fmt: skip
DARK = Roles(
    surface="#1d2127", raised="#23272e", border="#3d4550", text="#e6e8eb", muted="#9aa3ad",
    accent="#5b8def", accent_fill="#3b6fd8", on_accent="#ffffff",
    chip="#2b3340", chip_text="#cfe0ff",
    card="#2b313a", delegate_card="#1f2a36", code="#1f2329", code_border="#343a42",
    success="#81c784", danger="#f87171", danger_ground="#4a2326", warning="#fbbf24",
    warning_ground="#4a3b1e", warning_mark="#d08a1e", highlight_mark="#ff9800",
    placeholder="#3a414b", video="#000000",
)  # fmt: skip


def is_dark(palette: QPalette) -> bool:
    """Whether the palette is a dark theme."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def roles(dark: bool) -> Roles:
    """The colours for a dark or a light window."""
    return DARK if dark else LIGHT


ACCENT = LIGHT.accent_fill

DROP_GROUND = "rgba(59, 111, 216, 40)"
"""The accent, faint: the ground of the overlay that takes dropped files."""

_SHEET = """
#sidebar { background: palette(alternate-base); border-right: 1px solid palette(mid); }
#sidebar QListView { background: transparent; }
#header { border-bottom: 1px solid palette(mid); }
#threadTitle { font-size: 15px; font-weight: 600; }
#budgetMeter, #budgetMeterText, #composerHint, #modelStatus { color: palette(placeholder-text); }
#budgetPausePanel { background: %(warn_bg)s; border-top: 1px solid palette(mid); }
#budgetPauseTitle { font-weight: 600; }
#raiseBudgetButton { background: %(accent)s; color: white; border-radius: 6px; padding: 6px 14px;
                     font-weight: 600; }
#raiseBudgetButton:disabled { background: palette(mid); }
#budgetPauseError { color: %(error_fg)s; }
#settingsHeading { font-size: 16px; font-weight: 600; }
#settingsSection { font-size: 13px; font-weight: 600; padding-top: 8px; }
QLabel[muted="true"] { color: palette(placeholder-text); }
#settingsPageList { background: palette(alternate-base); border: 1px solid palette(mid);
                    border-radius: 8px; padding: 4px; }
#settingsPageList::item { padding: 6px 8px; border-radius: 6px; color: palette(text); }
#settingsPageList::item:selected { background: palette(highlight);
                                   color: palette(highlighted-text); }
#keyringStatus[warning="true"] { background: %(warn_bg)s; border-radius: 6px; padding: 6px 8px; }
#composerBox { border: 1px solid palette(mid); border-radius: 12px;
               background: palette(alternate-base); }
#composerBox:focus-within { border-color: %(accent)s; }
#composer { background: transparent; }
#composerBox QPushButton { border: 1px solid transparent; border-radius: 8px; padding: 5px;
                           background: transparent; color: palette(text); }
#composerBox QPushButton:hover { background: palette(base);
                                 border-color: palette(mid); }
#composerBox QPushButton:focus { border-color: palette(highlight); }
#composerBox #sendButton { background: %(accent)s; border-radius: 16px; padding: 6px; }
#composerBox #sendButton:disabled { background: palette(mid); }
#composerBox #sendButton:focus { border: 2px solid palette(highlight); }
#composerBox #stopButton { background: palette(button); border: 1px solid palette(mid);
                           border-radius: 16px; padding: 6px; }
#composerBox #stopButton:focus { border: 2px solid palette(highlight); }
#noticeBar { background: palette(alternate-base); border-bottom: 1px solid palette(mid); }
#noticeBar[level="error"] { background: %(error_bg)s; }
#noticeBar[level="warning"] { background: %(warn_bg)s; }
#undoBar { background: palette(alternate-base); border: 1px solid palette(mid);
           border-radius: 8px; }
#editBanner { color: %(accent)s; }
#emptyState QPushButton { text-align: left; padding: 10px 14px; border: 1px solid palette(mid);
                          border-radius: 8px; background: palette(base); }
#emptyState QPushButton:hover, #emptyState QPushButton:focus { border-color: %(accent)s; }
#emptyTitle { font-size: 22px; font-weight: 600; }
#threadAgent { color: %(accent)s; border: 1px solid %(accent)s; border-radius: 9px;
               padding: 1px 8px; font-weight: 600; }
#agentsHeading { color: palette(placeholder-text); font-weight: 600; }
#newAgentButton { color: %(accent)s; padding: 2px 6px; }
#agentList::item { padding: 4px 6px; border-radius: 6px; }
#agentList::item:selected { background: palette(highlight); color: palette(highlighted-text); }
QLabel[problem="true"], #agentEditorProblem, #settingsError, #attachmentProblems {
    color: %(error_fg)s; }
#attachmentFit { color: %(warn_fg)s; }
#agentTools::indicator:unchecked, #agentDelegates::indicator:unchecked,
#agentKnowledge::indicator:unchecked {
    width: 12px; height: 12px; border: 1px solid palette(placeholder-text); border-radius: 2px;
    background: palette(base); }
#jumpToLatestButton { background: palette(base); border: 1px solid palette(mid);
                      border-radius: 14px; padding: 4px 12px; }
#compareColumn { border: 1px solid palette(mid); border-radius: 10px; background: palette(base); }
#compareModel { font-weight: 600; }
#compareFigures, #compareQuestion { color: palette(placeholder-text); }
#compareError { color: %(error_fg)s; }
#compareText { background: transparent; border: none; }
"""


_system: list[tuple[str, QPalette]] = []
"""The style and palette the application had before any theme was applied."""


def _palette(dark: bool) -> QPalette:
    p = QPalette()
    if dark:
        colours = {
            QPalette.ColorRole.Window: "#1e2127",
            QPalette.ColorRole.WindowText: "#e6e8eb",
            QPalette.ColorRole.Base: "#17191d",
            QPalette.ColorRole.AlternateBase: "#21252b",
            QPalette.ColorRole.Text: "#e6e8eb",
            QPalette.ColorRole.Button: "#2a2e35",
            QPalette.ColorRole.ButtonText: "#e6e8eb",
            QPalette.ColorRole.Mid: "#3a3f47",
            QPalette.ColorRole.PlaceholderText: "#9aa3ad",
            QPalette.ColorRole.Highlight: "#5b8def",
            QPalette.ColorRole.HighlightedText: "#ffffff",
            QPalette.ColorRole.Link: "#8ab4ff",
            QPalette.ColorRole.ToolTipBase: "#2a2e35",
            QPalette.ColorRole.ToolTipText: "#e6e8eb",
        }
    else:
        colours = {
            QPalette.ColorRole.Window: "#ffffff",
            QPalette.ColorRole.WindowText: "#1f2328",
            QPalette.ColorRole.Base: "#ffffff",
            QPalette.ColorRole.AlternateBase: "#f6f7f9",
            QPalette.ColorRole.Text: "#1f2328",
            QPalette.ColorRole.Button: "#f3f4f6",
            QPalette.ColorRole.ButtonText: "#1f2328",
            QPalette.ColorRole.Mid: "#d9dce1",
            QPalette.ColorRole.PlaceholderText: LIGHT.muted,
            QPalette.ColorRole.Highlight: ACCENT,
            QPalette.ColorRole.HighlightedText: "#ffffff",
            QPalette.ColorRole.Link: "#2f5fc4",
            QPalette.ColorRole.ToolTipBase: "#ffffff",
            QPalette.ColorRole.ToolTipText: "#1f2328",
        }
    for role, value in colours.items():
        p.setColor(role, QColor(value))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#8b929a"))
    p.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#8b929a"))
    return p


def apply_theme(app: QApplication, theme: str = "system") -> bool:
    """Apply ``theme`` (``system``, ``light`` or ``dark``); return whether it is dark."""
    if not _system:
        _system.append((app.style().name(), app.palette()))
    if theme in ("light", "dark"):
        style = QStyleFactory.create("Fusion")
        if style is not None:
            app.setStyle(style)
        app.setPalette(_palette(theme == "dark"))
    elif app.style().name() != _system[0][0] or app.palette() != _system[0][1]:
        # back from a chosen theme: the style and palette the app started with
        style = QStyleFactory.create(_system[0][0])
        if style is not None:
            app.setStyle(style)
        app.setPalette(_system[0][1])
    dark = is_dark(app.palette())
    app.setStyleSheet(
        _SHEET
        % {
            "accent": ACCENT,
            "error_bg": roles(dark).danger_ground,
            "warn_bg": roles(dark).warning_ground,
            "error_fg": roles(dark).danger,
            "warn_fg": roles(dark).warning,
        }
    )
    return dark
