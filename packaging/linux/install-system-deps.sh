#!/usr/bin/env bash
# Installs the Debian packages Parley needs (Qt's system libraries, a compiler toolchain for
# llama.cpp) where they are missing; with --test, also what the tests need. Safe to run again:
# it installs only what is absent.
set -euo pipefail

packages=(
  libegl1 libgl1 libx11-6 libdbus-1-3 libfontconfig1 libfreetype6 libglib2.0-0 libxkbcommon0
  fonts-dejavu-core libpulse0 libxrandr2 libxcb-cursor0 libxcb-icccm4 libxcb-image0
  libxcb-keysyms1 libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0
  gcc g++ cmake ninja-build
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-system-deps: not a Debian-based system; install Qt's libraries and a C/C++" \
       "toolchain (gcc, cmake) with your package manager." >&2
  exit 0
fi

# --test: also what the test suite needs (a real Secret Service for the keyring tests, the
# validators for the .desktop file and the AppStream metainfo, and espeak-ng, a second voice
# whose sentences the speech tests transcribe)
if [ "${1:-}" = "--test" ]; then
  packages+=(gnome-keyring dbus desktop-file-utils appstream espeak-ng)
fi

# the venv module: Debian's own Python needs python3-venv (other builds bring it along)
if ! "${PYTHON:-python3}" -c "import ensurepip, venv" >/dev/null 2>&1; then
  packages+=(python3-venv python3-dev)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-system-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-system-deps: missing ${missing[*]}; run as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
