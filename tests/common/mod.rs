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
    assert!(
        !out.is_empty(),
        "no fixtures/{dir}/**/*.{extension}: run fixtures/build.sh"
    );
    out
}

/// Every bundled code object (`fixtures/co/<target>/*.co`).
pub fn code_object_fixtures() -> Vec<PathBuf> {
    fixture_files("co", "co")
}

/// Runs the gfxpatch binary built for this test run.
pub fn gfxpatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gfxpatch"))
        .args(args)
        .output()
        .expect("cannot run gfxpatch")
}

/// Runs an LLVM 19 tool. A missing tool fails the test: the oracle is not optional.
pub fn llvm_tool(tool: &str, args: &[&str]) -> String {
    let output = Command::new(tool).args(args).output().unwrap_or_else(|e| {
        panic!("{tool} is required for the differential tests (scripts/setup.sh installs it): {e}")
    });
    assert!(
        output.status.success(),
        "{tool} {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("LLVM tool output is not UTF-8")
}

/// `gfxpatch info --json FILE`, parsed.
pub fn info_json(file: &Path) -> serde_json::Value {
    let output = gfxpatch(&["info", "--json", file.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "gfxpatch info {} failed: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("gfxpatch info --json printed invalid JSON")
}

/// A corpus library under `.corpus/root` (scripts/fetch-corpus.sh); panics with how to get it.
pub fn corpus_file(name: &str) -> PathBuf {
    let path = repo()
        .join(".corpus/root/usr/lib/x86_64-linux-gnu")
        .join(name);
    assert!(
        path.exists(),
        "{} missing: run scripts/fetch-corpus.sh",
        path.display()
    );
    path
}
