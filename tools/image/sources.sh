#!/usr/bin/env bash
# Fill DEST with the image's pinned sources (tools/image/SOURCES.txt): from the workspace's tarball when it
# exists (machines with no route to the sources' hosts, CI among them), otherwise with git at the pinned commits;
# then apply tools/image/patches/*.patch (each says why). The Makefile runs it again when either changes.
# Usage: tools/image/sources.sh DEST [TARBALL]
set -euo pipefail
dest=${1:?usage: tools/image/sources.sh DEST [TARBALL]}
tarball=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dest"
mkdir -p "$dest"
if [ -n "$tarball" ] && [ -f "$tarball" ]; then
  echo "image sources: unpacking $tarball"
  # the tarball holds one folder, mp-rp2-src/, with micropython/ and picotool/ in it
  tar -xJf "$tarball" -C "$dest" --strip-components=1
else
  command -v git >/dev/null || { echo "image sources: neither $tarball nor git is here" >&2; exit 2; }
  echo "image sources: cloning the pinned commits (tools/image/SOURCES.txt)"
  grep -E '^[a-z]' "$here/SOURCES.txt" | grep -v '=' | while read -r path repo commit; do
    mkdir -p "$dest/$path"
    git -C "$dest/$path" init -q
    git -C "$dest/$path" fetch -q --depth 1 "$repo" "$commit"
    git -C "$dest/$path" checkout -q FETCH_HEAD
  done
fi
[ -f "$dest/micropython/ports/rp2/CMakeLists.txt" ] || { echo "image sources: $dest has no MicroPython rp2 port" >&2; exit 2; }
for p in "$here"/patches/*.patch; do
  [ -f "$p" ] || continue
  echo "image sources: applying $(basename "$p")"
  patch -s -p1 -d "$dest" < "$p"
done
touch "$dest/.ready"
