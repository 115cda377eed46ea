#!/usr/bin/env bash
# Runs a built bundle as a user would, with no Python of ours on the way:
#   smoke-test.sh [dist/parley]
# 1. `parley chat` answers a question on the bundled model (a wrong answer is reported, not
#    fatal: that is the model's quality, not the bundle's);
# 2. `parley diagnostics` reports the bundle;
# 3. `parley --screenshot` renders the window offscreen to a PNG;
# 4. every Qt plugin finds its libraries and symbols (Qt Multimedia's FFmpeg plugin plays
#    media and decodes video thumbnails: a library left out silently disables it);
# 5. the bundle is no larger than the limit written below.
# Prints how long each took; exits non-zero on the first failure.
set -euo pipefail

bundle=${1:-dist/parley}
if [ ! -x "$bundle/parley" ]; then
  echo "smoke-test: no bundle at $bundle (build it with: make package)" >&2
  exit 2
fi
bundle=$(cd "$bundle" && pwd)
exe="$bundle/parley"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Nothing from a development checkout may leak in.
export PARLEY_DATA_DIR="$work/data" PYTHONPATH= PYTHONHOME= QT_QPA_PLATFORM=offscreen
cd "$work"

seconds() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

start=$(seconds)
answer=$("$exe" chat "What is the capital of France?" 2>"$work/chat.err") || {
  cat "$work/chat.err" >&2
  echo "smoke-test: parley chat failed" >&2
  exit 1
}
end=$(seconds)
if [ -z "${answer//[[:space:]]/}" ] || grep -q "Traceback" "$work/chat.err"; then
  cat "$work/chat.err" >&2
  echo "smoke-test: parley chat gave no answer" >&2
  exit 1
fi
if ! grep -qi "paris" <<<"$answer"; then
  # The bundle works; the small model's answer is wrong (a model and prompt matter).
  echo "quality: the bundled model did not answer Paris"
fi
echo "chat: $(elapsed "$start" "$end") s: $(tr '\n' ' ' <<<"$answer")"

"$exe" diagnostics >"$work/diag.txt"
grep -q "(bundle)" "$work/diag.txt" || { cat "$work/diag.txt" >&2; exit 1; }
echo "diagnostics: $(head -1 "$work/diag.txt")"

start=$(seconds)
"$exe" --screenshot "$work/shot.png"
end=$(seconds)
if [ "$(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
  echo "smoke-test: --screenshot did not write a PNG" >&2
  exit 1
fi
echo "screenshot: $(elapsed "$start" "$end") s from start to PNG"
# Qt loads its plugins only when needed: check now that each one would load.
qt="$bundle/_internal/PySide6/Qt"
missing=$(for plugin in "$qt"/plugins/*/*.so; do
  LD_LIBRARY_PATH="$qt/lib:$bundle/_internal" ldd -r "$plugin" 2>&1 \
    | grep -E "not found|undefined symbol" | sed "s|^|${plugin#"$bundle"/}: |" || true
done)
if [ -n "$missing" ]; then
  echo "$missing" >&2
  echo "smoke-test: a Qt plugin misses a library or symbol (see above)" >&2
  exit 1
fi
echo "qt plugins: $(ls "$qt"/plugins/*/*.so | wc -l) load (multimedia: $(ls "$qt"/plugins/multimedia))"
# The size a user downloads: a bundle that grows past this limit fails, so growth is noticed
# (536 MB on 2026-12-01 with two FFmpegs; 342 MB on 2026-12-02 with one; 347 MB on 2026-12-03,
# when newer provider and MCP SDKs brought httpx2 beside httpx; 298 MB on 2026-12-04 with numpy
# built without OpenBLAS and Word read without lxml: see packaging/README.md for what each
# part weighs). CI builds the bundle on every change, so growth past this is seen.
MAX_MB=300
size=$(du -sm "$bundle" | cut -f1)
echo "bundle size: $size MB (limit $MAX_MB MB)"
if [ "$size" -gt "$MAX_MB" ]; then
  echo "smoke-test: the bundle is $size MB, over its limit of $MAX_MB MB; find what grew with" \
    "du -sh $bundle/_internal/* | sort -h" >&2
  exit 1
fi
echo "smoke-test: passed"
