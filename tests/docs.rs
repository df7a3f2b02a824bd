//! The library's documentation builds without a warning: rustdoc over `src/lib.rs` with its
//! warnings (broken intra-doc links, bad code blocks, private items linked from public docs)
//! denied. The crate docs' runnable example is a doctest, so `cargo test` runs it too.
//!
//! Why not `cargo doc`: it documents against *check* builds of every dependency, units of its
//! own that no build shares, so on a fresh clone it spent about two minutes of CI's two cores
//! checking dependencies that `cargo test` had just compiled. Here rustdoc is handed the
//! metadata of the dependencies `cargo test` built: `cargo test --no-run --test docs
//! --message-format=json` (this very test's build, so every unit is fresh: the test asserts it,
//! it must never compile) names each artifact,
//! and `cargo metadata` says which of them are the library's direct dependencies and under
//! which names. The flags are what `cargo doc` passes for a library: crate name, edition, the
//! `--extern`s and the dependency search path.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// `cargo` with `args` in the repository, its stdout as JSON lines; fails the test on error.
fn cargo_json(args: &[&str]) -> Vec<serde_json::Value> {
    let out = Command::new(cargo())
        .args(args)
        .current_dir(common::repo())
        .output()
        .unwrap_or_else(|e| panic!("cargo {args:?}: {e}"));
    assert!(out.status.success(), "cargo {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("cargo {args:?}: {e}: {l}")))
        .collect()
}

/// The host's target triple, from `rustc -vV`.
fn host_triple() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let out = Command::new(&rustc).arg("-vV").output().unwrap_or_else(|e| panic!("{rustc} -vV: {e}"));
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| l.strip_prefix("host: ")).expect("rustc -vV names the host").to_owned()
}

/// The library's direct normal dependencies: (name in Rust, package id). For the host only:
/// metadata for every platform needs packages only other platforms use (`anstyle-wincon`),
/// which `cargo test` on a fresh machine never downloaded, and `--offline` cannot fetch.
fn direct_dependencies() -> Vec<(String, String)> {
    let host = host_triple();
    let meta = cargo_json(&["metadata", "--format-version", "1", "--offline", "--filter-platform", &host]).remove(0);
    let root = meta["resolve"]["root"].as_str().expect("a root package").to_owned();
    let node = meta["resolve"]["nodes"].as_array().unwrap().iter().find(|n| n["id"] == root.as_str()).unwrap();
    node["deps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"].is_null()))
        .map(|d| (d["name"].as_str().unwrap().to_owned(), d["pkg"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn rustdoc_has_no_warnings() {
    let repo = common::repo();
    // Library artifacts by package id: the `.rmeta` (or `.rlib`) rustdoc reads.
    let mut libraries: HashMap<String, PathBuf> = HashMap::new();
    let mut deps_dir = None;
    for message in cargo_json(&["test", "--no-run", "--offline", "--test", "docs", "--message-format=json"]) {
        if message["reason"] != "compiler-artifact" {
            continue;
        }
        assert_eq!(message["fresh"], true, "`cargo test --no-run --test docs` rebuilt a unit this test was built from: {message}");
        if !message["target"]["kind"].as_array().unwrap().iter().any(|k| k == "lib" || k == "rlib" || k == "proc-macro") {
            continue;
        }
        let files: Vec<PathBuf> = message["filenames"].as_array().unwrap().iter().map(|f| PathBuf::from(f.as_str().unwrap())).collect();
        let Some(file) = files.iter().find(|f| f.extension().is_some_and(|e| e == "rmeta")).or(files.first()) else { continue };
        deps_dir.get_or_insert_with(|| file.parent().unwrap().to_owned());
        libraries.insert(message["package_id"].as_str().unwrap().to_owned(), file.clone());
    }
    let deps_dir = deps_dir.expect("cargo named no library artifact");
    let out_dir = tempfile::tempdir().unwrap();
    let rustdoc = std::env::var("RUSTDOC").unwrap_or_else(|_| "rustdoc".to_owned());
    let mut command = Command::new(&rustdoc);
    command
        .args(["--edition", "2024", "--crate-type", "lib", "--crate-name", "gfxpatch", "src/lib.rs", "-D", "warnings", "-o"])
        .arg(out_dir.path())
        .arg("-L")
        .arg(format!("dependency={}", deps_dir.display()));
    for (name, package) in direct_dependencies() {
        let file = libraries.get(&package).unwrap_or_else(|| panic!("no artifact of {package} (dependency `{name}`)"));
        command.arg("--extern").arg(format!("{name}={}", file.display()));
    }
    let out = command.current_dir(&repo).output().unwrap_or_else(|e| panic!("{rustdoc}: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "rustdoc failed (warnings are denied):\n{stderr}");
    assert!(!stderr.contains("warning"), "rustdoc warned:\n{stderr}");
    assert!(out_dir.path().join("gfxpatch/index.html").exists(), "rustdoc wrote no gfxpatch/index.html");
}

/// The check above sees what `cargo doc` sees: a broken intra-doc link fails it.
#[test]
fn a_broken_intra_doc_link_fails_rustdoc() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib.rs");
    std::fs::write(&lib, "//! See [`NoSuchItem`].\n").unwrap();
    let rustdoc = std::env::var("RUSTDOC").unwrap_or_else(|_| "rustdoc".to_owned());
    let out = Command::new(&rustdoc)
        .args(["--edition", "2024", "--crate-type", "lib", "--crate-name", "probe", "-D", "warnings", "-o"])
        .arg(dir.path().join("doc"))
        .arg(&lib)
        .output()
        .unwrap_or_else(|e| panic!("{rustdoc}: {e}"));
    assert!(!out.status.success(), "rustdoc accepted a broken intra-doc link");
    assert!(String::from_utf8_lossy(&out.stderr).contains("NoSuchItem"));
}
