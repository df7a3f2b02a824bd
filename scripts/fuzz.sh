#!/usr/bin/env bash
# Runs a cargo-fuzz target of fuzz/ for a fixed number of executions, on stable Rust.
#
#   scripts/fuzz.sh decode_never_panics RUNS [NAME... | all | generations]
#   scripts/fuzz.sh container_parse_never_panics RUNS
#
# decode_never_panics with NAMEs (rows of TARGETS in tests/robustness/mod.rs, e.g. gfx900,
# gfx1100-w64-t16; `all` for every row, one after another) runs RUNS executions per target,
# pinned with GFXPATCH_FUZZ_TARGET, each on its own corpus fuzz/corpus/decode_never_panics/NAME.
# Without NAMEs it runs RUNS executions in total, the first input byte choosing the target,
# writing to fuzz/corpus/decode_never_panics/mixed and reading every per-target corpus as seeds.
#
# Corpora are seeded from the fixtures: for decode, each fixture code object's .text (cut in
# pieces under the input size limit) behind the target's selector byte, plus the instruction
# bytes of LLVM's MC test vectors (tests/data) for that processor; for container parsing, the
# files under fixtures/co, fixtures/bundle and fixtures/host.
#
# Environment: FUZZ_MAX_LEN (input size limit for decode, default 64 bytes: up to 15
# instructions; longer inputs cost throughput, not coverage of single decodes), FUZZ_SANITIZER
# (default none: the decode path's few unsafe blocks (zeroed memos, the sweep's note vector,
# the printer's digit writes) are small and argued in SAFETY comments; `address` checks them
# but needs RUSTC_BOOTSTRAP=1 on stable),
# FUZZ_ARGS (more libFuzzer flags). A crash stops the run; its input is in fuzz/artifacts/<target>/.
# Logs go to fuzz/artifacts/logs/, and a summary line per run is printed at the end.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
target=${1:?usage: scripts/fuzz.sh TARGET RUNS [NAME... | all]}
runs=${2:?usage: scripts/fuzz.sh TARGET RUNS [NAME... | all]}
shift 2
max_len=${FUZZ_MAX_LEN:-64}
sanitizer=${FUZZ_SANITIZER:-none}

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz

# Selector names in table order, read from the one table both the fuzz target and the test use.
# (rustfmt splits long rows over several lines: join them first.)
mapfile -t names < <(tr -d '\n' <tests/robustness/mod.rs | grep -o '( *"[^"]*", *"[^"]*", *"[^"]*",\? *)' |
    sed 's/^( *"\([^"]*\)", *"\([^"]*\)".*/\1 \2/')
[ ${#names[@]} -gt 0 ] || { echo "no TARGETS rows in tests/robustness/mod.rs" >&2; exit 1; }

selector_of() { # NAME -> "INDEX PROCESSOR"
    local i
    for i in "${!names[@]}"; do
        set -- ${names[$i]}
        if [ "$1" = "$NAME" ]; then echo "$i $2"; return; fi
    done
    echo "unknown target $NAME; known: $(for n in "${names[@]}"; do set -- $n; printf '%s ' "$1"; done)" >&2
    return 1
}

# Writes .text of each fixture of PROCESSOR (or of a stand-in where no fixture exists) and
# LLVM's vectors for it, in pieces of at most max_len-1 bytes behind selector byte INDEX.
seed_decode() { # DIR INDEX PROCESSOR
    local dir=$1 index=$2 cpu=$3 fixtures co tmp
    mkdir -p "$dir"
    [ -n "$(ls -A "$dir")" ] && return 0
    fixtures=$cpu
    case $cpu in gfx950) fixtures=gfx942 ;; gfx1250) fixtures=gfx1200 ;; esac
    tmp=$(mktemp -d)
    for co in fixtures/co/"$fixtures"/*.co; do
        llvm-objcopy-19 --dump-section .text="$tmp/$(basename "$co").text" "$co" /dev/null 2>/dev/null || true
    done
    python3 - "$tmp" "$dir" "$index" "$cpu" "$max_len" <<'PY'
import glob, gzip, json, os, sys
tmp, out, index, cpu, max_len = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
piece = (max_len - 1) // 4 * 4
streams = []
for path in sorted(glob.glob(os.path.join(tmp, "*.text"))):
    streams.append((os.path.basename(path), open(path, "rb").read()))
# LLVM's tests also name gfx8 chips by their code names.
cpus = {cpu} | ({"tonga", "fiji", "gfx801", "gfx802"} if cpu == "gfx803" else set())
vectors = bytearray()
for path in sorted(glob.glob("tests/data/vectors-*.jsonl.gz")):
    with gzip.open(path, "rt") as f:
        for line in f:
            v = json.loads(line)
            if any(c.get("cpu") in cpus for c in v["configs"]):
                vectors += bytes.fromhex(v["bytes"].replace(" ", "").replace("0x", "").replace(",", ""))
streams.append(("vectors", bytes(vectors)))
count = 0
for name, data in streams:
    for i in range(0, len(data), piece):
        with open(os.path.join(out, f"{name}.{i // piece:05}"), "wb") as f:
            f.write(bytes([index]) + data[i:i + piece])
        count += 1
print(f"seeded {out}: {count} inputs", file=sys.stderr)
PY
    rm -rf "$tmp"
}

seed_container() { # DIR
    local dir=$1 f
    mkdir -p "$dir"
    [ -n "$(ls -A "$dir")" ] && return 0
    for f in fixtures/co/*/*.co fixtures/bundle/* fixtures/host/*; do
        cp "$f" "$dir/$(echo "$f" | tr / _)"
    done
    echo "seeded $dir: $(ls "$dir" | wc -l) inputs" >&2
}

mkdir -p fuzz/artifacts/logs
summary=()
run() { # LABEL ENV CORPUS... (ENV: one VAR=value or empty; new inputs go to the first CORPUS)
    local label=$1 envset=$2 log start end rc dirs=()
    shift 2
    for d in "$@"; do dirs+=("$root/$d"); done
    log=fuzz/artifacts/logs/$target.$label.log
    start=$(date +%s)
    rc=0
    (cd fuzz && env $envset cargo fuzz run -s "$sanitizer" "$target" "${dirs[@]}" -- \
        -runs="$runs" -max_len="$max_len" -print_final_stats=1 ${FUZZ_ARGS:-}) >"$log" 2>&1 || rc=$?
    end=$(date +%s)
    local done_line
    done_line=$(grep -E '^Done [0-9]+ runs' "$log" | tail -1 || true)
    summary+=("$target $label: rc=$rc ${done_line:-no Done line} (wall $((end - start)) s; log $log)")
    echo "${summary[-1]}"
    if [ $rc -ne 0 ]; then
        tail -40 "$log" >&2
        return $rc
    fi
}

# Build once up front so per-target wall times are fuzzing only.
(cd fuzz && cargo fuzz build -s "$sanitizer" "$target")

case $target in
decode_never_panics)
    if [ $# -eq 0 ]; then
        # New inputs go to .../mixed; every target's seeded corpus is read as seeds too.
        seeds=()
        for i in "${!names[@]}"; do
            set -- ${names[$i]}
            seed_decode "fuzz/corpus/decode_never_panics/$1" "$i" "$2"
            seeds+=("fuzz/corpus/decode_never_panics/$1")
        done
        mkdir -p fuzz/corpus/decode_never_panics/mixed
        run mixed "" fuzz/corpus/decode_never_panics/mixed "${seeds[@]}"
    else
        if [ "$1" = generations ]; then
            # One target per generation: GFX8 GFX9 GFX90A GFX940 GFX950 GFX10.1 GFX10.3 GFX11 GFX11.5 GFX12 GFX1250.
            set -- gfx803 gfx900 gfx90a gfx942 gfx950 gfx1010-w64 gfx1030-w32 gfx1100-w32 gfx1151-w64 gfx1200-w32 gfx1250-w64
        fi
        if [ "$1" = all ]; then
            set -- $(for n in "${names[@]}"; do set -- $n; echo "$1"; done)
        fi
        for NAME in "$@"; do
            read -r index cpu < <(selector_of)
            corpus=fuzz/corpus/decode_never_panics/$NAME
            seed_decode "$corpus" "$index" "$cpu"
            run "$NAME" GFXPATCH_FUZZ_TARGET="$NAME" "$corpus"
        done
    fi
    ;;
container_parse_never_panics)
    corpus=fuzz/corpus/container_parse_never_panics
    seed_container "$corpus"
    # Fixture files are up to ~60 KiB: let inputs be as large as the largest seed.
    max_len=${FUZZ_MAX_LEN:-65536}
    run all "" "$corpus"
    ;;
*)
    echo "unknown fuzz target $target (decode_never_panics, container_parse_never_panics)" >&2
    exit 1
    ;;
esac

printf '%s\n' "${summary[@]}"
