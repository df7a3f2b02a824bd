//! The assembler against real code: every distinct instruction of the real-world corpus
//! (librocrand, librocsparse; `GFXPATCH_CORPUS=1`, release) decoded, printed, parsed back and
//! encoded must give its own bytes, literals kept as literals (`s_addc_u32 s1, s1, 0xffffffff`
//! stays a literal, where LLVM itself would shrink it to the inline `-1`). Reports the rate per
//! target and the rest by reason (`target/asm-corpus-failures.txt`); `GFXPATCH_ASM_CORPUS_MIB=N`
//! limits each library to its first N MiB of code objects.

mod common;

use std::collections::{BTreeMap, HashMap};

use gfxpatch::container::CodeObject;
use gfxpatch::container::bundle::DecompressLimits;
use gfxpatch::container::input::Input;
use gfxpatch::isa::encode::{Conventions, Observer};
use gfxpatch::isa::parse::Parser;
use gfxpatch::isa::{Decoder, Target, print};

#[derive(Default)]
struct Tally {
    distinct: usize,
    same: usize,
    /// With multiplicity: every instruction of the code objects read.
    all: usize,
    all_same: usize,
    /// Of `same` and `all_same`, how many re-assemble to their bytes only with the code
    /// object's conventions (with LLVM's they differ in bits no operand carries).
    only_with_observed: usize,
    all_only_with_observed: usize,
    /// The conventions observed where they are not LLVM's, with the count of code objects.
    conventions: BTreeMap<String, usize>,
    /// Reasons: (distinct, with multiplicity, example).
    reasons: BTreeMap<String, (usize, usize, String)>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Which operand fields of the original's encoding hold other bits in the parsed bytes (or
/// "length" / "encoding" when those differ).
fn differing_field(original: &gfxpatch::isa::Inst, parsed: &gfxpatch::isa::Inst) -> String {
    let (Some(e), Some(p)) = (original.encoding(), parsed.encoding()) else {
        return "no encoding".to_owned();
    };
    if !std::ptr::eq(e, p) {
        return format!("encoding {}", p.record_name());
    }
    if original.len() != parsed.len() {
        return "length (literal vs inline constant)".to_owned();
    }
    if original.encoded_bits() == parsed.encoded_bits() {
        return "trailing literal".to_owned();
    }
    let names = common::differing_fields(e, original.encoded_bits(), parsed.encoded_bits());
    if names.is_empty() {
        "bits outside operand fields".to_owned()
    } else {
        format!("field {}", names.join(","))
    }
}

fn check_file(path: &std::path::Path, limit: usize, by_target: &mut BTreeMap<String, Tally>) {
    let data = std::fs::read(path).unwrap();
    let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
    // Each distinct instruction's outcome (per target and conventions): Ok when it
    // round-trips (true: only with the object's conventions), else its reason.
    let mut seen: HashMap<(String, Conventions, Vec<u8>), Result<bool, String>> = HashMap::new();
    let mut size = 0;
    for embedded in &input.objects {
        if size > limit {
            break;
        }
        size += embedded.bytes.len();
        let object = CodeObject::parse(&embedded.bytes).unwrap();
        let target = Target::from_target_id(&object.target, false).unwrap();
        let name = target.processor.name.to_owned();
        let decoder = Decoder::new(target);
        // The text is re-assembled as the code object's producer encoded: the conventions
        // its own instructions show for the bits the text does not determine.
        let mut observer = Observer::new(target);
        for section in object.text_sections() {
            observer.see_code(object.section_data(section), &decoder);
        }
        let conventions = observer.conventions();
        let parser = Parser::with_conventions(target, conventions);
        let llvm_parser = (conventions != Conventions::LLVM).then(|| Parser::new(target));
        let tally = by_target.entry(name.clone()).or_default();
        if conventions != Conventions::LLVM || observer.mixed() {
            let mixed = if observer.mixed() { "; its instructions disagree" } else { "" };
            *tally.conventions.entry(format!("{conventions}{mixed}")).or_default() += 1;
        }
        for s in object.text_sections() {
            let text = &embedded.bytes[s.offset as usize..(s.offset + s.size) as usize];
            let mut at = 0;
            while at + 4 <= text.len() {
                let inst = decoder.decode(&text[at..]);
                at += inst.len();
                if inst.encoding().is_none() {
                    continue;
                }
                let bytes = inst.bytes();
                tally.all += 1;
                let key = (name.clone(), conventions, bytes.clone());
                if let Some(outcome) = seen.get(&key) {
                    match outcome {
                        Ok(only_observed) => {
                            tally.all_same += 1;
                            tally.all_only_with_observed += usize::from(*only_observed);
                        }
                        Err(why) => tally.reasons.get_mut(why).unwrap().1 += 1,
                    }
                    continue;
                }
                tally.distinct += 1;
                let printed = print::print(&inst, &target, 0);
                let why = match parser.parse(&printed) {
                    Ok(p) if p.inst.bytes() == bytes => {
                        let only_observed = llvm_parser
                            .as_ref()
                            .is_some_and(|l| l.parse(&printed).ok().map(|p| p.inst.bytes()) != Some(bytes.clone()));
                        tally.same += 1;
                        tally.all_same += 1;
                        tally.only_with_observed += usize::from(only_observed);
                        tally.all_only_with_observed += usize::from(only_observed);
                        seen.insert(key, Ok(only_observed));
                        continue;
                    }
                    Ok(p) => format!(
                        "other bytes ({}; {})",
                        p.encoding.record_name(),
                        differing_field(&inst, &p.inst)
                    ),
                    Err(e) => {
                        let m = e.to_string();
                        m.split(", found").next().unwrap_or(&m).to_owned()
                    }
                };
                let example = format!("{name}: `{printed}` {}", hex(&bytes));
                let entry = tally.reasons.entry(why.clone()).or_insert((0, 0, example));
                entry.0 += 1;
                entry.1 += 1;
                seen.insert(key, Err(why));
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(gfxpatch_corpus),
    ignore = "real-world corpus: scripts/fetch-corpus.sh, then GFXPATCH_CORPUS=1 (release)"
)]
fn corpus_instructions_print_parse_and_encode_to_their_bytes() {
    let limit = std::env::var("GFXPATCH_ASM_CORPUS_MIB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(usize::MAX, |m| m << 20);
    let mut by_target: BTreeMap<String, Tally> = BTreeMap::new();
    for lib in ["librocrand.so.1.1", "librocsparse.so.0.1"] {
        check_file(&common::corpus_file(lib), limit, &mut by_target);
    }
    let mut report = String::from(
        "corpus: decode -> print -> parse -> encode; distinct instructions, and all (with multiplicity)\n",
    );
    let (mut all, mut same, mut every, mut every_same) = (0, 0, 0, 0);
    let (mut only_observed, mut every_only_observed) = (0, 0);
    for (t, tally) in &by_target {
        all += tally.distinct;
        same += tally.same;
        every += tally.all;
        every_same += tally.all_same;
        only_observed += tally.only_with_observed;
        every_only_observed += tally.all_only_with_observed;
        report.push_str(&format!(
            "{t:8} {:8}/{:8} {:7.3}% distinct same bytes; {:9}/{:9} {:7.3}% of all\n",
            tally.same,
            tally.distinct,
            100.0 * tally.same as f64 / tally.distinct.max(1) as f64,
            tally.all_same,
            tally.all,
            100.0 * tally.all_same as f64 / tally.all.max(1) as f64
        ));
        for (conventions, objects) in &tally.conventions {
            report.push_str(&format!("         {objects} code object(s) encoded with {conventions}\n"));
        }
        if tally.only_with_observed > 0 {
            report.push_str(&format!(
                "         {:8} distinct {:9} all  same bytes only with the code object's conventions (LLVM's differ)\n",
                tally.only_with_observed, tally.all_only_with_observed
            ));
        }
        let mut top: Vec<_> = tally.reasons.iter().collect();
        top.sort_by_key(|e| std::cmp::Reverse(e.1.0));
        for (why, (n, m, example)) in &top {
            report.push_str(&format!("         {n:8} distinct {m:9} all  {why}\n                  e.g. {example}\n"));
        }
    }
    let rate = 100.0 * same as f64 / all.max(1) as f64;
    report.push_str(&format!(
        "all      {same:8}/{all:8} {rate:7.3}% distinct; {every_same:9}/{every:9} {:7.3}% with multiplicity\n",
        100.0 * every_same as f64 / every.max(1) as f64
    ));
    let llvm_rate = 100.0 * (same - only_observed) as f64 / all.max(1) as f64;
    report.push_str(&format!(
        "with LLVM's conventions throughout: {llvm_rate:7.3}% distinct; {:7.3}% with multiplicity\n",
        100.0 * (every_same - every_only_observed) as f64 / every.max(1) as f64
    ));
    eprintln!("{report}");
    let _ = std::fs::write(common::repo().join("target/asm-corpus-failures.txt"), &report);
    // The goal is 99.9 %. Text does not determine every bit: the gfx1030 code objects' compiler
    // (Debian's clang 15) left the unused destination of `v_cmpx_*_e64` 0 where LLVM 19's
    // emitter writes 0x7e (2,650 distinct, 50,426 in all); with the conventions each object's
    // own instructions show, those re-assemble to their bytes, and with LLVM's throughout the
    // rate is 99.894 %. What remains: 32 literals 0xffffffff in `s_addc_u32` that the printer,
    // like llvm-objdump, writes as `-1` (so the parser reads the inline constant).
    assert!(rate >= 99.9, "{rate:.3}% of distinct corpus instructions round-trip through text, below the goal 99.9%\n{report}");
    assert!(llvm_rate >= 99.85, "with LLVM's conventions {llvm_rate:.3}%, below the floor 99.85%\n{report}");
}
