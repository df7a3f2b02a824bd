//! Decoder robustness on stable Rust: deterministic pseudo-random byte streams, decoded and
//! printed for every target of `robustness::TARGETS`, must keep the property of
//! `tests/robustness/mod.rs` (no panic, steps of 4..=20 bytes, operands always decodable for a
//! decoded instruction, memo equals fresh decode). A smoke version of the cargo-fuzz target
//! `decode_never_panics` (`fuzz/`, `scripts/fuzz.sh`), with fixed seeds so a failure reproduces.
//!
//! Three kinds of stream per target, about 6,500 instructions in all per target:
//! - uniform random bytes;
//! - instructions built from the target's LLVM records: a random encoding's fixed bits over
//!   random bits, followed by random dwords (literals, NSA addresses);
//! - fixture `.text` of the processor (or a close one) with random bit flips;
//! and two long ones (4 and up to 9 KiB, of the last two kinds) for `Decoder::sweep`.

mod common;
mod robustness;

use std::path::PathBuf;

use common::Rng;

use gfxpatch::container::CodeObject;
use gfxpatch::isa::table::Encoding;
use gfxpatch::isa::{Decoder, Target};
use robustness::{Counts, TARGETS, check_stream, target};

/// Instructions decoded per target and per kind of stream.
const PER_KIND: usize = 2_200;
/// Bytes per stream: long enough for sequences, short enough to start often from a fresh offset.
const STREAM_BYTES: usize = 256;

/// Runs streams from `make` through [`check_stream`] until `PER_KIND` instructions are done.
fn run(decoder: &Decoder, mut make: impl FnMut() -> Vec<u8>) -> Counts {
    let mut total = Counts::default();
    while total.decoded + total.raw < PER_KIND {
        let c = check_stream(decoder, &make());
        total.decoded += c.decoded;
        total.raw += c.raw;
    }
    total
}

fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::with_capacity(STREAM_BYTES);
    // Odd lengths too: a trailing fragment under 4 bytes must stay a raw word.
    let len = STREAM_BYTES - rng.below(4);
    rng.fill(&mut out, len);
    out
}

fn from_records(rng: &mut Rng, records: &[&Encoding]) -> Vec<u8> {
    let mut out = Vec::with_capacity(STREAM_BYTES + 32);
    while out.len() < STREAM_BYTES {
        let e = records[rng.below(records.len())];
        let random = (rng.next() as u128) << 64 | rng.next() as u128;
        let word = (random & !e.mask) | (e.value & e.mask);
        out.extend_from_slice(&word.to_le_bytes()[..e.bits as usize / 8]);
        // Literal or NSA dwords: sometimes none, sometimes more than any instruction takes.
        let extra = [0, 0, 1, 1, 2, 3][rng.below(6)];
        rng.fill(&mut out, 4 * extra);
    }
    out
}

fn mutated_text(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let start = rng.below(text.len().saturating_sub(STREAM_BYTES).max(1)) & !3;
    let mut out = text[start..(start + STREAM_BYTES).min(text.len())].to_vec();
    let flips = 1 + rng.below(8);
    for _ in 0..flips {
        let i = rng.below(out.len());
        out[i] ^= 1 << rng.below(8);
    }
    out
}

/// `.text` of every fixture code object of `processor`'s directory (or a close processor's where
/// the fixtures have none), concatenated.
fn fixture_text(processor: &str) -> Vec<u8> {
    let dir = match processor {
        "gfx950" => "gfx942",
        "gfx1250" => "gfx1200",
        other => other,
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/co")
        .join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    paths.sort();
    let mut text = Vec::new();
    for path in paths {
        let data = std::fs::read(&path).unwrap();
        let co = CodeObject::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for s in co.text_sections() {
            text.extend_from_slice(&data[s.offset as usize..(s.offset + s.size) as usize]);
        }
    }
    assert!(!text.is_empty(), "no .text in {}", dir.display());
    text
}

#[test]
fn pseudo_random_streams_decode_and_print_for_every_target() {
    let mut report = Vec::new();
    for (index, (name, cpu, _)) in TARGETS.iter().enumerate() {
        let target: Target = target(index);
        let decoder = Decoder::new(target);
        let mut rng = Rng::new(0x6766_7870_6174_6368 ^ index as u64);
        let records = common::decoder_candidates(&target);
        let text = fixture_text(cpu);

        let random = run(&decoder, || random_bytes(&mut rng));
        let built = run(&decoder, || from_records(&mut rng, &records));
        let mutated = run(&decoder, || mutated_text(&mut rng, &text));
        // Long streams, for `Decoder::sweep`'s two cursors (ranges of 2 KiB and more).
        let long_built: Vec<u8> = (0..16).flat_map(|_| from_records(&mut rng, &records)).collect();
        check_stream(&decoder, &long_built);
        let mut long_text = text[..text.len().min(8192)].to_vec();
        long_text.extend((0..4).flat_map(|_| mutated_text(&mut rng, &text)));
        check_stream(&decoder, &long_text);
        // Streams that mostly failed to decode would test little. Record-built streams count
        // their unconsumed random dwords as raw words, about one per instruction.
        assert!(
            built.decoded * 3 > built.raw,
            "{name}: record-built streams gave {built:?}"
        );
        // gfx950 and gfx1250 (LLVM 22 records) borrow gfx942's and gfx1200's fixtures, and
        // their decode rates are still low (tests/golden/disasm-vector-rates.txt).
        if target.llvm_version() == 19 {
            assert!(
                mutated.decoded > mutated.raw,
                "{name}: mutated fixture text gave {mutated:?}"
            );
        }
        report.push(format!(
            "{name}: random {random:?} built {built:?} mutated {mutated:?}"
        ));
    }
    eprintln!("{}", report.join("\n"));
}
