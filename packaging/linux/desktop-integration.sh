#!/usr/bin/env bash
# Adds Parley to the current user's desktop menu, or takes it out again:
#   desktop-integration.sh install [--exec COMMAND]   (default COMMAND: parley)
#   desktop-integration.sh uninstall
# Files go under ${XDG_DATA_HOME:-~/.local/share}: applications/, icons/hicolor/, metainfo/.
# Uninstall removes exactly those files and nothing else.
set -euo pipefail

app_id=io.github.parley.Parley
resources=$(cd "$(dirname "$0")/../../resources" && pwd)
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
sizes=(16 22 24 32 48 64 128 256 512)

targets() {
  echo "$data_home/applications/$app_id.desktop"
  echo "$data_home/metainfo/$app_id.metainfo.xml"
  echo "$data_home/icons/hicolor/scalable/apps/$app_id.svg"
  for size in "${sizes[@]}"; do
    echo "$data_home/icons/hicolor/${size}x${size}/apps/$app_id.png"
  done
}

refresh_caches() {
  # Best effort: menus pick the files up without these too, only later.
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$data_home/applications" 2>/dev/null || true
  fi
  if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$data_home/icons/hicolor/index.theme" ]; then
    gtk-update-icon-cache -q -t "$data_home/icons/hicolor" 2>/dev/null || true
  fi
}

install_files() {
  local try_exec=$1 exec_cmd=$1
  case "$exec_cmd" in
    *[[:space:]]*) exec_cmd="\"$exec_cmd\"" ;;
  esac
  install -d "$data_home/applications" "$data_home/metainfo" "$data_home/icons/hicolor/scalable/apps"
  sed -e "s|^Exec=.*|Exec=$exec_cmd|" -e "s|^TryExec=.*|TryExec=$try_exec|" \
    "$resources/$app_id.desktop" >"$data_home/applications/$app_id.desktop"
  chmod 644 "$data_home/applications/$app_id.desktop"
  install -m 644 "$resources/$app_id.metainfo.xml" "$data_home/metainfo/$app_id.metainfo.xml"
  install -m 644 "$resources/icons/$app_id.svg" "$data_home/icons/hicolor/scalable/apps/$app_id.svg"
  for size in "${sizes[@]}"; do
    install -D -m 644 "$resources/icons/hicolor/${size}x${size}/apps/$app_id.png" \
      "$data_home/icons/hicolor/${size}x${size}/apps/$app_id.png"
  done
  refresh_caches
  echo "Parley is in your applications menu (files under $data_home)."
}

uninstall_files() {
  local removed=0
  while IFS= read -r path; do
    if [ -e "$path" ]; then
      rm -f -- "$path"
      removed=$((removed + 1))
    fi
  done < <(targets)
  refresh_caches
  echo "Removed $removed Parley desktop files from $data_home."
}

usage() {
  echo "usage: $0 install [--exec COMMAND] | uninstall" >&2
  exit 2
}

case "${1:-}" in
  install)
    exec_cmd=parley
    if [ "${2:-}" = "--exec" ]; then
      [ -n "${3:-}" ] || usage
      exec_cmd=$3
    elif [ -n "${2:-}" ]; then
      usage
    fi
    install_files "$exec_cmd"
    ;;
  uninstall)
    [ -z "${2:-}" ] || usage
    uninstall_files
    ;;
  *) usage ;;
esac
