//! The assembler against real code: every distinct instruction of the real-world corpus
//! (librocrand, librocsparse; `GFXPATCH_CORPUS=1`, release) decoded, printed, parsed back and
//! encoded must give its own bytes, literals kept as literals (`s_addc_u32 s1, s1, 0xffffffff`
//! stays a literal, where LLVM itself would shrink it to the inline `-1`). Reports the rate per
//! target and the rest by reason (`target/asm-corpus-failures.txt`); `GFXPATCH_ASM_CORPUS_MIB=N`
//! limits each library to its first N MiB of code objects.

mod common;

use std::collections::{BTreeMap, HashSet};

use gfxpatch::container::CodeObject;
use gfxpatch::container::bundle::DecompressLimits;
use gfxpatch::container::input::Input;
use gfxpatch::isa::parse::Parser;
use gfxpatch::isa::{Decoder, Target, print};

#[derive(Default)]
struct Tally {
    distinct: usize,
    same: usize,
    reasons: BTreeMap<String, (usize, String)>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn check_file(path: &std::path::Path, limit: usize, by_target: &mut BTreeMap<String, Tally>) {
    let data = std::fs::read(path).unwrap();
    let input = Input::parse(&data, &DecompressLimits::default()).unwrap();
    let mut seen: HashSet<(String, Vec<u8>)> = HashSet::new();
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
        let parser = Parser::new(target);
        let tally = by_target.entry(name.clone()).or_default();
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
                if !seen.insert((name.clone(), bytes.clone())) {
                    continue;
                }
                tally.distinct += 1;
                let printed = print::print(&inst, &target, 0);
                let why = match parser.parse(&printed) {
                    Ok(p) if p.inst.bytes() == bytes => {
                        tally.same += 1;
                        continue;
                    }
                    Ok(p) => format!("other bytes ({})", p.encoding.record_name()),
                    Err(e) => {
                        let m = e.to_string();
                        m.split(", found").next().unwrap_or(&m).to_owned()
                    }
                };
                let example = format!("{name}: `{printed}` {}", hex(&bytes));
                tally.reasons.entry(why).or_insert((0, example)).0 += 1;
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
    let mut report = String::from("corpus: decode -> print -> parse -> encode, distinct instructions\n");
    let (mut all, mut same) = (0, 0);
    for (t, tally) in &by_target {
        all += tally.distinct;
        same += tally.same;
        report.push_str(&format!(
            "{t:8} {:8}/{:8} {:7.3}% same bytes\n",
            tally.same,
            tally.distinct,
            100.0 * tally.same as f64 / tally.distinct.max(1) as f64
        ));
        let mut top: Vec<_> = tally.reasons.iter().collect();
        top.sort_by(|a, b| b.1.0.cmp(&a.1.0));
        for (why, (n, example)) in top.iter().take(8) {
            report.push_str(&format!("         {n:8} {why}\n                  e.g. {example}\n"));
        }
    }
    let rate = 100.0 * same as f64 / all.max(1) as f64;
    report.push_str(&format!("all      {same:8}/{all:8} {rate:7.3}%\n"));
    eprintln!("{report}");
    let _ = std::fs::write(common::repo().join("target/asm-corpus-failures.txt"), &report);
    // The goal is 99.9 %; today 99.894 % (2,540,758 distinct instructions): gfx1030
    // `v_cmpx_*_e64` where ROCm wrote 0 in the destination byte LLVM 19's emitter (and so the
    // parser's canonical bits) fills with 0x7e, and literals the printer writes as inline
    // constants (`s_addc_u32 s1, s1, -1` for a literal 0xffffffff). This floor keeps it there.
    assert!(rate >= 99.85, "{rate:.3}% of distinct corpus instructions round-trip through text, below the floor 99.85%\n{report}");
}
