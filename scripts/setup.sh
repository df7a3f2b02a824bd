#!/usr/bin/env bash
# Installs what gfxpatch needs to build and test on Debian 12: LLVM 19 (library for inkwell,
# llvm-objdump/llvm-mc/llvm-readelf as test oracles), clang-19 and lld-19 (fixture rebuilds),
# clang-tools-19 (clang-offload-bundler, the oracle for offload bundles); LLVM 22 (llvm-22, from
# bookworm-security: llvm-objdump-22/llvm-mc-22, the oracle for the processors LLVM 19 does not
# know, gfx950, gfx9-4-generic and gfx1153, in tests/retarget.rs); for the checks of grown
# host libraries (tests/host_growth.rs): elfutils (eu-elflint), binutils (strip), python3 (ctypes
# loads the output) and Debian's HIP runtime libamdhip64-5 (what the host fixtures link against).
# Idempotent: installs only what is missing, runs `apt-get update` only when it must install.
set -euo pipefail

packages=(llvm-19-dev llvm-19 clang-19 clang-tools-19 lld-19 llvm-22 libzstd-dev zlib1g-dev
          elfutils binutils python3 libamdhip64-5)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

for tool in llvm-objdump-19 llvm-mc-19 llvm-readelf-19 llvm-dwarfdump-19 clang-19 ld.lld-19 clang-offload-bundler-19 \
        llvm-objdump-22 llvm-mc-22 eu-elflint strip /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "setup: $tool missing after install" >&2; exit 1; }
done
command -v cargo >/dev/null || { echo "setup: cargo not found; install Rust 1.95 (rustup)" >&2; exit 1; }
