"""One message as rich text for the chat delegate: Markdown, tool cards, errors, media chips.

Links carry the intents of :mod:`app.ui.chat.links` the view handles: a code block's
:class:`~app.ui.chat.links.CopyCode`, a card's :class:`~app.ui.chat.links.Toggle`, an error's
:class:`~app.ui.chat.links.Remedy`, a citation's :class:`~app.ui.chat.links.OpenSource`
(counted from 1 over the text blocks, as its chip shows), a reply's memory chip's
:class:`~app.ui.chat.links.ShowMemories`. Only Parley puts them there: a
message's own text links to web pages and mail addresses only (:mod:`app.ui.chat.markdown`),
and :func:`own_link` tells whether an intent clicked is one this message's row carries, so a
forged one does nothing even if it were drawn.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

from app.core.state import (
    AnnotationBlock,
    AnnotationRef,
    ErrorBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from app.core.state.block_renderers import BlockRenderers
from app.services.problems import remedies_for
from app.ui.chat.blocks.media_html import (
    BlockSlot,
    audio_html,
    data_html,
    document_html,
    image_html,
    video_html,
)
from app.ui.chat.links import (
    CopyCode,
    LinkIntent,
    MailLink,
    OpenSource,
    Remedy,
    ShowMemories,
    Toggle,
    WebLink,
    href_of,
    parse_link,
)
from app.ui.chat.markdown_stream import MarkdownStream
from app.ui.icons import glyph_html
from app.ui.theme import roles

__all__ = [
    "CHAT_HTML",
    "RenderedMessage",
    "citations",
    "memory_chip_text",
    "message_html",
    "own_link",
    "web_link",
]


@dataclass
class RenderedMessage:
    """A message's HTML, the texts its ``copy:N`` links copy, and where the HTML may be cut
    into parts laid out apart (see :class:`~app.ui.chat.markdown_stream.RenderedMarkdown`);
    ``behind``: some text grew faster than it is rendered, and shows only in part so far."""

    html: str
    code_blocks: list[str] = field(default_factory=list)
    breaks: list[tuple[int, bool]] = field(default_factory=list)
    behind: bool = False


def _one_line(args: dict[str, Any], width: int = 80) -> str:
    text = "  ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return text if len(text) <= width else text[: width - 1] + "…"


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return str(value)
    return str(json.dumps(value, indent=2, ensure_ascii=False))


def _card(
    key: str,
    title: str,
    summary: str,
    body: str | list[tuple[str, str]],
    expanded: bool,
    colour: str,
    dark: bool,
    mark: str = "",
) -> tuple[str, str]:
    """A card that folds: its title and summary on one line, unfolded its ``body`` (a text,
    or labelled texts: a call's arguments and its output); ``mark`` names the icon before the
    title (drawn in ``colour``)."""
    bg = roles(dark).raised
    arrow = glyph_html("arrow-down-s-line" if expanded else "arrow-right-s-line", roles(dark).muted)
    icon = f"{glyph_html(mark, colour)}&nbsp;" if mark else ""
    head = (
        f'<a href="{html.escape(href_of(Toggle(key)))}" style="text-decoration:none;">{arrow} '
        f"{icon}<b>{html.escape(title)}</b></a>"
        f'&nbsp;&nbsp;<span style="color:{colour};">{html.escape(summary)}</span>'
    )
    sections = [("", body)] if isinstance(body, str) else body
    muted = roles(dark).muted
    inner = "".join(
        (f'<p style="color:{muted}; margin:6px 0 2px 0;">{html.escape(label)}</p>' if label else "")
        + f'<pre style="margin:0;">{html.escape(text)}</pre>'
        for label, text in sections
    )
    inner = inner if expanded else ""
    body = "\n".join(text for _, text in sections)
    table = (
        f'<table width="100%" cellspacing="0" cellpadding="6" bgcolor="{bg}" '
        f'style="margin-top:4px; margin-bottom:4px;"><tr><td>{head}{inner}</td></tr></table>'
    )
    return table, body


def citations(message: Message) -> list[AnnotationRef]:
    """The message's citations in chip order (those of its text blocks, one after another)."""
    return [a for b in message.content if isinstance(b, TextBlock) for a in b.annotations]


def web_link(url: str) -> bool:
    """Whether ``url`` is a web page's or a mail address (what the system's browser or mail
    app is handed)."""
    return isinstance(parse_link(url), WebLink | MailLink)


_CARDS = (ToolCallBlock, ToolResultBlock, ReasoningBlock)


def own_link(message: Message, intent: LinkIntent, card: str | None = None) -> bool:
    """Whether ``intent`` is one Parley itself puts on ``message``'s row: a code block's
    :class:`CopyCode`, the :class:`Toggle` of one of its cards (``card``: the key of the
    delegate card the row draws, if any), the :class:`Remedy` of one of its errors, the
    :class:`OpenSource` of one of its citations."""
    match intent:
        case CopyCode():
            return any(isinstance(b, TextBlock) for b in message.content)
        case Toggle(key):
            return (card is not None and key == card) or any(
                key == f"{message.message_id}:{i}" and isinstance(block, _CARDS)
                for i, block in enumerate(message.content)
            )
        case Remedy(action, target):
            return any(
                r.action == action and (r.target or "") == target
                for b in message.content
                if isinstance(b, ErrorBlock)
                for r in remedies_for(b.code)
            )
        case OpenSource(index):
            return 0 < index <= len(citations(message))
        case ShowMemories():
            return bool(memory_chip_text(message))
    return False


def _count(n: int, one: str) -> str:
    return f"{n} {one}" if n == 1 else f"{n} {one.replace('memory', 'memories')}"


def memory_chip_text(message: Message) -> str:
    """What a reply's memory chip says ("2 memories used", "1 memory held back"), from the
    memories its metadata says were used and held back; ``""``: it shows none."""
    used = message.metadata.get("memories_used")
    held = message.metadata.get("memories_held_back")
    n_used = len(used) if isinstance(used, list) else 0
    n_held = len(held) if isinstance(held, list) else 0
    parts = [_count(n_used, "memory used")] if n_used else []
    if n_held:
        parts.append(_count(n_held, "memory held back"))
    return " · ".join(parts)


def _memory_chip(message: Message, dark: bool) -> str:
    """The reply's memory chip, a ``memories:used`` link named ``memoryChip``."""
    text = memory_chip_text(message)
    if not text:
        return ""
    bg, fg = roles(dark).chip, roles(dark).chip_text
    return (
        '<table cellspacing="4" cellpadding="4" style="margin-top:2px; font-size:small;">'
        f'<tr><td bgcolor="{bg}"><a name="memoryChip" href="{href_of(ShowMemories())}" '
        f'style="text-decoration:none; color:{fg};">{html.escape(text)}</a></td></tr>'
        "</table>"
    )


def _source_chips(refs: list[AnnotationRef], before: int, dark: bool) -> str:
    """Numbered chips for a text block's citations, each a ``source:N`` link, in one row."""
    bg, fg = roles(dark).chip, roles(dark).chip_text
    cells = []
    for n, ref in enumerate(refs, before + 1):
        title = html.escape(ref.title or ref.url or "source")
        cells.append(
            f'<td bgcolor="{bg}"><a href="{href_of(OpenSource(n))}" style="text-decoration:none; '
            f'color:{fg};"><b>{n}</b>&nbsp; {title}</a></td>'
        )
    return (
        '<table cellspacing="4" cellpadding="4" style="margin-top:2px; font-size:small;">'
        f"<tr>{''.join(cells)}</tr></table>"
    )


@dataclass
class _Page:
    """What rendering one message collects across its blocks."""

    message_id: str
    dark: bool
    expanded: frozenset[str]
    results: dict[str, ToolResultBlock]
    streams: dict[int, MarkdownStream]
    parts: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    breaks: list[tuple[int, bool]] = field(default_factory=list)
    behind: bool = False
    cited: int = 0

    @property
    def colours(self) -> tuple[str, str]:
        """The colours of success and failure in this theme."""
        return roles(self.dark).success, roles(self.dark).danger


@dataclass(frozen=True)
class _Slot(BlockSlot):
    page: _Page

    @property
    def key(self) -> str:
        return f"{self.page.message_id}:{self.index}"

    def card(
        self,
        title: str,
        summary: str,
        body: str | list[tuple[str, str]],
        colour: str,
        mark: str = "",
    ) -> str:
        expanded = self.key in self.page.expanded
        return _card(self.key, title, summary, body, expanded, colour, self.dark, mark)[0]


CHAT_HTML: BlockRenderers[_Slot, str] = BlockRenderers("CHAT_HTML")
"""Each block type as the chat row's rich text (``""``: the block draws nothing)."""

CHAT_HTML.register("image")(image_html)
CHAT_HTML.register("document")(document_html)
CHAT_HTML.register("audio")(audio_html)
CHAT_HTML.register("video")(video_html)
CHAT_HTML.register("data")(data_html)


@CHAT_HTML.register("text")
def _text(block: TextBlock, at: _Slot) -> str:
    if not block.text:
        return ""
    page = at.page
    stream = page.streams.get(at.index)
    if stream is None:
        stream = page.streams[at.index] = MarkdownStream(dark=at.dark)
    rendered = stream.render(block.text)
    body, found = rendered.html, rendered.codes
    page.behind = page.behind or rendered.behind
    if page.codes and found:
        # renumber this block's copy links after the ones already collected
        for n in range(len(found) - 1, -1, -1):
            was, now = href_of(CopyCode(n)), href_of(CopyCode(n + len(page.codes)))
            body = body.replace(f'href="{was}"', f'href="{now}"')
    else:
        size = sum(map(len, page.parts))
        page.breaks += [(size + pos, always) for pos, always in rendered.breaks]
    page.codes += found
    if block.annotations:
        body += _source_chips(block.annotations, page.cited, at.dark)
        page.cited += len(block.annotations)
    return body


def _outcome(output: str) -> str:
    """What a call's card says of its output: a short one-line output itself, else how many
    lines it has."""
    lines = output.strip().splitlines()
    if len(lines) == 1 and len(lines[0]) <= 60:
        return lines[0].strip()
    return f"{len(lines)} line{'s' if len(lines) != 1 else ''}"


@CHAT_HTML.register("tool_call")
def _tool_call(block: ToolCallBlock, at: _Slot) -> str:
    """A call and its result as one card: "read_file path=… · done · 3 lines"; unfolded,
    its arguments and its output."""
    ok, bad = at.page.colours
    result = at.page.results.get(block.id)
    args = _one_line(block.args, 60)
    sections = [("Arguments", _pretty(block.args))]
    if result is None:
        colour, said, mark = roles(at.dark).muted, "waiting", "loader-4-line"
    else:
        output = _pretty(result.output)
        sections.append(("Output" if result.status == "completed" else "Error", output))
        failed = result.status == "error"
        colour = bad if failed else ok
        said = f"{'failed' if failed else 'done'} · {_outcome(output)}"
        mark = "close-circle-line" if failed else "checkbox-circle-line"
    summary = f"{args}  · {said}" if args else said
    return at.card(block.name, summary, sections, colour, mark)


@CHAT_HTML.register("tool_result")
def _tool_result(block: ToolResultBlock, at: _Slot) -> str:
    ok, bad = at.page.colours
    colour = bad if block.status == "error" else ok
    text = _pretty(block.output)
    first = " ".join(text.split())[:80]
    mark = "close-circle-line" if block.status == "error" else "file-list-3-line"
    return at.card(f"result of {block.name or 'tool'}", first, text, colour, mark)


@CHAT_HTML.register("reasoning")
def _reasoning(block: ReasoningBlock, at: _Slot) -> str:
    return at.card("Thinking", "", block.text, roles(at.dark).muted, "lightbulb-line")


@CHAT_HTML.register("error")
def _error(block: ErrorBlock, at: _Slot) -> str:
    bg = roles(at.dark).danger_ground
    links = " &nbsp; ".join(
        f'<a href="{html.escape(href_of(Remedy(r.action, r.target or "")))}">'
        f"{html.escape(r.label)}</a>"
        for r in remedies_for(block.code)
    )
    return (
        f'<table width="100%" cellspacing="0" cellpadding="8" bgcolor="{bg}" '
        f'style="margin-top:4px;"><tr><td><span style="color:{at.page.colours[1]};">⚠</span> '
        f"{html.escape(block.error)}<br/>{links}</td></tr></table>"
    )


@CHAT_HTML.register("annotation")
def _annotation(block: AnnotationBlock, at: _Slot) -> str:
    ann = block.annotation
    label = html.escape(ann.title or ann.url or "source")
    if ann.url and web_link(ann.url):  # any other address is shown, never linked
        label = f'<a href="{html.escape(ann.url)}">{label}</a>'
    return f"<p>↗ {label}</p>"


def message_html(
    message: Message,
    *,
    dark: bool,
    expanded: frozenset[str] = frozenset(),
    results: dict[str, ToolResultBlock] | None = None,
    streams: dict[int, MarkdownStream] | None = None,
) -> RenderedMessage:
    """Render ``message``; ``expanded`` holds the keys of unfolded cards.

    ``streams`` keeps each text block's rendering between calls (by block position), so a
    streamed message renders only what changed since the last call.
    """
    streams = {} if streams is None else streams
    page = _Page(str(message.message_id), dark, expanded, results or {}, streams)
    for i, block in enumerate(message.content):
        drawn = CHAT_HTML.render(block, _Slot(i, dark, page))
        if drawn:
            page.parts.append(drawn)
    parts = page.parts
    quiet = f'<p style="color:{roles(dark).muted}; font-size:small;">'
    for note in message.metadata.get("notes") or []:
        parts.append(f"{quiet}{html.escape(str(note))}</p>")
    if message.end_reason == "stopped":
        parts.append(f"{quiet}Stopped.</p>")
    if message.role == "assistant":
        parts.append(_memory_chip(message, dark))
    return RenderedMessage("".join(parts), page.codes, page.breaks, page.behind)
