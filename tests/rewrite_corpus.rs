//! The rewrite engine on the real-world corpus (`GFXPATCH_CORPUS=1`, after
//! scripts/fetch-corpus.sh; run with `--release`), all 784 code objects of librocsparse and
//! librocrand:
//! * the identity rewrite of both host libraries is byte-identical (so is every object in it);
//! * `insert-nops` rewrites every code object with its DWARF remapped (never stripped), and the
//!   output passes `gfxpatch verify` (`verify::structure`, plus the in-process comparison with
//!   the input that `rewrite_object` runs);
//! * on every output (or every `GFXPATCH_CORPUS_EVERY`th object of librocsparse, and all of
//!   librocrand, to save time) LLVM's tools agree: `llvm-objdump-19 -d` decodes with
//!   nothing on stderr and no `<unknown>`, `llvm-readelf-19 -a` prints nothing on stderr,
//!   `llvm-dwarfdump-19 --verify` finds no errors;
//! * `insert-nops,remove-nops` gives every object back byte for byte.

mod common;

use std::process::Command;

use gfxpatch::container::bundle::DecompressLimits;
use gfxpatch::container::input::Input;
use gfxpatch::rewrite::{rewrite_object, verify, Options};
use rayon::prelude::*;

const LIBRARIES: [&str; 2] = ["librocrand.so.1.1", "librocsparse.so.0.1"];

#[test]
#[cfg_attr(not(gfxpatch_corpus), ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1")]
fn identity_rewrite_of_the_corpus_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    for lib in LIBRARIES {
        let input = common::corpus_file(lib);
        let out = dir.path().join(lib);
        let o = common::gfxpatch(&["rewrite", input.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{lib}: {}", String::from_utf8_lossy(&o.stderr));
        let cmp = Command::new("cmp").arg(&input).arg(&out).output().unwrap();
        assert!(cmp.status.success(), "{lib}: identity rewrite differs: {}", String::from_utf8_lossy(&cmp.stdout));
    }
}

/// Runs an LLVM tool on `file`; returns (stdout, stderr), failing on a non-zero exit.
fn tool(name: &str, args: &[&str], file: &std::path::Path) -> (String, String) {
    let o = Command::new(name).args(args).arg(file).output().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(o.status.success(), "{name} {args:?} {}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// LLVM's tools on one rewritten object (`input` is the original, for what it already had).
fn llvm_accepts(input: &[u8], output: &[u8], cpu: &str, what: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.co"), dir.path().join("new.co"));
    std::fs::write(&old, input).unwrap();
    std::fs::write(&new, output).unwrap();
    let mcpu = format!("--mcpu={cpu}");
    let (dis, err) = tool("llvm-objdump-19", &["-d", &mcpu], &new);
    if !err.is_empty() {
        return Err(format!("{what}: llvm-objdump-19 -d: {err}"));
    }
    let unknown = dis.matches("<unknown>").count();
    if unknown > 0 {
        let (before, _) = tool("llvm-objdump-19", &["-d", &mcpu], &old);
        if unknown != before.matches("<unknown>").count() {
            return Err(format!("{what}: llvm-objdump-19 finds {unknown} <unknown> words"));
        }
    }
    let (_, err) = tool("llvm-readelf-19", &["-a"], &new);
    if !err.is_empty() {
        return Err(format!("{what}: llvm-readelf-19 -a: {err}"));
    }
    if input.windows(11).any(|w| w == b".debug_info") {
        let (out, err) = tool("llvm-dwarfdump-19", &["--verify"], &new);
        if !out.contains("No errors.") {
            return Err(format!("{what}: llvm-dwarfdump-19 --verify: {}{err}", out.lines().rev().take(5).collect::<Vec<_>>().join(" | ")));
        }
    }
    Ok(())
}

#[test]
#[cfg_attr(not(gfxpatch_corpus), ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1")]
fn insert_nops_rewrites_every_corpus_code_object_and_llvm_accepts_each_output() {
    let every: usize = std::env::var("GFXPATCH_CORPUS_EVERY").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(1);
    let nops = Options { passes: vec![gfxpatch::pass::find("insert-nops").unwrap()], print_after: None, strip_debug_on_failure: false };
    let round = Options {
        passes: vec![gfxpatch::pass::find("insert-nops").unwrap(), gfxpatch::pass::find("remove-nops").unwrap()],
        print_after: None,
        strip_debug_on_failure: false,
    };
    let (mut total, mut checked_by_llvm, mut with_dwarf) = (0, 0, 0);
    for lib in LIBRARIES {
        let data = std::fs::read(common::corpus_file(lib)).unwrap();
        let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
        let step = if lib.starts_with("librocrand") { 1 } else { every };
        let results: Vec<(bool, bool, Result<(), String>)> = input
            .objects
            .par_iter()
            .enumerate()
            .map(|(i, o)| -> Result<(bool, bool, Result<(), String>), String> {
                let what = format!("{lib}: {}", o.describe(i));
                // rewrite_object verifies its output against the input (an Err is a failure).
                let out = rewrite_object(&o.bytes, &nops).map_err(|e| format!("{what}: {e:#}"))?;
                if let Some(r) = out.refused {
                    return Err(format!("{what}: refused: {r}"));
                }
                if !out.notes.is_empty() {
                    return Err(format!("{what}: notes {:?}", out.notes));
                }
                let bytes = out.bytes.ok_or_else(|| format!("{what}: insert-nops changed nothing"))?;
                if out.instructions_after <= out.instructions_before {
                    return Err(format!("{what}: {} instructions before, {} after", out.instructions_before, out.instructions_after));
                }
                verify::structure(&bytes).map_err(|p| format!("{what}: gfxpatch verify: {}", p.join("; ")))?;
                let dwarf = o.bytes.windows(11).any(|w| w == b".debug_info");
                let sampled = i % step == 0;
                if sampled {
                    let object = gfxpatch::container::CodeObject::parse(&o.bytes).unwrap();
                    llvm_accepts(&o.bytes, &bytes, object.target.processor.name, &what)?;
                }
                let back = rewrite_object(&o.bytes, &round).map_err(|e| format!("{what}: insert-nops,remove-nops: {e:#}"))?;
                if back.refused.is_some() || back.bytes.as_deref().is_some_and(|b| b != &o.bytes[..]) {
                    return Err(format!("{what}: insert-nops,remove-nops does not give the input back ({:?})", back.refused));
                }
                Ok((sampled, dwarf, Ok(())))
            })
            .map(|r| r.unwrap_or_else(|e| (false, false, Err(e))))
            .collect();
        let failures: Vec<&String> = results.iter().filter_map(|r| r.2.as_ref().err()).collect();
        assert!(failures.is_empty(), "{lib}: {} of {} objects fail; first: {}", failures.len(), results.len(), failures[0]);
        total += results.len();
        checked_by_llvm += results.iter().filter(|r| r.0).count();
        with_dwarf += results.iter().filter(|r| r.1).count();
    }
    eprintln!("insert-nops: {total} code objects rewritten and verified, {with_dwarf} with DWARF remapped; {checked_by_llvm} checked by llvm-objdump/readelf/dwarfdump");
    assert_eq!(total, 777 + 7);
    assert_eq!(with_dwarf, 784, "every corpus object carries DWARF");
}
