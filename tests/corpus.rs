//! The real-world corpus: Debian 12's librocsparse0 and librocrand1, code nobody here wrote.
//! Runs with `GFXPATCH_CORPUS=1` after `scripts/fetch-corpus.sh`; shown as ignored otherwise
//! (build.rs turns the variable into `cfg(gfxpatch_corpus)`).

mod common;

use std::collections::BTreeMap;

/// Counts code objects per target in `gfxpatch info --json` output.
fn per_target(json: &serde_json::Value) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for o in json["code_objects"].as_array().unwrap() {
        *counts
            .entry(o["target"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    counts
}

/// ROCm 5.3 built for these target ids (as both the bundle ids and the ELF e_flags say).
const TARGETS: [&str; 7] = [
    "gfx1030",
    "gfx803",
    "gfx900:xnack-",
    "gfx906:xnack-",
    "gfx908:xnack-",
    "gfx90a:xnack+",
    "gfx90a:xnack-",
];

/// Every code object's target id, read from its e_flags, is the one its bundle id names.
fn targets_match_bundle_ids(json: &serde_json::Value) {
    for o in json["code_objects"].as_array().unwrap() {
        let id = o["bundle_id"].as_str().unwrap();
        let target = o["target"].as_str().unwrap();
        assert!(
            id.ends_with(&format!("--{target}")),
            "bundle {id} holds a code object for {target}"
        );
    }
}

#[test]
#[cfg_attr(
    not(gfxpatch_corpus),
    ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1"
)]
fn rocsparse_lists_all_777_code_objects() {
    let file = common::corpus_file("librocsparse.so.0.1");
    let start = std::time::Instant::now();
    let json = common::info_json(&file);
    eprintln!(
        "gfxpatch info --json librocsparse.so.0.1: {:.2?} (debug or release as built)",
        start.elapsed()
    );
    assert_eq!(json["kind"], "host");
    assert_eq!(json["host"]["bundles"], 111);
    let counts = per_target(&json);
    let expected: BTreeMap<String, usize> = TARGETS.iter().map(|t| (t.to_string(), 111)).collect();
    assert_eq!(counts, expected);
    targets_match_bundle_ids(&json);
    let mut kernels = 0;
    for o in json["code_objects"].as_array().unwrap() {
        let k = o["kernels"].as_array().unwrap();
        assert!(!k.is_empty(), "{} has no kernels", o["bundle_id"]);
        kernels += k.len();
        for kernel in k {
            assert!(
                kernel["vgpr_count"].is_u64(),
                "{}: no metadata for {}",
                o["bundle_id"],
                kernel["name"]
            );
        }
    }
    assert_eq!(
        kernels, 88137,
        "kernels in librocsparse 5.3.0 (12591 per target)"
    );
}

#[test]
#[cfg_attr(
    not(gfxpatch_corpus),
    ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1"
)]
fn rocrand_lists_its_seven_code_objects() {
    let json = common::info_json(&common::corpus_file("librocrand.so.1.1"));
    assert_eq!(json["host"]["bundles"], 1);
    let expected: BTreeMap<String, usize> = TARGETS.iter().map(|t| (t.to_string(), 1)).collect();
    assert_eq!(per_target(&json), expected);
    targets_match_bundle_ids(&json);
}

#[test]
#[cfg_attr(
    not(gfxpatch_corpus),
    ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1"
)]
fn corpus_descriptors_agree_with_metadata() {
    // ROCm's compiler writes descriptor and metadata from the same counts; report any kernel
    // where our reading of the two disagrees, grouped by kind of disagreement and target.
    for lib in ["librocrand.so.1.1", "librocsparse.so.0.1"] {
        let json = common::info_json(&common::corpus_file(lib));
        let mut problems: BTreeMap<String, usize> = BTreeMap::new();
        for o in json["code_objects"].as_array().unwrap() {
            for k in o["kernels"].as_array().unwrap() {
                for d in k["disagreements"].as_array().unwrap() {
                    let kind = d
                        .as_str()
                        .unwrap()
                        .split(':')
                        .next()
                        .unwrap()
                        .split(" has ")
                        .next()
                        .unwrap()
                        .to_owned();
                    *problems
                        .entry(format!("{} {kind}", o["target"].as_str().unwrap()))
                        .or_insert(0) += 1;
                }
            }
        }
        assert!(problems.is_empty(), "{lib}: disagreements {problems:#?}");
    }
}

#[test]
#[cfg_attr(
    not(gfxpatch_corpus),
    ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1"
)]
fn corpus_metadata_notes_reencode_exactly() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::input::MappedFile;
    use gfxpatch::container::{CodeObject, Input};
    use rayon::prelude::*;
    for lib in ["librocrand.so.1.1", "librocsparse.so.0.1"] {
        let mapped = MappedFile::open(&common::corpus_file(lib)).unwrap();
        let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).unwrap();
        // Plain bundles are read in place: no code object is copied out of the mapping.
        assert!(
            input
                .objects
                .iter()
                .all(|o| matches!(o.bytes, std::borrow::Cow::Borrowed(_)))
        );
        input.objects.par_iter().for_each(|o| {
            let object = CodeObject::parse(&o.bytes).unwrap();
            let (offset, len) = object.metadata_range.unwrap();
            let original = &o.bytes[offset as usize..][..len as usize];
            assert!(
                object.metadata.unwrap().to_msgpack() == original,
                "{lib}: {}: metadata does not re-encode",
                o.describe(0)
            );
        });
    }
}

/// One code object's comparison against LLVM's in-process disassembler (the same decoder and
/// printer as `llvm-objdump-19 -d`), following LLVM's instruction boundaries.
#[derive(Default)]
struct DisasmTally {
    instructions: u64,
    same_text: u64,
    length_mismatches: u64,
    by_mnemonic: BTreeMap<String, u64>,
    examples: BTreeMap<String, String>,
}

impl DisasmTally {
    fn merge(mut self, other: DisasmTally) -> DisasmTally {
        self.instructions += other.instructions;
        self.same_text += other.same_text;
        self.length_mismatches += other.length_mismatches;
        for (k, v) in other.by_mnemonic {
            *self.by_mnemonic.entry(k).or_default() += v;
        }
        for (k, v) in other.examples {
            self.examples.entry(k).or_insert(v);
        }
        self
    }
}

fn compare_code_object(bytes: &[u8], label: &str) -> DisasmTally {
    use gfxpatch::container::CodeObject;
    use gfxpatch::isa::{Decoder, Target, print};
    use gfxpatch::llvm::disasm::LlvmDisassembler;
    let object = CodeObject::parse(bytes).unwrap();
    let target = Target::from_target_id(&object.target, false).unwrap();
    let decoder = Decoder::new(target);
    let mut llvm = LlvmDisassembler::new(&target).unwrap();
    let mut tally = DisasmTally::default();
    for section in object.text_sections() {
        let text = &bytes[section.offset as usize..(section.offset + section.size) as usize];
        let mut at = 0usize;
        while at + 4 <= text.len() {
            let address = section.address + at as u64;
            let theirs = llvm.decode(&text[at..], address);
            let ours = decoder.decode(&text[at..]);
            let (their_size, their_text) = if theirs.size == 0 {
                (
                    4,
                    format!(
                        ".long 0x{:08x}",
                        u32::from_le_bytes(text[at..at + 4].try_into().unwrap())
                    ),
                )
            } else {
                (theirs.size, theirs.text)
            };
            tally.instructions += 1;
            if ours.len() != their_size {
                tally.length_mismatches += 1;
                tally.examples.entry(format!("length {}", their_text.split_whitespace().next().unwrap_or(""))).or_insert_with(|| {
                    format!("{label} {address:#x}: llvm `{their_text}` ({their_size} bytes), ours {} bytes", ours.len())
                });
            } else {
                let mine = print::print(&ours, &target, address);
                if mine == their_text {
                    tally.same_text += 1;
                } else {
                    let mnemonic = their_text
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_owned();
                    tally.examples.entry(mnemonic.clone()).or_insert_with(|| {
                        format!("{label} {address:#x}: llvm `{their_text}` ours `{mine}`")
                    });
                    *tally.by_mnemonic.entry(mnemonic).or_default() += 1;
                }
            }
            at += their_size;
        }
    }
    tally
}

#[test]
#[cfg_attr(
    not(gfxpatch_corpus),
    ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1"
)]
fn corpus_disassembly_matches_llvm() {
    use gfxpatch::container::Input;
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::input::MappedFile;
    use rayon::prelude::*;
    let mut total = DisasmTally::default();
    for lib in ["librocrand.so.1.1", "librocsparse.so.0.1"] {
        let mapped = MappedFile::open(&common::corpus_file(lib)).unwrap();
        let input = Input::parse(mapped.bytes(), &DecompressLimits::default()).unwrap();
        let tally = input
            .objects
            .par_iter()
            .map(|o| {
                compare_code_object(
                    &o.bytes,
                    &format!("{lib}:{}", o.bundle_id.as_deref().unwrap_or("")),
                )
            })
            .reduce(DisasmTally::default, DisasmTally::merge);
        total = total.merge(tally);
    }
    let rate = 100.0 * total.same_text as f64 / total.instructions.max(1) as f64;
    let mut report = format!(
        "{} instructions, {:.4}% identical text, {} length mismatches\n",
        total.instructions, rate, total.length_mismatches
    );
    let mut top: Vec<_> = total.by_mnemonic.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1));
    for (m, n) in top.iter().take(60) {
        report.push_str(&format!(
            "  {n:9} {m:28} {}\n",
            total.examples.get(*m).map_or("", |s| s.as_str())
        ));
    }
    for (k, v) in total
        .examples
        .iter()
        .filter(|(k, _)| k.starts_with("length "))
    {
        report.push_str(&format!("  {k}: {v}\n"));
    }
    eprintln!("{report}");
    let _ = std::fs::write(common::repo().join("target/corpus-disasm.txt"), &report);
    assert_eq!(
        total.length_mismatches, 0,
        "instruction lengths differ from LLVM's\n{report}"
    );
    assert!(
        rate >= 99.9,
        "only {rate:.4}% of corpus instructions print like LLVM\n{report}"
    );
}
