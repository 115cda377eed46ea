"""The built one-folder bundle (``make package``, built by CI after ``make test``) runs without
our Python: it answers on the bundled model as the same build does from Python and renders its
window offscreen."""

from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "dist" / "parley"
EXE = BUNDLE / "parley"
QUESTION = "What is the capital of France?"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not EXE.is_file(), reason=f"no bundle at {BUNDLE}: build it with `make package`"
    ),
]


def _run(cmd: list[str], cwd: Path, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env |= {"PARLEY_DATA_DIR": str(data_dir), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=600, cwd=cwd, env=env, check=False
    )


def _bundle(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run the bundle's ``parley`` in ``tmp_path`` with nothing of our Python around it."""
    return _run([str(EXE), *args], tmp_path, tmp_path / "data")


def test_the_smoke_script_passes(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "packaging" / "smoke-test.sh"), str(BUNDLE)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "smoke-test: passed"


def test_the_bundle_answers_exactly_as_its_build_does_from_python(tmp_path: Path) -> None:
    """Same llama.cpp build, same weights, greedy decoding: the bundle must say word for word
    what the packaging virtualenv says, or something was lost in bundling."""
    python = ROOT / "build" / "package-venv" / "bin" / "python"
    if not python.is_file():
        pytest.skip("no build/package-venv to compare with (`make package` creates it)")
    bundled = _bundle("chat", QUESTION, tmp_path=tmp_path)
    source = _run([str(python), "-m", "app", "chat", QUESTION], ROOT, tmp_path / "source")
    assert source.returncode == 0, source.stderr
    assert bundled.returncode == 0, bundled.stderr
    assert "Traceback" not in bundled.stderr
    assert len(bundled.stdout.split()) >= 3
    assert bundled.stdout == source.stdout


def test_the_bundle_renders_its_window_offscreen(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    done = _bundle("--screenshot", str(shot), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    head = shot.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    assert width >= 400 and height >= 300


def test_the_bundle_carries_one_ffmpeg_and_what_plays_media() -> None:
    """Qt Multimedia's FFmpeg is the only one (PyAV's second copy was ~100 MB), and its
    plugin finds every library and symbol it links: Qt Quick's stub included."""
    internal = BUNDLE / "_internal"
    codecs = [
        p.relative_to(internal).as_posix()
        for p in internal.rglob("libavcodec*")
        if not p.is_symlink()  # PyInstaller links the Qt libraries beside the executable
    ]
    assert codecs == ["PySide6/Qt/lib/libavcodec.so.63"]
    assert not (internal / "av").exists() and not (internal / "av.libs").exists()
    qt = internal / "PySide6" / "Qt"
    plugin = qt / "plugins" / "multimedia" / "libffmpegmediaplugin.so"
    env = {**os.environ, "LD_LIBRARY_PATH": f"{qt / 'lib'}:{internal}"}
    done = subprocess.run(
        ["ldd", "-r", str(plugin)], capture_output=True, text=True, env=env, check=True
    )
    problems = [
        line for line in done.stdout.splitlines() if "not found" in line or "undefined" in line
    ]
    assert problems == []
    assert "libQt6Quick.so.6 => " + str(qt / "lib" / "libQt6Quick.so.6") in done.stdout


def test_the_bundle_leaves_out_what_parley_never_calls() -> None:
    """numpy comes built without BLAS (OpenBLAS was 28 MB), Word documents are read without
    lxml, and Pillow comes without its text drawing: see packaging/README.md."""
    internal = BUNDLE / "_internal"
    assert [p.name for p in internal.rglob("*openblas*")] == []
    assert not (internal / "numpy.libs").exists()
    assert not (internal / "lxml").exists() and not (internal / "docx").exists()
    assert [p.name for p in internal.rglob("*freetype*")] == []
    assert (internal / "numpy" / "_core").is_dir() and (internal / "PIL").is_dir()


def test_the_bundle_says_in_one_sentence_that_it_has_no_speech_engine(tmp_path: Path) -> None:
    done = _bundle("say", "Hello.", "-o", str(tmp_path / "hello.wav"), tmp_path=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "parley: This build of Parley has no speech engine, so it cannot speak; run Parley "
        "from source with its voice extra (pip install '.[voice]' in its folder) to use voice.\n"
    )
    assert not (BUNDLE / "_internal" / "faster_whisper").exists()
