"""Local models a click away: a catalogue of well-known GGUF files, downloaded on request into
the data directory, plus any GGUF file the user adds; both can be removed again.

Nothing here opens a connection except :meth:`ModelLibrary.download`. Before a download the
computer's memory and free disk space are checked against the model's needs; the file is
resumed after a cut, bounded (its size, its GGUF mark, a deadline) and checked against its
SHA-256 (the catalogue's, or the one the hub publishes) before it is kept. The window's model
picker and ``parley models`` both use this.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from app.core.errors import UserError
from app.core.netgate import purpose
from app.services.models._download_checks import Bounds, DownloadError, ProgressCallback
from app.store.paths import resolve_data_dir
from app.text.sizes import rough_size

__all__ = [
    "CATALOGUE",
    "HUB_ENV",
    "HUB_URL",
    "CatalogueEntry",
    "DownloadError",
    "InstalledModel",
    "ModelLibrary",
    "ModelListing",
    "NotEnoughResources",
]

HUB_URL = "https://huggingface.co"
HUB_ENV = "PARLEY_HUB_URL"
"""Environment variable naming another hub (a mirror) to download from."""
MODELS_DIR = "models"
MANIFEST = "models.json"
GB = 1_000_000_000
DISK_MARGIN = 200_000_000
"""Free space kept beyond the file itself, so the disk is never filled to the last byte."""
SIZE_SLACK = 0.01
"""How much bigger than its catalogue size a file may be (a few sizes here are rounded)."""
MIN_RATE = 250_000
"""Bytes per second a download is given at the least: its deadline is its size at this rate
(and never under :data:`DEADLINE_FLOOR`); the bytes so far are kept when it runs out."""
DEADLINE_FLOOR = 30 * 60
GGUF_MAGIC = b"GGUF"


class NotEnoughResources(UserError):
    """The computer has too little memory or disk space for the model."""


@dataclass(frozen=True)
class CatalogueEntry:
    """A downloadable GGUF model: where it is, how big, its licence and what it is good for."""

    name: str
    title: str
    repo: str
    filename: str
    size_bytes: int
    ram_bytes: int
    licence: str
    tool_calls: Literal["good", "fair", "poor"]
    sha256: str | None = None
    """The published SHA-256; None: the hub's ``X-Linked-Etag`` header is used instead."""
    revision: str = "main"
    kind: Literal["chat", "embedding"] = "chat"
    """``embedding``: a model that turns text into vectors for searching knowledge folders by
    meaning (Settings > Knowledge); the chat model picker does not offer it."""

    def url(self, hub: str = HUB_URL) -> str:
        """The file's download address on the hub."""
        return f"{hub.rstrip('/')}/{self.repo}/resolve/{self.revision}/{self.filename}"


# Sizes are the files' byte counts; RAM is the file plus a 4096-token context and runtime
# overhead, rounded up.
CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        name="qwen2.5-0.5b",
        title="Qwen2.5 0.5B Instruct (Q4_K_M)",
        repo="bartowski/Qwen2.5-0.5B-Instruct-GGUF",
        filename="Qwen2.5-0.5B-Instruct-Q4_K_M.gguf",
        size_bytes=397_808_192,
        ram_bytes=1 * GB,
        licence="Apache-2.0",
        tool_calls="fair",
    ),
    CatalogueEntry(
        name="qwen3-0.6b",
        title="Qwen3 0.6B (Q4_K_M)",
        repo="bartowski/Qwen_Qwen3-0.6B-GGUF",
        filename="Qwen_Qwen3-0.6B-Q4_K_M.gguf",
        size_bytes=484_000_000,
        ram_bytes=1 * GB,
        licence="Apache-2.0",
        tool_calls="fair",
        sha256="9acfc1e001311f34b4252001b626f2e466d592a42065f66571bff3790d4e1b14",
    ),
    CatalogueEntry(
        name="llama3.2-1b",
        title="Llama 3.2 1B Instruct (Q4_K_M)",
        repo="bartowski/Llama-3.2-1B-Instruct-GGUF",
        filename="Llama-3.2-1B-Instruct-Q4_K_M.gguf",
        size_bytes=807_694_464,
        ram_bytes=2 * GB,
        licence="Llama 3.2 Community License",
        tool_calls="fair",
    ),
    CatalogueEntry(
        name="qwen2.5-1.5b",
        title="Qwen2.5 1.5B Instruct (Q4_K_M)",
        repo="bartowski/Qwen2.5-1.5B-Instruct-GGUF",
        filename="Qwen2.5-1.5B-Instruct-Q4_K_M.gguf",
        size_bytes=986_048_768,
        ram_bytes=2 * GB,
        licence="Apache-2.0",
        tool_calls="good",
    ),
    CatalogueEntry(
        name="phi3-mini",
        title="Phi-3 mini 4k Instruct (Q4)",
        repo="microsoft/Phi-3-mini-4k-instruct-gguf",
        filename="Phi-3-mini-4k-instruct-q4.gguf",
        size_bytes=2_393_231_072,
        ram_bytes=4 * GB,
        licence="MIT",
        tool_calls="fair",
        sha256="8a83c7fb9049a9b2e92266fa7ad04933bb53aa1e85136b7b30f1b8000ff2edef",
        revision="c80d904a71b99a3eaeb8d3dbf164166384c09dc3",
    ),
    CatalogueEntry(
        name="llama3.2-3b",
        title="Llama 3.2 3B Instruct (Q4_K_M)",
        repo="bartowski/Llama-3.2-3B-Instruct-GGUF",
        filename="Llama-3.2-3B-Instruct-Q4_K_M.gguf",
        size_bytes=2_019_377_696,
        ram_bytes=4 * GB,
        licence="Llama 3.2 Community License",
        tool_calls="good",
    ),
    CatalogueEntry(
        name="bge-small-en-v1.5",
        title="BGE small English v1.5 (Q8_0, for search by meaning)",
        repo="CompendiumLabs/bge-small-en-v1.5-gguf",
        filename="bge-small-en-v1.5-q8_0.gguf",
        size_bytes=36_806_944,
        ram_bytes=GB // 4,
        licence="MIT",
        tool_calls="poor",
        sha256="ec38e8da142596baa913124ae50550de284b6916bf59577ef2f0cb9660c2f514",
        kind="embedding",
    ),
)


@dataclass(frozen=True)
class InstalledModel:
    """A GGUF file Parley can run: downloaded from the catalogue, or added from disk."""

    name: str
    path: str
    source: Literal["catalogue", "local"]
    size_bytes: int
    sha256: str | None = None

    @property
    def spec(self) -> str:
        """The model spec that runs it (``gguf:PATH``)."""
        return f"gguf:{self.path}"


@dataclass(frozen=True)
class ModelListing:
    """One row of the model list: a catalogue entry and/or an installed file."""

    name: str
    entry: CatalogueEntry | None
    installed: InstalledModel | None
    partial_bytes: int = 0
    """Bytes of an unfinished download waiting to be resumed."""


def _total_ram() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


def _free_disk(path: Path) -> int:
    return shutil.disk_usage(path).free


class ModelLibrary:
    """The models in one data directory (``DATA/models``), and the catalogue to add from."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        hub_url: str | None = None,
        catalogue: tuple[CatalogueEntry, ...] = CATALOGUE,
        total_ram: Callable[[], int] = _total_ram,
        free_disk: Callable[[Path], int] = _free_disk,
        deadline: float | None = None,
    ) -> None:
        self.dir = resolve_data_dir(data_dir) / MODELS_DIR
        named = hub_url or os.environ.get(HUB_ENV)
        self.hub_url = named or HUB_URL
        self.mirror = named if named and named != HUB_URL else None
        """A hub the user named (a mirror): it may be on the local network, the places it
        redirects to may not."""
        self.deadline = deadline
        """Seconds a download may take; None: its size at :data:`MIN_RATE`."""
        self.catalogue = catalogue
        self._total_ram = total_ram
        self._free_disk = free_disk

    # -- reading -------------------------------------------------------------------------
    def _manifest(self) -> dict[str, InstalledModel]:
        path = self.dir / MANIFEST
        if not path.exists():
            return {}
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return {k: InstalledModel(**v) for k, v in raw.get("models", {}).items()}
        except (ValueError, TypeError, AttributeError) as exc:
            raise UserError(
                f"The model list {path} is damaged ({exc}). Move it away; Parley starts a new one."
            ) from exc

    def _save(self, models: dict[str, InstalledModel]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / (MANIFEST + ".tmp")
        data = {"models": {k: asdict(v) for k, v in sorted(models.items())}}
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        os.replace(tmp, self.dir / MANIFEST)

    def installed(self) -> list[InstalledModel]:
        """The models that can run now, by name."""
        return sorted(self._manifest().values(), key=lambda m: m.name)

    def listing(self) -> list[ModelListing]:
        """Every catalogue entry (installed or not), then every model added from disk."""
        have = self._manifest()
        rows = []
        for entry in self.catalogue:
            part = self.dir / (entry.filename + ".part")
            partial = part.stat().st_size if part.exists() else 0
            rows.append(ModelListing(entry.name, entry, have.pop(entry.name, None), partial))
        rows += [ModelListing(m.name, None, m) for m in sorted(have.values(), key=lambda m: m.name)]
        return rows

    def entry(self, name: str) -> CatalogueEntry:
        """The catalogue entry called ``name``; :class:`UserError` names the choices."""
        for entry in self.catalogue:
            if entry.name == name:
                return entry
        names = ", ".join(e.name for e in self.catalogue)
        raise UserError(f"There is no model {name!r} in the catalogue; choose one of: {names}.")

    def get(self, name: str) -> InstalledModel:
        """The installed model called ``name``."""
        found = self._manifest().get(name)
        if found is None:
            raise UserError(f"No model called {name!r} is installed; see `parley models`.")
        return found

    # -- changing ------------------------------------------------------------------------
    def check_fits(self, entry: CatalogueEntry, remaining: int | None = None) -> None:
        """Raise :class:`NotEnoughResources` when memory or disk space is too small."""
        ram = self._total_ram()
        if ram and ram < entry.ram_bytes:
            raise NotEnoughResources(
                f"{entry.name} needs about {rough_size(entry.ram_bytes)} of memory and this "
                f"computer has {rough_size(ram)}; choose a smaller model."
            )
        self.dir.mkdir(parents=True, exist_ok=True)
        need = (entry.size_bytes if remaining is None else remaining) + DISK_MARGIN
        free = self._free_disk(self.dir)
        if free < need:
            raise NotEnoughResources(
                f"Not enough disk space for {entry.name}: it needs {rough_size(need)} and "
                f"{self.dir} has {rough_size(free)} free. Free some space or choose a "
                "smaller model."
            )

    def bounds(self, entry: CatalogueEntry) -> Bounds:
        """What a download of ``entry`` may be: no bigger than its size allows, a GGUF file,
        done by the deadline."""
        seconds = self.deadline or max(DEADLINE_FLOOR, entry.size_bytes / MIN_RATE)
        limit = int(entry.size_bytes * (1 + SIZE_SLACK))
        return Bounds(limit, GGUF_MAGIC, "a GGUF model file", seconds)

    async def download(
        self, name: str, progress: ProgressCallback | None = None, *, retry_delay: float = 1.0
    ) -> InstalledModel:
        """Download catalogue model ``name`` (resuming an unfinished download) and install it."""
        entry, done = self._plan(name)
        if done is not None:
            return done
        target = self.dir / entry.filename
        from app.services.models._download import download_file  # HTTP loads only now

        with purpose(f"downloading {name}"):
            await download_file(
                entry.url(self.hub_url),
                target,
                sha256=entry.sha256,
                label=entry.title,
                progress=progress,
                retry_delay=retry_delay,
                check_size=lambda remaining: self.check_fits(entry, remaining),
                bounds=self.bounds(entry),
                trusted=self.mirror,
            )
        return self._record(entry, target)

    def _plan(self, name: str) -> tuple[CatalogueEntry, InstalledModel | None]:
        entry = self.entry(name)
        done = self._manifest().get(name)
        if done is not None and Path(done.path).is_file():
            return entry, done
        part = self.dir / (entry.filename + ".part")
        have = part.stat().st_size if part.exists() else 0
        self.check_fits(entry, max(entry.size_bytes - have, 0))
        return entry, None

    def _record(self, entry: CatalogueEntry, target: Path) -> InstalledModel:
        model = InstalledModel(
            entry.name, str(target), "catalogue", target.stat().st_size, entry.sha256
        )
        models = self._manifest()
        models[entry.name] = model
        self._save(models)
        return model

    def add(self, path: str | os.PathLike[str], name: str | None = None) -> InstalledModel:
        """Add a GGUF file from disk (it stays where it is) under ``name`` (default: its stem)."""
        file = Path(path).expanduser()
        if not file.is_file():
            raise UserError(f"{file} is not a file. Give the path of a .gguf model file.")
        with file.open("rb") as f:
            magic = f.read(4)
        if magic != GGUF_MAGIC:
            raise UserError(f"{file} is not a GGUF model file (it does not start with 'GGUF').")
        label = name or file.stem
        models = self._manifest()
        if label in models or any(e.name == label for e in self.catalogue):
            raise UserError(f"There is already a model called {label!r}; pass another name.")
        model = InstalledModel(label, str(file.resolve()), "local", file.stat().st_size)
        models[label] = model
        self._save(models)
        return model

    def remove(self, name: str) -> InstalledModel:
        """Forget model ``name``; a downloaded file (and any unfinished part) is deleted, a file
        added from disk is left where it is."""
        models = self._manifest()
        model = models.pop(name, None)
        part = None
        if any(e.name == name for e in self.catalogue):
            part = self.dir / (self.entry(name).filename + ".part")
        if model is None and not (part and part.exists()):
            raise UserError(f"No model called {name!r} is installed; see `parley models`.")
        if part is not None:
            part.unlink(missing_ok=True)
        if model is not None and model.source == "catalogue":
            Path(model.path).unlink(missing_ok=True)
        self._save(models)
        return model or InstalledModel(name, str(part), "catalogue", 0)
