"""``Preferences``: what the settings pages read and change, each change applied at once.

Provider URLs and "test connection", API keys in the OS keyring (or for this session only when
there is none, never in a file), the "always allow" rules, the approval audit log, default
limits for new runs and the theme. Widgets reach it as ``workspace.preferences``; it is the
only way they touch the store or the keyring. Settings are changed through the shared
:class:`~app.services.settings.store.SettingsStore`; a changed key is told on the bus
(:class:`~app.services.events.KeysChanged`) so models that read it are built again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from app.core.budget import BudgetLimits
from app.core.errors import UserError
from app.core.tools.secrets import SecretError
from app.services.bus import EventBus
from app.services.connection_test import ConnectionResult, Provider, probe_connection
from app.services.events import KeysChanged
from app.services.settings.store import SettingsStore
from app.store import Store
from app.store.models import ApprovalDecision

if TYPE_CHECKING:
    from app.secrets.keyring_resolver import KeyringSecretResolver

__all__ = [
    "DECISIONS",
    "THEMES",
    "AuditRow",
    "ConnectionResult",
    "KeyInfo",
    "Preferences",
    "Provider",
    "RuleRow",
]

THEMES = ("system", "light", "dark")
READ_ALOUD_SPEEDS = (0.25, 4.0)
"""The slowest and fastest read-aloud speeds."""
DECISIONS: tuple[str, ...] = get_args(ApprovalDecision)
"""What an audit entry can record, for the audit page's filter."""

_URL_FIELDS: dict[Provider, str] = {
    "ollama": "ollama_url",
    "openai": "openai_url",
    "anthropic": "anthropic_url",
}


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """One API key as the keys page shows it: never the value, only a masked hint."""

    ref: str
    label: str
    is_set: bool
    masked: str


@dataclass(frozen=True, slots=True)
class RuleRow:
    """An "always allow" rule with the title of its thread (``None``: every thread);
    ``scope`` says in words how far an argument-scoped rule reaches ("inside ~/notes"),
    ``rule_id`` names it for revoking (both empty for a rule of the whole tool)."""

    tool: str
    thread_id: str | None
    thread_title: str | None
    created_at: float
    scope: str = ""
    rule_id: int | None = None
    agent: str | None = None
    """The agent whose calls the rule allows (``None``: any agent's)."""


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One audit log entry with its thread's title."""

    time: float
    thread_id: str | None
    thread_title: str
    tool: str
    decision: str
    scope: str
    fingerprint: str
    reason: str


def mask(value: str) -> str:
    """A key shown masked: dots and its last four characters (all dots when short)."""
    if len(value) < 12:
        return "•" * 8
    return "•" * 8 + value[-4:]


class Preferences:
    """The settings service (see the module docstring)."""

    def __init__(
        self, settings: SettingsStore, store: Store, secrets: object, events: EventBus
    ) -> None:
        self._settings = settings
        self._store = store
        self._events = events
        self._given = secrets
        self._keyring: KeyringSecretResolver | None = None

    # Providers ------------------------------------------------------------------------

    def url(self, provider: Provider) -> str:
        """The base URL configured for ``provider``."""
        return str(getattr(self._settings.current, _URL_FIELDS[provider]))

    async def set_url(self, provider: Provider, url: str) -> str:
        """Keep ``url`` as ``provider``'s base URL; refuses anything but an http(s) address."""
        from app.services.connection_test import check_url

        clean = check_url(url)
        await self._settings.update(**{_URL_FIELDS[provider]: clean})
        return clean

    async def test_connection(self, provider: Provider, url: str | None = None) -> ConnectionResult:
        """Really connect to ``provider`` at ``url`` (or its saved URL) and say how it went."""
        key = None
        ref = self.key_ref(provider)
        if ref is not None:
            key = await self._read_key(ref)
        return await probe_connection(provider, url or self.url(provider), key)

    # Keys -----------------------------------------------------------------------------

    def key_ref(self, provider: Provider) -> str | None:
        """The keyring name of ``provider``'s API key (Ollama needs none)."""
        if provider == "anthropic":
            return "anthropic/api-key"
        if provider == "openai":
            from urllib.parse import urlparse

            from app.providers.spec import OPENAI_URL

            url = self.url("openai")
            return (
                "openai/api-key" if url == OPENAI_URL else f"openai/{urlparse(url).netloc}/api-key"
            )
        return None

    async def _resolver(self) -> KeyringSecretResolver:
        from app.secrets.keyring_resolver import KeyringSecretResolver

        if self._keyring is None:
            given = self._given
            if isinstance(given, KeyringSecretResolver):
                given.session_fallback = True
                self._keyring = given
            else:
                self._keyring = await asyncio.to_thread(
                    lambda: KeyringSecretResolver(session_fallback=True)
                )
        return self._keyring

    async def keyring_message(self) -> tuple[bool, str]:
        """(session only?, the sentence the keys page shows about where keys are kept)."""
        status = (await self._resolver()).status()
        return status.session_only, status.message

    async def _read_key(self, ref: str) -> str | None:
        resolver = await self._resolver()
        try:
            return await asyncio.to_thread(resolver.get, ref)
        except SecretError:
            return None

    async def keys(self) -> list[KeyInfo]:
        """The API keys Parley uses, each set or not, masked."""
        wanted = [("OpenAI", "openai/api-key"), ("Anthropic", "anthropic/api-key")]
        custom = self.key_ref("openai")
        if custom is not None and custom != "openai/api-key":
            wanted.append((f"OpenAI-compatible server ({self.url('openai')})", custom))
        out = []
        for label, ref in wanted:
            value = await self._read_key(ref)
            out.append(KeyInfo(ref, label, value is not None, mask(value) if value else "not set"))
        return out

    async def set_key(self, ref: str, value: str) -> str:
        """Store (or replace) the key ``ref``; returns a sentence saying where it went."""
        value = value.strip()
        if not value:
            raise UserError("an API key cannot be empty; use Delete to remove one")
        if any(c.isspace() for c in value):
            raise UserError("an API key has no spaces or line breaks; paste just the key")
        resolver = await self._resolver()
        try:
            status = await asyncio.to_thread(resolver.set, ref, value)
        except SecretError as exc:
            raise UserError(str(exc)) from None
        self._events.emit(KeysChanged(ref))
        if status.session_only:
            return "Key kept for this session only: no system keyring is available."
        return "Key saved in the system keyring."

    async def delete_key(self, ref: str) -> None:
        """Remove the key ``ref`` from the keyring and this session."""
        resolver = await self._resolver()
        try:
            await asyncio.to_thread(resolver.delete, ref)
        except SecretError as exc:
            raise UserError(str(exc)) from None
        self._events.emit(KeysChanged(ref))

    # Rules and audit ------------------------------------------------------------------

    async def _titles(self) -> dict[str, str]:
        return {t.id: t.title or "Untitled thread" for t in await self._store.list_threads()}

    async def rules(self) -> list[RuleRow]:
        """Every "always allow" rule."""
        titles = await self._titles()
        rows = await self._store.list_allow_rules()
        return [
            RuleRow(
                r.tool,
                r.thread_id,
                titles.get(r.thread_id, "a deleted thread") if r.thread_id else None,
                r.created_at,
                agent=r.agent or None,
            )
            for r in rows
        ] + [
            RuleRow(
                kept.rule.tool,
                kept.rule.thread_id,
                titles.get(kept.rule.thread_id, "a deleted thread")
                if kept.rule.thread_id
                else None,
                kept.created_at,
                kept.rule.for_agent(None).describe().removeprefix(kept.rule.tool).strip(),
                kept.id,
                kept.rule.agent,
            )
            for kept in await self._store.list_argument_rules()
        ]

    async def revoke_rule(
        self, tool: str, thread_id: str | None, rule_id: int | None = None, agent: str = ""
    ) -> None:
        """Remove the rule (the argument-scoped one ``rule_id`` names, when given; else the
        thread's rule of ``agent``, a delegate, or of the thread's own agent): the next call
        it covered asks again."""
        if rule_id is not None:
            if not await self._store.revoke_argument_rule(rule_id):
                raise UserError(f"that always-allow rule for {tool} is gone already")
            return
        if not await self._store.revoke_allow_rule(tool, thread_id=thread_id, agent=agent):
            raise UserError(f"there is no always-allow rule for {tool} there any more")

    async def audit(
        self,
        text: str = "",
        *,
        tool: str | None = None,
        decision: str | None = None,
        limit: int = 500,
    ) -> list[AuditRow]:
        """Audit log entries, newest first, filtered by tool, decision and free text (which
        matches the thread title, tool, decision, scope, reason or fingerprint)."""
        titles = await self._titles()
        records = await self._store.list_approvals(tool=tool or None, limit=limit)
        needle = text.strip().lower()
        out = []
        for r in records:
            if decision and r.decision != decision:
                continue
            title = titles.get(r.thread_id or "", "") if r.thread_id else ""
            row = AuditRow(
                r.time,
                r.thread_id,
                title,
                r.tool,
                r.decision,
                r.scope,
                r.args_fingerprint,
                "; ".join(filter(None, (r.reason, f"by the rule {r.rule}" if r.rule else ""))),
            )
            hay = " ".join((title, r.tool, r.decision, r.scope, r.args_fingerprint, row.reason))
            if needle and needle not in hay.lower():
                continue
            out.append(row)
        return out

    # Limits and theme -----------------------------------------------------------------

    @property
    def default_limits(self) -> BudgetLimits:
        """The budget new runs start with."""
        return self._settings.current.default_limits

    async def set_default_limits(self, **limits: Any) -> BudgetLimits:
        """Change some of the default limits (``None``: no limit)."""
        for name, value in limits.items():
            if value is not None and value <= 0:
                raise UserError(f"a limit must be more than 0, or off; {name} was {value}")
        merged = self.default_limits.model_copy(update=limits)
        checked = BudgetLimits.model_validate(merged.model_dump())
        await self._settings.update(default_limits=checked)
        return checked

    @property
    def theme(self) -> str:
        """``system``, ``light`` or ``dark``."""
        return self._settings.current.theme

    async def set_theme(self, theme: Literal["system", "light", "dark"] | str) -> None:
        """Keep the theme choice."""
        if theme not in THEMES:
            raise UserError(f"the theme must be one of {', '.join(THEMES)}, not {theme!r}")
        await self._settings.update(theme=theme)

    def run_in_background(self) -> bool:
        """Whether closing the window keeps Parley running the schedules in the tray."""
        return self._settings.current.run_in_background

    async def set_run_in_background(self, on: bool) -> None:
        """Keep whether closing the window keeps Parley running the schedules in the tray."""
        await self._settings.update(run_in_background=on)

    def read_aloud(self) -> tuple[str | None, float]:
        """The voice read-aloud speaks with (``None``: the first installed) and its speed."""
        current = self._settings.current
        return current.read_aloud_voice or None, current.read_aloud_speed

    async def set_read_aloud(self, voice: str | None, speed: float) -> None:
        """Keep read-aloud's voice (``None``: the first installed) and speed."""
        if not READ_ALOUD_SPEEDS[0] <= speed <= READ_ALOUD_SPEEDS[1]:
            raise UserError(f"A speed of {speed:g} is out of range; give one from 0.25 to 4.")
        await self._settings.update(read_aloud_voice=voice or "", read_aloud_speed=speed)

    def send_on_pause(self) -> bool:
        """Whether dictation sends its words after a pause in speech."""
        return self._settings.current.send_on_pause

    async def set_send_on_pause(self, on: bool) -> None:
        """Keep whether dictation sends its words after a pause in speech."""
        await self._settings.update(send_on_pause=on)

    async def set_offline(self, offline: bool) -> None:
        """Keep the offline choice; it applies to every connection at once."""
        await self._settings.update(offline=offline)


def format_time(when: float) -> str:
    """A local date and time for the audit log."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))


def tools_in(rows: Sequence[AuditRow]) -> list[str]:
    """The tool names in ``rows``, sorted, for a filter list."""
    return sorted({r.tool for r in rows})
