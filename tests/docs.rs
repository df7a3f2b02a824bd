//! The library's documentation builds without a warning: `cargo doc --no-deps` with rustdoc's
//! warnings (broken intra-doc links, bad code blocks, private items linked from public docs)
//! denied. The crate docs' runnable example is a doctest, so `cargo test` runs it too.
//!
//! It documents into its own target directory (`target/doc-check`): the outer `cargo test` may
//! still hold the lock of the usual one. The first run checks every dependency once (about two
//! minutes on two cores); later runs take seconds.

mod common;

use std::process::Command;

#[test]
fn cargo_doc_has_no_warnings() {
    let repo = common::repo();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(&cargo)
        .args(["doc", "--no-deps", "--lib", "--target-dir"])
        .arg(repo.join("target/doc-check"))
        .env("RUSTDOCFLAGS", "-D warnings")
        .current_dir(&repo)
        .output()
        .unwrap_or_else(|e| panic!("{cargo} doc: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo doc --no-deps failed (warnings are denied):\n{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning")).collect();
    assert!(warnings.is_empty(), "cargo doc --no-deps warned:\n{stderr}");
}
