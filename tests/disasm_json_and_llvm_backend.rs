//! `gfxpatch disasm --json` against the plain listing, and `gfxpatch disasm --backend llvm`
//! (LLVM's in-process disassembler) against gfxpatch's own, on every fixture.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn run(args: &[&str]) -> String {
    let output = common::gfxpatch(args);
    assert!(
        output.status.success(),
        "gfxpatch {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("gfxpatch printed invalid UTF-8")
}

/// Every input the disassembler takes: code objects, offload bundles, host libraries.
fn inputs() -> Vec<PathBuf> {
    let mut all = common::code_object_fixtures();
    all.extend(common::fixture_files("bundle", "hipfb"));
    all.extend(common::fixture_files("host", "so"));
    all
}

/// The largest code object of each target, the bundles and the host libraries: every
/// generation and container kind, at a tenth of the cost of [`inputs`] (a JSON listing costs a
/// debug build about 0.1 s per file).
fn sample_inputs() -> Vec<PathBuf> {
    let mut largest: std::collections::BTreeMap<PathBuf, (u64, PathBuf)> =
        std::collections::BTreeMap::new();
    for path in common::code_object_fixtures() {
        let size = std::fs::metadata(&path).unwrap().len();
        let dir = path.parent().unwrap().to_owned();
        if largest.get(&dir).is_none_or(|(s, _)| size > *s) {
            largest.insert(dir, (size, path));
        }
    }
    let mut all: Vec<PathBuf> = largest.into_values().map(|(_, p)| p).collect();
    all.extend(common::fixture_files("bundle", "hipfb"));
    all.extend(common::fixture_files("host", "so"));
    all
}

/// The plain listing's instruction lines as (address, words, text).
fn plain_instructions(listing: &str) -> Vec<(u64, Vec<String>, String)> {
    listing
        .lines()
        .filter(|l| l.starts_with('\t') && !l.starts_with("\t\t"))
        .map(|l| {
            let (text, comment) = l
                .rsplit_once("// ")
                .expect("instruction line without comment");
            let (address, rest) = comment.split_once(": ").unwrap();
            let words = rest
                .split(' ')
                .take_while(|w| !w.starts_with('<'))
                .map(str::to_owned)
                .collect();
            (
                u64::from_str_radix(address, 16).unwrap(),
                words,
                text.trim_start_matches('\t').trim_end().to_owned(),
            )
        })
        .collect()
}

fn json_instructions(listing: &Value) -> Vec<&Value> {
    listing["code_objects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|o| o["blocks"].as_array().unwrap())
        .flat_map(|b| b["instructions"].as_array().unwrap())
        .collect()
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn json_text_equals_the_plain_listing() {
    let mut total = 0;
    for path in sample_inputs() {
        let plain = plain_instructions(&run(&["disasm", path_str(&path)]));
        let json: Value =
            serde_json::from_str(&run(&["disasm", "--json", path_str(&path)])).unwrap();
        let insts = json_instructions(&json);
        assert_eq!(insts.len(), plain.len(), "{}", path.display());
        for ((address, words, text), j) in plain.iter().zip(&insts) {
            let at = format!("{} at {address:#x}", path.display());
            assert_eq!(j["address"].as_u64(), Some(*address), "{at}");
            assert_eq!(j["text"].as_str(), Some(text.as_str()), "{at}");
            let jwords: Vec<&str> = j["words"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_str().unwrap())
                .collect();
            assert_eq!(jwords, *words, "{at}");
            assert_eq!(j["length"].as_u64(), Some(4 * words.len() as u64), "{at}");
            // Bytes are the words in memory order.
            let bytes: String = words
                .iter()
                .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes())
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(j["bytes"].as_str(), Some(bytes.as_str()), "{at}");
            // Every fixture instruction decodes: record, opcode and family are known.
            let record = j["record"]
                .as_str()
                .unwrap_or_else(|| panic!("{at}: no record for {text}"));
            assert!(
                record.starts_with(j["opcode"].as_str().unwrap()),
                "{at}: {record}"
            );
            assert!(j["family"].is_string(), "{at}: no family for {record}");
        }
        total += plain.len();
    }
    assert!(total > 5_000, "only {total} instructions in the fixtures");
}

#[test]
fn json_operands_of_the_seed_instruction() {
    // addr_math.O2 for gfx1100: `v_lshl_or_b32 v0, s15, 3, v0` at 0x291c.
    let path = common::repo().join("fixtures/co/gfx1100/addr_math.O2.co");
    let json: Value = serde_json::from_str(&run(&["disasm", "--json", path_str(&path)])).unwrap();
    assert_eq!(json["code_objects"][0]["target"], "gfx1100");
    let inst = json_instructions(&json)
        .into_iter()
        .find(|i| i["address"] == 0x291c)
        .unwrap();
    assert_eq!(inst["text"], "v_lshl_or_b32 v0, s15, 3, v0");
    assert_eq!(inst["record"], "V_LSHL_OR_B32_e64_gfx11");
    assert_eq!(inst["opcode"], "V_LSHL_OR_B32_e64");
    assert_eq!(inst["family"], "VOP3");
    assert_eq!(inst["bytes"], "000056d60f060104");
    let operands: Vec<(&str, &str, &str, &str)> = inst["operands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap(),
                o["dir"].as_str().unwrap(),
                o["kind"].as_str().unwrap(),
                o["value"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        operands,
        [
            ("vdst", "out", "reg", "v0"),
            ("src0", "in", "reg", "s15"),
            ("src1", "in", "inline_int", "3"),
            ("src2", "in", "reg", "v0")
        ]
    );
}

#[test]
fn llvm_backend_listing_is_identical_on_every_fixture() {
    for path in inputs() {
        let ours = run(&["disasm", path_str(&path)]);
        let llvm = run(&["disasm", "--backend", "llvm", path_str(&path)]);
        if ours != llvm {
            let diff: Vec<String> = ours
                .lines()
                .zip(llvm.lines())
                .filter(|(a, b)| a != b)
                .take(5)
                .map(|(a, b)| format!("ours: {a}\nllvm: {b}"))
                .collect();
            panic!("{}: backends differ\n{}", path.display(), diff.join("\n"));
        }
    }
}

#[test]
fn llvm_backend_json_has_llvm_text_and_lengths_only() {
    let path = common::repo().join("fixtures/co/gfx90a/addr_math.O2.co");
    let ours: Value = serde_json::from_str(&run(&["disasm", "--json", path_str(&path)])).unwrap();
    let llvm: Value = serde_json::from_str(&run(&[
        "disasm",
        "--json",
        "--backend",
        "llvm",
        path_str(&path),
    ]))
    .unwrap();
    assert_eq!(llvm["code_objects"][0]["backend"], "llvm");
    let (ours, llvm) = (json_instructions(&ours), json_instructions(&llvm));
    assert_eq!(ours.len(), llvm.len());
    for (o, l) in ours.iter().zip(&llvm) {
        for key in [
            "address",
            "length",
            "bytes",
            "words",
            "text",
            "branch_target",
            "branch_symbol",
        ] {
            assert_eq!(o[key], l[key], "{key} at {}", o["address"]);
        }
        assert!(l["record"].is_null() && l["operands"].as_array().unwrap().is_empty());
    }
}
