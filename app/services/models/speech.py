"""Speech models a click away: Whisper models (speech to text, CTranslate2's format, run by
faster-whisper) and Piper voices (text to speech, ONNX), downloaded on request into
``DATA/models/speech/NAME/`` the same way as chat models (:func:`download_file`: resumable,
bounded, each file checked against its SHA-256), or registered from a folder already on disk.

A speech model is a few files (a Whisper model's weights, configuration and vocabulary; a
voice's network and its settings), each pinned by size and SHA-256. Nothing here opens a
connection except :meth:`SpeechModels.download`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Literal

from app.core.errors import UserError
from app.core.netgate import purpose
from app.services.models._download_checks import Bounds, ProgressCallback
from app.services.models.catalogue import (
    DEADLINE_FLOOR,
    DISK_MARGIN,
    HUB_ENV,
    HUB_URL,
    MIN_RATE,
    MODELS_DIR,
    SIZE_SLACK,
    NotEnoughResources,
)
from app.store.paths import resolve_data_dir
from app.text.sizes import rough_size

__all__ = [
    "SPEECH_CATALOGUE",
    "InstalledSpeechModel",
    "SpeechEntry",
    "SpeechFile",
    "SpeechKind",
    "SpeechListing",
    "SpeechModels",
]

SpeechKind = Literal["whisper", "voice"]
SPEECH_DIR = "speech"
MANIFEST = "speech.json"
MB = 1_000_000


@dataclass(frozen=True)
class SpeechFile:
    """One file of a speech model: its name on the hub, its size and its SHA-256."""

    filename: str
    size_bytes: int
    sha256: str


@dataclass(frozen=True)
class SpeechEntry:
    """A downloadable speech model: a Whisper model or a Piper voice, and its files."""

    name: str
    title: str
    kind: SpeechKind
    repo: str
    folder: str
    """The files' folder inside the hub repository ("" for its top)."""
    files: tuple[SpeechFile, ...]
    ram_bytes: int
    licence: str
    languages: str
    revision: str = "main"

    @property
    def size_bytes(self) -> int:
        """All the files' bytes together."""
        return sum(f.size_bytes for f in self.files)

    def url(self, file: SpeechFile, hub: str = HUB_URL) -> str:
        """Where ``file`` is downloaded from."""
        where = f"{self.folder}/{file.filename}" if self.folder else file.filename
        return f"{hub.rstrip('/')}/{self.repo}/resolve/{self.revision}/{where}"


# Sizes and SHA-256 digests are those of the files the hub serves at these addresses.
SPEECH_CATALOGUE: tuple[SpeechEntry, ...] = (
    SpeechEntry(
        name="whisper-base",
        title="Whisper base (multilingual, CTranslate2)",
        kind="whisper",
        repo="Systran/faster-whisper-base",
        folder="",
        files=(
            SpeechFile(
                "model.bin",
                145_217_532,
                "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
            ),
            SpeechFile(
                "config.json",
                2_309,
                "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
            ),
            SpeechFile(
                "tokenizer.json",
                2_203_239,
                "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
            ),
            SpeechFile(
                "vocabulary.txt",
                459_861,
                "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
            ),
        ),
        ram_bytes=500 * MB,
        licence="MIT",
        languages="99 languages",
    ),
    SpeechEntry(
        name="voice-en_US-joe",
        title="Piper voice: Joe (US English, medium)",
        kind="voice",
        repo="rhasspy/piper-voices",
        folder="en/en_US/joe/medium",
        files=(
            SpeechFile(
                "en_US-joe-medium.onnx",
                63_201_294,
                "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
            ),
            SpeechFile(
                "en_US-joe-medium.onnx.json",
                4_794,
                "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33",
            ),
        ),
        ram_bytes=200 * MB,
        licence="CC0-1.0",
        languages="en_US",
        revision="v1.0.0",
    ),
)


@dataclass(frozen=True)
class InstalledSpeechModel:
    """A speech model Parley can run: a folder holding its files."""

    name: str
    kind: SpeechKind
    path: str
    source: Literal["catalogue", "local"]
    size_bytes: int

    @property
    def voice_file(self) -> Path:
        """A voice's network (its ``.onnx`` file); only for ``kind == "voice"``."""
        found = sorted(Path(self.path).glob("*.onnx"))
        if not found:
            raise UserError(f"The voice {self.name} has no .onnx file in {self.path}.")
        return found[0]


@dataclass(frozen=True)
class SpeechListing:
    """One row of the speech model list: a catalogue entry and/or an installed model."""

    name: str
    entry: SpeechEntry | None
    installed: InstalledSpeechModel | None
    partial_bytes: int = 0


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


class SpeechModels:
    """The speech models in one data directory (``DATA/models/speech``)."""

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        hub_url: str | None = None,
        catalogue: tuple[SpeechEntry, ...] = SPEECH_CATALOGUE,
        deadline: float | None = None,
        free_disk: Callable[[Path], int] = lambda path: shutil.disk_usage(path).free,
    ) -> None:
        self.dir = resolve_data_dir(data_dir) / MODELS_DIR / SPEECH_DIR
        self._free_disk = free_disk
        named = hub_url or os.environ.get(HUB_ENV)
        self.hub_url = named or HUB_URL
        self.mirror = named if named and named != HUB_URL else None
        self.catalogue = catalogue
        self.deadline = deadline

    # -- reading -------------------------------------------------------------------------
    def _manifest(self) -> dict[str, InstalledSpeechModel]:
        path = self.dir / MANIFEST
        if not path.exists():
            return {}
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return {k: InstalledSpeechModel(**v) for k, v in raw.get("models", {}).items()}
        except (ValueError, TypeError, AttributeError) as exc:
            raise UserError(
                f"The speech model list {path} is damaged ({exc}). Move it away; Parley starts "
                "a new one."
            ) from exc

    def _save(self, models: dict[str, InstalledSpeechModel]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / (MANIFEST + ".tmp")
        data = {"models": {k: asdict(v) for k, v in sorted(models.items())}}
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        os.replace(tmp, self.dir / MANIFEST)

    def listing(self) -> list[SpeechListing]:
        """Every catalogue entry (installed or not), then every model added from disk."""
        have = self._manifest()
        rows = []
        for entry in self.catalogue:
            folder = self.dir / entry.name
            partial = sum(
                p.stat().st_size
                for f in entry.files
                if (p := folder / (f.filename + ".part")).exists()
            )
            rows.append(SpeechListing(entry.name, entry, have.pop(entry.name, None), partial))
        rows += [
            SpeechListing(m.name, None, m) for m in sorted(have.values(), key=lambda m: m.name)
        ]
        return rows

    def entry(self, name: str) -> SpeechEntry:
        """The catalogue entry called ``name``; :class:`UserError` names the choices."""
        for entry in self.catalogue:
            if entry.name == name:
                return entry
        names = ", ".join(e.name for e in self.catalogue)
        raise UserError(
            f"There is no speech model {name!r} in the catalogue; choose one of: {names}."
        )

    def get(self, name: str | None, kind: SpeechKind) -> InstalledSpeechModel:
        """The installed model ``name`` of ``kind``, or (``None``) the first one installed."""
        models = [m for m in self._manifest().values() if m.kind == kind]
        what = "Whisper model" if kind == "whisper" else "voice"
        if name is None:
            if not models:
                first = next((e.name for e in self.catalogue if e.kind == kind), "")
                raise UserError(
                    f"No {what} is installed. Download one with `parley models download {first}`."
                )
            return sorted(models, key=lambda m: m.name)[0]
        for model in models:
            if model.name == name:
                return model
        raise UserError(f"No {what} called {name!r} is installed; see `parley models`.")

    # -- changing ------------------------------------------------------------------------
    def bounds(self, file: SpeechFile) -> Bounds:
        """A file's download may be no bigger than its size and must finish by the deadline."""
        seconds = self.deadline or max(DEADLINE_FLOOR, file.size_bytes / MIN_RATE)
        return Bounds(int(file.size_bytes * (1 + SIZE_SLACK)), b"", f"{file.filename}", seconds)

    async def download(
        self, name: str, progress: ProgressCallback | None = None, *, retry_delay: float = 1.0
    ) -> InstalledSpeechModel:
        """Download catalogue model ``name`` file by file (a file already there and whole is
        kept, an unfinished one resumed) and install it."""
        entry = self.entry(name)
        done, missing = self._plan(entry)
        if done is not None:
            return done
        folder = self.dir / entry.name
        from app.services.models._download import download_file  # HTTP loads only now

        with purpose(f"downloading {name}"):
            for file in missing:
                target = folder / file.filename
                await download_file(
                    entry.url(file, self.hub_url),
                    target,
                    sha256=file.sha256,
                    label=f"{entry.title}: {file.filename}",
                    progress=progress,
                    retry_delay=retry_delay,
                    bounds=self.bounds(file),
                    trusted=self.mirror,
                    check_size=partial(self._check_disk, entry),
                )
        return self._record(
            InstalledSpeechModel(entry.name, entry.kind, str(folder), "catalogue", entry.size_bytes)
        )

    def _check_disk(self, entry: SpeechEntry, remaining: int) -> None:
        """Refuse a download that would fill the disk (a margin is kept)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        need = remaining + DISK_MARGIN
        free = self._free_disk(self.dir)
        if free < need:
            raise NotEnoughResources(
                f"Not enough disk space for {entry.name}: it needs {rough_size(need)} and "
                f"{self.dir} has {rough_size(free)} free. Free some space and download again."
            )

    def _plan(self, entry: SpeechEntry) -> tuple[InstalledSpeechModel | None, list[SpeechFile]]:
        """The installed model, or the files still to download (a whole one is kept)."""
        done = self._manifest().get(entry.name)
        if done is not None and Path(done.path).is_dir():
            return done, []
        folder = self.dir / entry.name
        return None, [
            f
            for f in entry.files
            if not (
                (folder / f.filename).is_file()
                and (folder / f.filename).stat().st_size == f.size_bytes
            )
        ]

    def _record(self, model: InstalledSpeechModel) -> InstalledSpeechModel:
        models = self._manifest()
        models[model.name] = model
        self._save(models)
        return model

    def add_folder(self, folder: str | os.PathLike[str], name: str) -> InstalledSpeechModel:
        """Register catalogue model ``name`` from a folder on disk that already holds its
        files (they stay where they are); each file must have the catalogue's SHA-256."""
        entry = self.entry(name)
        where = Path(folder).expanduser().resolve()
        missing = [f.filename for f in entry.files if not (where / f.filename).is_file()]
        if missing:
            raise UserError(f"{where} has no {', '.join(missing)}, which {name} needs.")
        for file in entry.files:
            path = where / file.filename
            if _sha256(path) != file.sha256:
                raise UserError(
                    f"{path} is not the {file.filename} of {name} (its SHA-256 differs); "
                    f"download it with `parley models download {name}`."
                )
        return self._record(
            InstalledSpeechModel(entry.name, entry.kind, str(where), "local", entry.size_bytes)
        )

    def remove(self, name: str) -> InstalledSpeechModel:
        """Forget model ``name``; downloaded files are deleted, a registered folder is left."""
        models = self._manifest()
        model = models.pop(name, None)
        if model is None:
            raise UserError(f"No speech model called {name!r} is installed; see `parley models`.")
        if model.source == "catalogue" and name in self.names():
            for file in self.entry(name).files:
                (Path(model.path) / file.filename).unlink(missing_ok=True)
        self._save(models)
        return model

    def names(self) -> set[str]:
        """The catalogue's names."""
        return {e.name for e in self.catalogue}
