#!/usr/bin/env sh
# Installs mmdocsum's desktop integration for the current user (XDG, no root): the desktop entry, the
# application icon in every size, the AppStream metainfo and the MIME types for JATS (*.nxml) and
# project (*.mdsproj) files, under ${XDG_DATA_HOME:-~/.local/share}.
#
#   packaging/linux/install.sh                     the commands come from pip/pipx (already on PATH)
#   packaging/linux/install.sh --bundle DIR        also link DIR/mmdocsum and DIR/mmdocsum-desktop of a
#                                                  PyInstaller bundle into ~/.local/bin
#   packaging/linux/install.sh --uninstall         remove what this script installed
set -eu

APP_ID=io.github.mmdocsum.Desktop
HERE=$(cd "$(dirname "$0")" && pwd)
ICONS="$HERE/../../mmdocsum_desktop/resources/icons/hicolor"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
BIN="$HOME/.local/bin"
COMMANDS="mmdocsum mmdocsum-desktop"

refresh_caches() {
    # each tool is optional: a desktop without it reads the files directly
    if command -v update-mime-database >/dev/null 2>&1; then update-mime-database "$DATA/mime"; fi
    if command -v update-desktop-database >/dev/null 2>&1; then update-desktop-database "$DATA/applications"; fi
    # refresh an icon cache that is there, but never start one: a user-level cache that nothing else
    # updates would hide the icons other programs install later
    if [ -f "$DATA/icons/hicolor/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache --quiet --ignore-theme-index "$DATA/icons/hicolor" || true
    fi
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$DATA/applications/$APP_ID.desktop" "$DATA/metainfo/$APP_ID.metainfo.xml" \
          "$DATA/mime/packages/$APP_ID.xml"
    find "$DATA/icons/hicolor" -path "*/apps/$APP_ID.*" -delete 2>/dev/null || true
    for command in $COMMANDS; do
        # only links this script made (into a bundle), never a pip-installed command
        if [ -L "$BIN/$command" ]; then rm -f "$BIN/$command"; fi
    done
    mkdir -p "$DATA/mime" "$DATA/applications"
    refresh_caches
    exit 0
fi

if [ "${1:-}" = "--bundle" ]; then
    bundle=$(cd "${2:?--bundle needs the bundle folder (dist/mmdocsum)}" && pwd)
    mkdir -p "$BIN"
    for command in $COMMANDS; do
        test -x "$bundle/$command" || { echo "install.sh: $bundle/$command is not an executable" >&2; exit 1; }
        ln -sf "$bundle/$command" "$BIN/$command"
    done
fi

install -D -m 644 "$HERE/$APP_ID.desktop" "$DATA/applications/$APP_ID.desktop"
install -D -m 644 "$HERE/$APP_ID.metainfo.xml" "$DATA/metainfo/$APP_ID.metainfo.xml"
install -D -m 644 "$HERE/$APP_ID.mime.xml" "$DATA/mime/packages/$APP_ID.xml"
for icon in "$ICONS"/*/apps/"$APP_ID".*; do
    size_dir=$(basename "$(dirname "$(dirname "$icon")")")
    install -D -m 644 "$icon" "$DATA/icons/hicolor/$size_dir/apps/$(basename "$icon")"
done
refresh_caches
echo "installed $APP_ID into $DATA"
