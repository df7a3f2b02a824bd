//! Differential test: our disassembly of every fixture against `llvm-objdump-19 -d`, line by
//! line: every instruction must have LLVM's length (the words after `//`) and LLVM's text.
//! On failure the full list of differences, with a summary by mnemonic, is written to
//! target/disasm-mismatches.txt (or `$GFXPATCH_MISMATCHES`).

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use gfxpatch::container::CodeObject;
use gfxpatch::isa::{Decoder, Target, listing};

/// An instruction line split into (address+words key, text).
fn instruction_lines(listing: &str) -> Vec<(String, String)> {
    listing
        .lines()
        .filter(|l| l.starts_with('\t') && !l.starts_with("\t\t"))
        .filter_map(|l| {
            let (text, rest) = l.rsplit_once("// ")?;
            Some((
                rest.to_owned(),
                text.trim_start_matches('\t').trim_end().to_owned(),
            ))
        })
        .collect()
}

struct Comparison {
    instructions: usize,
    length_mismatches: Vec<String>,
    text_mismatches: Vec<String>,
}

fn compare_fixture(path: &std::path::Path) -> Comparison {
    let theirs = common::llvm_tool("llvm-objdump-19", &["-d", path.to_str().unwrap()]);
    let bytes = std::fs::read(path).unwrap();
    let object = CodeObject::parse(&bytes).unwrap();
    let target = Target::from_target_id(&object.target, false).unwrap();
    let decoder = Decoder::new(target);
    let ours = listing::render(&listing::blocks(&object.listing_texts(), &decoder), &decoder);
    let theirs = instruction_lines(&theirs);
    let ours = instruction_lines(&ours);
    let name = path
        .strip_prefix(common::repo())
        .unwrap_or(path)
        .display()
        .to_string();
    let mut c = Comparison {
        instructions: theirs.len(),
        length_mismatches: Vec::new(),
        text_mismatches: Vec::new(),
    };
    let ours_by_key: BTreeMap<&str, &str> =
        ours.iter().map(|(k, t)| (k.as_str(), t.as_str())).collect();
    for (key, text) in &theirs {
        match ours_by_key.get(key.as_str()) {
            None => c
                .length_mismatches
                .push(format!("{name} {key}: llvm `{text}`")),
            Some(mine) if mine != text => c
                .text_mismatches
                .push(format!("{name} {key}: llvm `{text}` ours `{mine}`")),
            Some(_) => {}
        }
    }
    if ours.len() != theirs.len() && c.length_mismatches.is_empty() {
        c.length_mismatches.push(format!(
            "{name}: {} lines ours, {} llvm",
            ours.len(),
            theirs.len()
        ));
    }
    c
}

#[test]
fn disassembly_matches_llvm_objdump_on_every_fixture() {
    let mut total = 0;
    let mut lengths = Vec::new();
    let mut texts = Vec::new();
    for path in common::code_object_fixtures() {
        let c = compare_fixture(&path);
        total += c.instructions;
        lengths.extend(c.length_mismatches);
        texts.extend(c.text_mismatches);
    }
    // Summary by mnemonic, printed for whoever works on the printer.
    let mut by_mnemonic: BTreeMap<String, usize> = BTreeMap::new();
    for t in &texts {
        let m = t
            .split('`')
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .unwrap_or("?")
            .to_owned();
        *by_mnemonic.entry(m).or_default() += 1;
    }
    let mut report = format!(
        "{total} instructions, {} text mismatches ({:.3}% identical), {} length mismatches\n",
        texts.len(),
        100.0 * (total - texts.len() - lengths.len()) as f64 / total.max(1) as f64,
        lengths.len()
    );
    let mut top: Vec<_> = by_mnemonic.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1));
    for (m, n) in top.iter().take(40) {
        let _ = writeln!(report, "  {n:6} {m}");
    }
    eprintln!("{report}");
    // The full list, for whoever works on the decoder or printer (GFXPATCH_MISMATCHES=FILE
    // chooses where; default target/disasm-mismatches.txt).
    let list = std::env::var("GFXPATCH_MISMATCHES").map_or_else(
        |_| common::repo().join("target/disasm-mismatches.txt"),
        Into::into,
    );
    let _ = std::fs::write(
        &list,
        format!("{report}\n{}\n{}", lengths.join("\n"), texts.join("\n")),
    );

    assert!(
        total > 50_000,
        "only {total} instructions: are the fixtures there?"
    );
    assert!(
        lengths.is_empty(),
        "{} instructions decode to a different length than LLVM's, e.g.\n{}",
        lengths.len(),
        lengths
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );

    assert!(
        texts.is_empty(),
        "{} instructions print differently from llvm-objdump-19 (full list in target/disasm-mismatches.txt), e.g.\n{}",
        texts.len(),
        texts
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
