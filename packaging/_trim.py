"""What the one-folder bundle leaves out, and the passes that cut it (used by parley.spec).

1. Python modules nothing in the app imports at run time (:data:`UNUSED_MODULES`).
2. Qt plugins and translations the app never loads (:data:`UNUSED_PATHS`).
3. :func:`prune`: every shared library that nothing left in the bundle links to (the GTK 3
   stack came only with the GTK platform theme, EGLFS's libraries only with EGLFS), and the
   desktop libraries the Qt wheels themselves take from the system (:data:`HOST_LIBS`).
   Qt Quick and QML are replaced by a small stub (``linux/qtquick-stub.c`` says why).
4. :func:`strip`: symbol tables out of the libraries that carry them (libpython alone
   holds 17 MB of them), except those a wheel's repair tool rewrote (the ``*.libs`` folders;
   their packages' modules only where the stripped file still loads: stripping can break
   their load commands).
5. :func:`dedupe`: identical files side by side (a wheel holds no symlinks, so
   ``libllama.so`` and ``libllama.so.0`` arrive as two copies) become one file and a symlink.

``packaging/README.md`` says what each cut saved, measured.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

__all__ = [
    "HOST_LIBS",
    "UNUSED_MODULES",
    "UNUSED_PATHS",
    "dedupe",
    "prune",
    "quick_stubs",
    "report",
    "strip",
]

UNUSED_MODULES = [
    # media are read from their headers; Qt Multimedia's FFmpeg decodes thumbnails and plays
    "av",
    # AVIF is not an accepted image format (app/media/_sniff.py); Pillow skips the plugin
    "PIL._avif",
    # Pillow's text drawing (FreeType and HarfBuzz), colour management (Little CMS) and Tk:
    # images are only opened, converted and scaled (app/media/_image.py, _pdf.py)
    "PIL._imagingft",
    "PIL._imagingcms",
    "PIL._imagingtk",
    "PIL.ImageTk",
    # python-docx uses lxml.etree only
    "lxml.objectify",
    "lxml.html",
    "lxml.isoschematron",
    "lxml.sax",
    "lxml.cssselect",
    # llama.cpp's multimodal (image) projector bindings: the bundled model reads text only
    "llama_cpp.mtmd_cpp",
    # numpy's build and test tools, and the parts llama.cpp's bindings never call (numpy
    # imports them only when asked for)
    "numpy.f2py",
    "numpy.testing",
    "numpy.distutils",
    "numpy.random",
    "numpy.fft",
    "numpy.polynomial",
    # Qt modules QtAwesome's Qt layer (qtpy) offers if present and the app never uses: 11 MB
    "PySide6.QtOpenGL",
    "PySide6.QtOpenGLWidgets",
    "PySide6.QtDataVisualization",
    "qtpy.QtDataVisualization",
]

UNUSED_PATHS = (
    # the virtual-keyboard input plugin (and its Qt Virtual Keyboard and QML plugins) for an
    # on-screen keyboard a desktop widgets app does not offer; the compose and IBus input
    # methods stay. Qt Quick and QML themselves stay: Qt Multimedia's FFmpeg backend links them
    "libqtvirtualkeyboardplugin",
    # libmtmd.so, which only llama_cpp.mtmd_cpp (left out above) opens
    "llama_cpp/lib/libmtmd",
    # platforms other than xcb, wayland and offscreen: EGLFS, framebuffer, VNC, minimal, a
    # Vulkan display; and the evdev/TUIO input plugins only those use
    "plugins/platforms/libqeglfs",
    "plugins/platforms/libqlinuxfb",
    "plugins/platforms/libqminimal",
    "plugins/platforms/libqvnc",
    "plugins/platforms/libqvkkhrdisplay",
    "plugins/egldeviceintegrations/",
    "plugins/generic/",
    # the GTK 3 theme brings GTK, GDK, cairo, pango and ATK; the colour scheme and fonts come
    # from the desktop portal theme and Qt's own GNOME theme without it
    "plugins/platformthemes/libqgtk3",
    # network reachability: the app never asks QNetworkInformation
    "plugins/networkinformation/",
    # Qt's own strings (its dialogs' buttons) in other languages: the app is in English only
    "Qt/translations/",
    # QtAwesome's icon fonts other than Remix Icon, the one app/ui/icons.py loads
    *(f"qtawesome/fonts/{font}" for font in ("fontawesome", "materialdesign", "phosphor")),
    *(f"qtawesome/fonts/{font}" for font in ("elusiveicons", "codicon")),
)

HOST_LIBS = (
    # PulseAudio, and the codecs and systemd it links: every desktop with sound has them
    *("libpulse.so", "libpulsecommon-", "libsndfile.so", "libFLAC.so", "libvorbis.so"),
    *("libvorbisenc.so", "libogg.so", "libopus.so", "libmpg123.so", "libmp3lame.so"),
    *("libasyncns.so", "libsystemd.so", "libgcrypt.so", "libgpg-error.so", "liblz4.so"),
    "libcap.so",
    # Kerberos (Qt Network's GSSAPI), GLib (Qt's event loop), D-Bus, fonts, X11's core
    *("libgssapi_krb5.so", "libkrb5.so", "libk5crypto.so", "libkrb5support.so"),
    *("libcom_err.so", "libkeyutils.so", "libglib-2.0.so", "libgthread-2.0.so"),
    *("libpcre2-8.so", "libdbus-1.so", "libfontconfig.so", "libfreetype.so", "libpng16.so"),
    *("libbrotlicommon.so", "libbrotlidec.so", "libX11.so", "libX11-xcb.so", "libXext.so"),
    *("libXrandr.so", "libXrender.so", "libxkbcommon.so", "libxkbcommon-x11.so"),
    # C++'s runtime, which wheels never ship (the manylinux rules count on the system's): the
    # newest version anything here asks for is GCC 11's (GLIBCXX_3.4.29), and every system
    # with glibc 2.36 has GCC 12's or newer
    *("libstdc++.so", "libgcc_s.so"),
)
"""Libraries taken from the system, as the Qt wheels take them (they ship none of these): a
desktop has them all; the bundle keeps the XCB utility libraries some desktops lack."""

_QUICK_STUBS = ("libQt6Quick.so.6", "libQt6Qml.so.6")

_ROOT_DIRS = ("PySide6/Qt/lib/",)
"""Folders of libraries that are only loaded because another binary links to them (besides
the bundle's top level); every other binary (extension modules, Qt plugins, libraries
opened by ctypes) is kept as it is."""


def _needed(path: str) -> list[str]:
    """The DT_NEEDED names of an ELF file (``objdump -p``)."""
    try:
        out = subprocess.run(
            ["objdump", "-p", path], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line.split()[1] for line in out.splitlines() if line.strip().startswith("NEEDED")]


def _dropped(dest: str) -> bool:
    dest = dest.replace(os.sep, "/")
    return any(part in dest for part in UNUSED_PATHS)


def _host(name: str) -> bool:
    return name.startswith(HOST_LIBS)


def quick_stubs(binaries: list, work: Path) -> list:
    """``binaries`` with Qt Quick and QML replaced by the stub, compiled into ``work``."""
    here = Path(__file__).parent / "linux"
    work.mkdir(parents=True, exist_ok=True)
    stubs = {}
    for name in _QUICK_STUBS:
        out = work / name
        subprocess.run(
            [
                *("cc", "-shared", "-fPIC", "-O2", "-o", str(out), f"-Wl,-soname,{name}"),
                f"-Wl,--version-script={here / 'qtquick-stub.map'}",
                str(here / "qtquick-stub.c"),
            ],
            check=True,
        )
        stubs[name] = str(out)
    return [
        (dest, stubs.get(Path(dest).name, src), code)
        if dest.startswith("PySide6") and Path(dest).name in stubs
        else (dest, src, code)
        for dest, src, code in binaries
    ]


def _linked_only(dest: str, typecode: str) -> bool:
    dest = dest.replace(os.sep, "/")
    if typecode != "BINARY" or dest.startswith("libpython"):
        return False
    return "/" not in dest or dest.startswith(_ROOT_DIRS)


def prune(binaries: list, datas: list) -> tuple[list, list]:
    """Drop :data:`UNUSED_PATHS`, then every library (top level or Qt's ``lib``) that no kept
    binary links to, directly or through another; their symlinks go with them."""
    kept = [b for b in binaries if not _dropped(b[0]) and not _host(Path(b[0]).name)]
    by_name = {Path(dest).name: (dest, src, code) for dest, src, code in kept}
    # symlinks PyInstaller made for libraries (libfoo.so.6 -> libfoo.so.6.12) link by name too
    aliases = {
        Path(dest).name: Path(target).name for dest, target, code in datas if code == "SYMLINK"
    }
    wanted = {dest for dest, _src, code in kept if not _linked_only(dest, code)}
    todo = [src for dest, src, _code in kept if dest in wanted]
    while todo:
        for name in _needed(todo.pop()):
            entry = by_name.get(aliases.get(name, name)) or by_name.get(name)
            if entry is not None and entry[0] not in wanted:
                wanted.add(entry[0])
                todo.append(entry[1])
    out = [b for b in kept if b[0] in wanted]
    gone = {b[0] for b in binaries} - wanted
    kept_datas = [
        d
        for d in datas
        if not _dropped(d[0]) and not (d[2] == "SYMLINK" and (d[0] in gone or _resolve(d) in gone))
    ]
    for dest in sorted(gone):
        why = "from the system" if _host(Path(dest).name) else "left out"
        print(f"trim: {why}: {dest}")
    return out, kept_datas


def _resolve(entry: tuple[str, str, str]) -> str:
    """Where a SYMLINK entry points, as a bundle path."""
    dest, target, _code = entry
    return os.path.normpath(os.path.join(os.path.dirname(dest), target))


def _loads_aligned(path: Path) -> bool:
    """Whether every PT_LOAD of an ELF file starts where its page alignment says it must."""
    out = subprocess.run(["readelf", "-lW", str(path)], capture_output=True, text=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if fields[:1] == ["LOAD"] and len(fields) >= 8:
            offset, vaddr, align = int(fields[1], 16), int(fields[2], 16), int(fields[-1], 16)
            if align and (offset - vaddr) % align:
                return False
    return bool(out)


def _opens(path: Path) -> bool:
    """Whether the dynamic loader opens ``path`` (with what it links) in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", str(path)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def strip(folder: Path) -> int:
    """``strip --strip-unneeded`` the ELF files under ``folder`` that still have a symbol
    table, leaving out wheels' repaired libraries; bytes saved."""
    internal = folder / "_internal"
    repaired = {p.name.removesuffix(".libs").lower() for p in internal.glob("*.libs")}
    repaired |= {"pil"} if "pillow" in repaired else set()
    saved = 0
    for path in sorted(folder.rglob("*.so*")):
        top = path.relative_to(internal).parts[0].lower() if internal in path.parents else ""
        if path.is_symlink() or top.endswith(".libs"):
            continue
        with path.open("rb") as fh:
            if fh.read(4) != b"\x7fELF":
                continue
        sections = subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True)
        if ".symtab" not in sections.stdout:
            continue
        trial = path.with_name(path.name + ".stripped")
        subprocess.run(["strip", "--strip-unneeded", "-o", str(trial), str(path)], check=True)
        # a repaired package's own modules (Pillow's _imaging: 3.5 MB, 0.8 stripped) are kept
        # stripped only where the result still loads
        if (
            _loads_aligned(trial)
            and trial.stat().st_size < path.stat().st_size
            and (top not in repaired or _opens(trial))
        ):
            saved += path.stat().st_size - trial.stat().st_size
            trial.replace(path)
        else:
            trial.unlink()
    print(f"trim: stripping saved {saved / 1024 / 1024:.1f} MB")
    return saved


def dedupe(folder: Path) -> int:
    """Replace identical files in one folder by symlinks to one of them; bytes saved."""
    groups: dict[tuple[Path, int, str], list[Path]] = defaultdict(list)
    for path in folder.rglob("*"):
        if path.is_symlink() or not path.is_file() or path.stat().st_size < 65536:
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        groups[(path.parent, path.stat().st_size, digest)].append(path)
    saved = 0
    for (_parent, size, _digest), paths in groups.items():
        keep, *others = sorted(paths, key=lambda p: (len(p.name), p.name))
        for other in others:
            other.unlink()
            other.symlink_to(keep.name)
            saved += size
            print(f"trim: {other.relative_to(folder)} -> {keep.name}")
    return saved


def report(folder: Path) -> None:
    """Print the bundle's size and its ten largest parts, in MB."""
    sizes: dict[str, int] = defaultdict(int)
    total = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            size = path.stat().st_size
            total += size
            top = path.relative_to(folder).parts
            key = "/".join(top[:2]) if top[0] == "_internal" and len(top) > 2 else top[0]
            sizes[key] += size
    mb = 1024 * 1024  # as du -sm counts
    print(f"trim: bundle {total / mb:.0f} MB")
    for key, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:12]:
        print(f"trim:   {size / mb:6.1f} MB  {key}")
