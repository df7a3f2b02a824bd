#!/usr/bin/env bash
# Fetches the real-world corpus: Debian 12's librocsparse0 and librocrand1, host libraries whose
# .hip_fatbin sections hold 111 and 1 offload bundles (gfx803, gfx900, gfx906, gfx908,
# gfx90a:xnack-, gfx90a:xnack+, gfx1030). Code nobody here wrote, compiled by AMD's ROCm 5.3.
# Unpacks into .corpus/ (git-ignored); idempotent. Tests that use it run with GFXPATCH_CORPUS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.corpus
mkdir -p "$dest/debs"
libs=(usr/lib/x86_64-linux-gnu/librocsparse.so.0.1 usr/lib/x86_64-linux-gnu/librocrand.so.1.1)
have_all=1
for lib in "${libs[@]}"; do [ -s "$dest/root/$lib" ] || have_all=0; done
if [ "$have_all" = 0 ]; then
    (cd "$dest/debs" && apt-get download librocsparse0 librocrand1)
    for deb in "$dest"/debs/*.deb; do dpkg-deb -x "$deb" "$dest/root"; done
fi
for lib in "${libs[@]}"; do ls -l "$dest/root/$lib"; done
