//! Helpers shared by the integration tests: fixture discovery, running gfxpatch and LLVM's tools.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `fixtures/<dir>` with the given extension, sorted.
pub fn fixture_files(dir: &str, extension: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, extension: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, extension, out);
            } else if path.extension().is_some_and(|e| e == extension) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo().join("fixtures").join(dir), extension, &mut out);
    out.sort();
    assert!(!out.is_empty(), "no fixtures/{dir}/**/*.{extension}: run fixtures/build.sh");
    out
}

/// Every bundled code object (`fixtures/co/<target>/*.co`).
pub fn code_object_fixtures() -> Vec<PathBuf> {
    fixture_files("co", "co")
}

/// Runs the gfxpatch binary built for this test run.
pub fn gfxpatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gfxpatch")).args(args).output().expect("cannot run gfxpatch")
}

/// Runs an LLVM 19 tool. A missing tool fails the test: the oracle is not optional.
pub fn llvm_tool(tool: &str, args: &[&str]) -> String {
    let output = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} is required for the differential tests (scripts/setup.sh installs it): {e}"));
    assert!(output.status.success(), "{tool} {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("LLVM tool output is not UTF-8")
}

/// `gfxpatch info --json FILE`, parsed.
pub fn info_json(file: &Path) -> serde_json::Value {
    let output = gfxpatch(&["info", "--json", file.to_str().unwrap()]);
    assert!(output.status.success(), "gfxpatch info {} failed: {}", file.display(), String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("gfxpatch info --json printed invalid JSON")
}

/// A corpus library under `.corpus/root` (scripts/fetch-corpus.sh); panics with how to get it.
pub fn corpus_file(name: &str) -> PathBuf {
    let path = repo().join(".corpus/root/usr/lib/x86_64-linux-gnu").join(name);
    assert!(path.exists(), "{} missing: run scripts/fetch-corpus.sh", path.display());
    path
}

/// SplitMix64: a small deterministic generator, so a random sample is the same every run and a
/// failure reproduces from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Appends `n` random bytes to `out`.
    pub fn fill(&mut self, out: &mut Vec<u8>, n: usize) {
        out.extend((0..n).map(|_| self.next() as u8));
    }
}

/// The records `target`'s decoder tries: its LLVM version, the tables of its plan, the
/// predicates the decoder checks holding (as the decoder's own candidate filter).
pub fn decoder_candidates(target: &gfxpatch::isa::Target) -> Vec<&'static gfxpatch::isa::table::Encoding> {
    use gfxpatch::isa::predicates::{self, PredContext};
    use gfxpatch::isa::table::{encodings, flag};
    let ctx = PredContext {
        processor: target.processor,
        wave64: target.wave64,
        real_true16: target.real_true16,
    };
    let attempts = gfxpatch::isa::decode::plan(target);
    encodings()
        .iter()
        .filter(|e| e.llvm == target.llvm_version() && !e.flags.has(flag::ISASMPARSERONLY))
        .filter(|e| attempts.iter().any(|a| a.namespace == e.ns && a.bits == e.bits))
        .filter(|e| e.preds.iter().all(|&p| !predicates::checked_by_decoder(p) || predicates::holds(p, &ctx)))
        .collect()
}

/// Every instruction bit some operand field of `e` covers.
pub fn field_bits(e: &gfxpatch::isa::table::Encoding) -> u128 {
    e.fields.iter().fold(0u128, |m, bits| bits.iter().fold(m, |m, &(lo, hi, _)| m | (((1u128 << (hi - lo + 1)) - 1) << lo)))
}

/// The names of `e`'s operand fields in which the encoded bits `a` and `b` differ.
pub fn differing_fields(e: &gfxpatch::isa::table::Encoding, a: u128, b: u128) -> Vec<&'static str> {
    let diff = a ^ b;
    e.operands
        .iter()
        .zip(e.fields)
        .filter(|(_, bits)| bits.iter().any(|&(lo, hi, _)| diff >> lo & ((1u128 << (hi - lo + 1)) - 1) != 0))
        .map(|(o, _)| o.name.name())
        .collect()
}

/// Compares `text` with the golden file `tests/golden/NAME`, or rewrites the file when
/// `GFXPATCH_BLESS=1`. A difference fails with `diff -u` against what this run produced
/// (written beside the golden file's name in a temporary directory).
pub fn golden(name: &str, what: &str, text: &str) {
    let path = repo().join("tests/golden").join(name);
    if std::env::var("GFXPATCH_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if want != text {
        let dir = tempfile::tempdir().unwrap();
        let got = dir.path().join(name);
        std::fs::write(&got, text).unwrap();
        let diff = Command::new("diff").args(["-u", path.to_str().unwrap(), got.to_str().unwrap()]).output().unwrap();
        panic!(
            "{what} differ from the golden file (GFXPATCH_BLESS=1 after a reviewed change):\n{}",
            String::from_utf8_lossy(&diff.stdout)
        );
    }
}
