//! The encoder against real code: every instruction of every fixture (and, with
//! `GFXPATCH_CORPUS=1`, of the real-world corpus) decodes and re-encodes to its own bytes.
//!
//! - `encode_like(inst, decode_operands(inst))` must give the instruction back for 100 % of
//!   instructions: this is what makes an edit that changes one operand leave the rest intact.
//! - Canonical `encode(encoding, decode_operands(inst))` writes what LLVM's emitter writes; it
//!   differs from bytes another compiler wrote only in bits the decoder ignores. Those
//!   differences are counted by reason; rates may not fall below the floors in
//!   tests/golden/encode-canonical-rates.txt (after an improvement:
//!   `GFXPATCH_BLESS=1 cargo test --test encode_roundtrip`).
//! - LLVM's own assembler test vectors (tests/data: what LLVM 19's, and for GFX950/GFX1250
//!   LLVM 22's, encoder wrote) must come back byte for byte from canonical `encode`.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};

use gfxpatch::container::bundle::DecompressLimits;
use gfxpatch::container::input::Input;
use gfxpatch::container::CodeObject;
use gfxpatch::isa::encode::{canonical_extras, encode, encode_like, Conventions};
use gfxpatch::isa::operand::decode_operands;
use gfxpatch::isa::{Decoder, Inst, Target};

/// Counts per group (a target or a generation), with the canonical differences by reason.
#[derive(Default)]
struct Tally {
    total: usize,
    like_same: usize,
    canonical_same: usize,
    /// reason -> (count, first example)
    reasons: BTreeMap<String, (usize, String)>,
    like_failures: Vec<String>,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.total += other.total;
        self.like_same += other.like_same;
        self.canonical_same += other.canonical_same;
        for (reason, (n, example)) in other.reasons {
            self.reasons.entry(reason).or_insert((0, example)).0 += n;
        }
        self.like_failures.extend(other.like_failures.into_iter().take(100));
    }

    fn reason(&mut self, reason: String, example: String) {
        self.reasons.entry(reason).or_insert((0, example)).0 += 1;
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why canonical bytes differ from the original: which kind of bits differ.
fn canonical_reason(inst: &Inst, ours: &Inst, target: &Target) -> String {
    let e = inst.encoding().unwrap();
    if ours.len() != inst.len() {
        return format!("length {} vs {}", ours.len(), inst.len());
    }
    let diff = inst.encoded_bits() ^ ours.encoded_bits();
    if diff == 0 {
        return "bytes after the encoded bits (NSA padding or unused literal bytes)".to_owned();
    }
    let covered = common::field_bits(e);
    if diff & canonical_extras(e, target, &Conventions::LLVM) == diff {
        let what = if diff & 0xff != 0 { "v_cmpx_e64 dst = EXEC_LO" } else { "implicit op_sel_hi" };
        return format!("ignored bits LLVM's emitter fills in ({what}); the original has them clear");
    }
    if diff & covered == 0 {
        return "bits no field covers (hardware ignores them; another compiler set them)".to_owned();
    }
    "field bits the decoder ignores (e.g. a tuple's low index bits)".to_owned()
}

/// Decodes `text` linearly and checks every instruction.
fn check_section(decoder: &Decoder, text: &[u8], tally: &mut Tally) {
    let target = *decoder.target();
    let mut at = 0;
    while at + 4 <= text.len() {
        let inst = decoder.decode(&text[at..]);
        at += inst.len();
        let Some(e) = inst.encoding() else { continue };
        tally.total += 1;
        let bytes = inst.bytes();
        let ops = match decode_operands(e, inst.encoded_bits(), &bytes[inst.tail_at()..], &target) {
            Ok(ops) => ops,
            Err(fail) => {
                tally.like_failures.push(format!("{target} {}: decode_operands {fail:?}", hex(&bytes)));
                continue;
            }
        };
        match encode_like(&inst, &ops, &target) {
            Ok(again) if again == inst => tally.like_same += 1,
            other => {
                if tally.like_failures.len() < 100 {
                    tally.like_failures.push(format!("{target} {} {}: encode_like gave {other:?}", e.record_name(), hex(&bytes)));
                }
            }
        }
        match encode(e, &ops, &target) {
            Ok(ours) if ours.bytes() == bytes => tally.canonical_same += 1,
            Ok(ours) => {
                let reason = canonical_reason(&inst, &ours, &target);
                tally.reason(reason, format!("{} {} -> {}", e.record_name(), hex(&bytes), hex(&ours.bytes())));
            }
            Err(err) => {
                let kind = format!("{err:?}");
                let kind = kind.split([' ', '{', '(']).next().unwrap_or("").to_owned();
                tally.reason(format!("error {kind}"), format!("{} {}: {err}", e.record_name(), hex(&bytes)));
            }
        }
    }
}

/// Every code object of a file (code object, bundle or host library), by target.
fn check_file(path: &std::path::Path, by_target: &mut BTreeMap<String, Tally>) {
    let data = std::fs::read(path).unwrap();
    let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
    let results: Vec<(String, Tally)> = {
        use rayon::prelude::*;
        input
            .objects
            .par_iter()
            .map(|embedded| {
                let object = CodeObject::parse(&embedded.bytes).unwrap();
                let target = Target::from_target_id(&object.target, false).unwrap();
                let decoder = Decoder::new(target);
                let mut tally = Tally::default();
                for s in object.text_sections() {
                    check_section(&decoder, &embedded.bytes[s.offset as usize..(s.offset + s.size) as usize], &mut tally);
                }
                (target.processor.name.to_owned(), tally)
            })
            .collect()
    };
    for (target, tally) in results {
        by_target.entry(target).or_default().add(tally);
    }
}

fn report(title: &str, tallies: &BTreeMap<String, Tally>) -> String {
    let mut out = format!("{title}\n");
    for (group, t) in tallies {
        let pct = |n: usize| 100.0 * n as f64 / t.total.max(1) as f64;
        out.push_str(&format!(
            "{group:10} {:9} instructions: encode_like {:8.4}%, canonical encode {:8.4}%\n",
            t.total,
            pct(t.like_same),
            pct(t.canonical_same)
        ));
        for (reason, (n, example)) in &t.reasons {
            out.push_str(&format!("    {n:8} {reason}  e.g. {example}\n"));
        }
    }
    out
}

/// Canonical rates may not fall below the golden floors (`GFXPATCH_BLESS=1` rewrites them).
fn check_floors(prefix: &str, tallies: &BTreeMap<String, Tally>, report: &str) {
    let golden = common::repo().join("tests/golden/encode-canonical-rates.txt");
    let rates: BTreeMap<String, f64> = tallies
        .iter()
        .map(|(g, t)| (format!("{prefix} {g}"), 100.0 * t.canonical_same as f64 / t.total.max(1) as f64))
        .collect();
    let existing = std::fs::read_to_string(&golden).unwrap_or_default();
    if std::env::var("GFXPATCH_BLESS").is_ok_and(|v| v == "1") {
        let mut lines: BTreeMap<String, String> = existing
            .lines()
            .filter_map(|l| l.rsplit_once(' ').map(|(k, v)| (k.to_owned(), v.to_owned())))
            .filter(|(k, _)| !k.starts_with(&format!("{prefix} ")))
            .collect();
        for (k, r) in &rates {
            lines.insert(k.clone(), format!("{:.3}", (r * 1000.0).floor() / 1000.0));
        }
        let text: String = lines.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
        std::fs::write(&golden, text).unwrap();
        return;
    }
    for line in existing.lines().filter(|l| l.starts_with(&format!("{prefix} "))) {
        let (key, floor) = line.rsplit_once(' ').unwrap();
        let floor: f64 = floor.parse().unwrap();
        let rate = rates.get(key).copied().unwrap_or(0.0);
        assert!(
            rate >= floor,
            "{key}: canonical encode gives the original bytes for {rate:.3}%, below the floor {floor}% \
             (tests/golden/encode-canonical-rates.txt; GFXPATCH_BLESS=1 after an improvement)\n{report}"
        );
    }
}

fn assert_like_is_identity(tallies: &BTreeMap<String, Tally>, report: &str) {
    let failures: Vec<&String> = tallies.values().flat_map(|t| &t.like_failures).collect();
    assert!(
        failures.is_empty() && tallies.values().all(|t| t.like_same == t.total),
        "encode_like(inst, decode(inst)) != inst:\n{}\n{report}",
        failures.iter().take(40).map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_fixture_instruction_re_encodes_to_its_bytes() {
    let mut by_target = BTreeMap::new();
    for file in common::code_object_fixtures() {
        check_file(&file, &mut by_target);
    }
    let report = report("fixtures/co: decode -> encode", &by_target);
    eprintln!("{report}");
    assert!(by_target.values().map(|t| t.total).sum::<usize>() > 100_000, "the fixtures hold more instructions than that");
    assert_like_is_identity(&by_target, &report);
    check_floors("fixtures", &by_target, &report);
}

#[test]
#[cfg_attr(not(gfxpatch_corpus), ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1 (release)")]
fn every_corpus_instruction_re_encodes_to_its_bytes() {
    let mut by_target = BTreeMap::new();
    for lib in ["librocrand.so.1.1", "librocsparse.so.0.1"] {
        check_file(&common::corpus_file(lib), &mut by_target);
    }
    let report = report("corpus (librocrand, librocsparse): decode -> encode", &by_target);
    eprintln!("{report}");
    assert_like_is_identity(&by_target, &report);
    check_floors("corpus", &by_target, &report);
}

#[derive(serde::Deserialize)]
struct Config {
    cpu: Option<String>,
    mattr: Option<String>,
}

#[derive(serde::Deserialize)]
struct Vector {
    file: String,
    configs: Vec<Config>,
    bytes: String,
}

/// LLVM's older CPU names used by its tests.
fn canonical_cpu(cpu: &str) -> &str {
    match cpu {
        "tonga" | "iceland" => "gfx802",
        "fiji" | "polaris10" | "polaris11" => "gfx803",
        "carrizo" => "gfx801",
        "stoney" => "gfx810",
        "gfx940" | "gfx941" => "gfx942",
        other => other,
    }
}

/// LLVM's assembler test vectors: the bytes LLVM's own encoder wrote. Decoding them and encoding
/// canonically must give them back. (LLVM 22's file is the oracle for GFX950 and GFX1250.)
#[test]
fn llvm_assembler_vectors_encode_to_llvm_bytes() {
    let mut decoders: BTreeMap<(String, String), Option<Decoder>> = BTreeMap::new();
    let mut by_generation: BTreeMap<String, Tally> = BTreeMap::new();
    for file in ["vectors-llvm-19.1.7.jsonl.gz", "vectors-llvm-22.1.8-gfx950-gfx1250.jsonl.gz"] {
        let path = common::repo().join("tests/data").join(file);
        let reader = BufReader::new(flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap()));
        for line in reader.lines() {
            let v: Vector = serde_json::from_str(&line.unwrap()).unwrap();
            if v.file.contains("/Disassembler/") {
                continue;
            }
            let bytes: Vec<u8> = (0..v.bytes.len() / 2).filter_map(|i| u8::from_str_radix(&v.bytes[2 * i..2 * i + 2], 16).ok()).collect();
            for config in &v.configs {
                let cpu = canonical_cpu(config.cpu.as_deref().unwrap_or("")).to_owned();
                let llvm22 = matches!(cpu.as_str(), "gfx950" | "gfx1250" | "gfx1251");
                if file.contains("22.1.8") != llvm22 {
                    continue;
                }
                let mattr = config.mattr.clone().unwrap_or_default();
                let decoder = decoders
                    .entry((cpu.clone(), mattr.clone()))
                    .or_insert_with(|| Target::from_name(&cpu, &mattr).ok().map(Decoder::new));
                let Some(decoder) = decoder else { continue };
                let inst = decoder.decode(&bytes);
                // Only vectors that decode whole: the rest are the decoder's business (tests/vectors.rs).
                if inst.is_raw() || inst.len() != bytes.len() {
                    continue;
                }
                let mut tally = Tally::default();
                check_section(decoder, &bytes, &mut tally);
                by_generation.entry(decoder.target().generation().name().to_owned()).or_default().add(tally);
            }
        }
    }
    let report = report("LLVM assembler vectors: decode -> canonical encode", &by_generation);
    eprintln!("{report}");
    assert_like_is_identity(&by_generation, &report);
    check_floors("vectors", &by_generation, &report);
}
