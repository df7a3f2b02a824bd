//! LLVM's own MC test vectors (tests/data/vectors-*.jsonl.gz): every disassembler check
//! (`llvm/test/MC/Disassembler/AMDGPU/*.txt`) decoded and printed by gfxpatch for its CPU and
//! mode, and compared with the text LLVM's test expects. Some extracted vectors pair bytes with
//! a neighbouring check line or describe encodings LLVM rejects; for LLVM 19 targets those are
//! judged by what LLVM 19's in-process disassembler prints for the bytes (and counted apart). Rates per generation may not fall
//! below the floors in tests/golden/disasm-vector-rates.txt; after an improvement raise them
//! with `GFXPATCH_BLESS=1 cargo test --test vectors`.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};

use gfxpatch::isa::{Decoder, Target, print};
use gfxpatch::llvm::disasm::LlvmDisassembler;

#[derive(serde::Deserialize)]
struct Config {
    cpu: Option<String>,
    mattr: Option<String>,
}

#[derive(serde::Deserialize)]
struct Vector {
    file: String,
    configs: Vec<Config>,
    asm: String,
    bytes: String,
}

/// LLVM's older CPU names used by its tests.
fn canonical_cpu(cpu: &str) -> &str {
    match cpu {
        "tonga" | "iceland" => "gfx802",
        "fiji" | "polaris10" | "polaris11" => "gfx803",
        "carrizo" => "gfx801",
        "stoney" => "gfx810",
        // gfx940 and gfx941 were folded into gfx942 (LLVM 22 dropped them).
        "gfx940" | "gfx941" => "gfx942",
        other => other,
    }
}

/// Normalises LLVM test text the way FileCheck compares it (whitespace runs are equal).
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn load(file: &str) -> Vec<Vector> {
    let path = common::repo().join("tests/data").join(file);
    let reader = BufReader::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&path).unwrap(),
    ));
    reader
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect()
}

#[derive(Default)]
struct Tally {
    total: usize,
    same: usize,
    same_length: usize,
    /// Vectors whose expected text LLVM 19's own disassembler does not produce (mis-paired
    /// check lines, invalid encodings), where gfxpatch prints what LLVM 19 prints.
    binary_disagrees: usize,
}

#[test]
fn disassembler_vectors_print_like_llvm() {
    let mut decoders: BTreeMap<(String, String), Option<Decoder>> = BTreeMap::new();
    let mut oracles: BTreeMap<(String, String), Option<LlvmDisassembler>> = BTreeMap::new();
    let mut by_generation: BTreeMap<String, Tally> = BTreeMap::new();
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    for file in [
        "vectors-llvm-19.1.7.jsonl.gz",
        "vectors-llvm-22.1.8-gfx950-gfx1250.jsonl.gz",
    ] {
        for v in load(file) {
            if !v.file.contains("/Disassembler/")
                || v.asm.contains("Invalid")
                || v.asm.contains("<unknown>")
            {
                continue;
            }
            let bytes: Vec<u8> = (0..v.bytes.len() / 2)
                .filter_map(|i| u8::from_str_radix(&v.bytes[2 * i..2 * i + 2], 16).ok())
                .collect();
            for config in &v.configs {
                let cpu = canonical_cpu(config.cpu.as_deref().unwrap_or("")).to_owned();
                // The LLVM 22 file judges only the targets LLVM 22 supplies; other CPUs in its
                // configs print as LLVM 19 does and are judged by the LLVM 19 file.
                if file.contains("22.1.8")
                    && !matches!(cpu.as_str(), "gfx950" | "gfx1250" | "gfx1251")
                {
                    continue;
                }
                let mattr = config.mattr.clone().unwrap_or_default();
                let decoder = decoders
                    .entry((cpu.clone(), mattr.clone()))
                    .or_insert_with(|| Target::from_name(&cpu, &mattr).ok().map(Decoder::new));
                let Some(decoder) = decoder else {
                    *skipped.entry(format!("{cpu} {mattr}")).or_default() += 1;
                    continue;
                };
                let inst = decoder.decode(&bytes);
                let text = print::print(&inst, decoder.target(), 0);
                let tally = by_generation
                    .entry(decoder.target().generation().name().to_owned())
                    .or_default();
                tally.total += 1;
                tally.same_length += usize::from(inst.len() == bytes.len());
                if normalise(&text) == normalise(&v.asm) && inst.len() == bytes.len() {
                    tally.same += 1;
                    continue;
                }
                // The judge is LLVM 19's disassembler itself: where the vector's text is not what
                // it prints for these bytes, agreeing with the binary is agreeing with LLVM.
                if decoder.target().llvm_version() == 19 {
                    let target = *decoder.target();
                    let oracle = oracles
                        .entry((cpu.clone(), mattr.clone()))
                        .or_insert_with(|| LlvmDisassembler::new(&target).ok());
                    if let Some(oracle) = oracle {
                        let theirs = oracle.decode(&bytes, 0);
                        let (size, their_text) = if theirs.size == 0 {
                            (
                                4,
                                format!(
                                    ".long 0x{:08x}",
                                    u32::from_le_bytes(bytes[..4].try_into().unwrap())
                                ),
                            )
                        } else {
                            (theirs.size, theirs.text)
                        };
                        if normalise(&their_text) != normalise(&v.asm)
                            && normalise(&their_text) == normalise(&text)
                            && size == inst.len()
                        {
                            tally.same += 1;
                            tally.binary_disagrees += 1;
                            continue;
                        }
                    }
                }
                if failures.len() < 50_000 {
                    failures.push(format!(
                        "{cpu} {mattr} {}: llvm `{}` ours `{text}` ({} of {} bytes)",
                        v.bytes,
                        v.asm,
                        inst.len(),
                        bytes.len()
                    ));
                }
            }
        }
    }
    let rates: BTreeMap<String, f64> = by_generation
        .iter()
        .map(|(g, t)| (g.clone(), 100.0 * t.same as f64 / t.total.max(1) as f64))
        .collect();
    let mut report = String::new();
    for (g, t) in &by_generation {
        let lengths = 100.0 * t.same_length as f64 / t.total.max(1) as f64;
        report.push_str(&format!(
            "{g:8} {:6}/{:6} {:7.3}% text, {lengths:7.3}% length ({} vectors LLVM 19 itself prints differently, matched to the binary)\n",
            t.same, t.total, rates[g], t.binary_disagrees
        ));
    }
    report.push_str(&format!(
        "skipped (target or mattr gfxpatch does not take): {skipped:?}\n"
    ));
    eprintln!("{report}");
    let list = std::env::var("GFXPATCH_VECTOR_FAILURES").map_or_else(
        |_| common::repo().join("target/vector-failures.txt"),
        Into::into,
    );
    let _ = std::fs::write(list, format!("{report}\n{}", failures.join("\n")));

    let golden = common::repo().join("tests/golden/disasm-vector-rates.txt");
    if std::env::var("GFXPATCH_BLESS").is_ok_and(|v| v == "1") {
        let text: String = rates
            .iter()
            .map(|(g, r)| format!("{g} {:.3}\n", (r * 1000.0).floor() / 1000.0))
            .collect();
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, text).unwrap();
        return;
    }
    let floors = std::fs::read_to_string(&golden).unwrap_or_default();
    for line in floors.lines() {
        let Some((g, floor)) = line.split_once(' ') else {
            continue;
        };
        let floor: f64 = floor.parse().unwrap();
        let rate = rates.get(g).copied().unwrap_or(0.0);
        assert!(
            rate >= floor,
            "{g}: {rate:.3}% of disassembler vectors print like LLVM, below the floor {floor}%\n{report}"
        );
    }
}
