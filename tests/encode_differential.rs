//! Differential: our encoder against LLVM 19's in-process assembler on random valid
//! instructions drawn from the tables.
//!
//! Per generation (one representative target each), encodings the target's decoder tables hold
//! are picked at random and their operand fields filled with random bits; the words our decoder
//! decodes to that same encoding are kept. Each is printed with our printer (identical to
//! LLVM's, tests/disasm_matches_objdump.rs and tests/vectors.rs), the text is assembled by LLVM,
//! and LLVM's bytes are compared with ours: canonical `encode(encoding, decode_operands(..))`.
//! Texts LLVM does not take back, or takes back as another encoding (LLVM 19 reassembles some
//! printed text differently: an `_e64` form printed without its suffix becomes e32, ...), are
//! counted by reason, not hidden (and drawn past). The rate of identical bytes may not fall below the floors in
//! tests/golden/encode-canonical-rates.txt (`differential ...`; `GFXPATCH_BLESS=1` rewrites).
//!
//! Then the two assemblers on the same text: every line LLVM assembles is parsed and encoded by
//! ours, which must give LLVM's bytes (>= 99.5 % per generation) or refuse with a reason, never
//! write other bytes. A debug build (the default `cargo test`) parses every eighth line; release
//! builds and `GFXPATCH_DIFF_ASSEMBLE=all` parse all 10,000.
//!
//! Instructions are drawn until `GFXPATCH_DIFF_COUNT` (default 10,000) per generation have been
//! assembled by LLVM and compared; the rate is of those. GFX950 and
//! GFX1250 are beyond LLVM 19: their oracle is LLVM 22's assembler vectors
//! (tests/encode_roundtrip.rs, `llvm_assembler_vectors_encode_to_llvm_bytes`).

mod common;

use std::collections::BTreeMap;

use common::Rng;

use gfxpatch::isa::encode::encode;
use gfxpatch::isa::operand::decode_operands;
use gfxpatch::isa::parse::Parser;
use gfxpatch::isa::{print, Decoder, Inst, Target};
use gfxpatch::llvm::asm::LlvmAssembler;

/// One target per generation LLVM 19 knows.
const TARGETS: [(&str, &str); 9] = [
    ("gfx803", ""),
    ("gfx900", ""),
    ("gfx90a", ""),
    ("gfx942", ""),
    ("gfx1010", ""),
    ("gfx1030", ""),
    ("gfx1100", ""),
    ("gfx1151", ""),
    ("gfx1200", ""),
];

/// Random instructions of `target` that decode to the encoding they were drawn from.
fn sample(target: &Target, count: usize, rng: &mut Rng) -> Vec<Inst> {
    let pool = common::decoder_candidates(target);
    let decoder = Decoder::new(*target);
    let mut out = Vec::with_capacity(count);
    let mut tries = 0usize;
    while out.len() < count && tries < count * 200 {
        tries += 1;
        let e = pool[(rng.next() % pool.len() as u64) as usize];
        let random = u128::from(rng.next()) | (u128::from(rng.next()) << 64);
        let word = (random & !e.mask) | e.value;
        let mut bytes = word.to_le_bytes()[..e.bits as usize / 8].to_vec();
        // Room for a literal or NSA address dwords.
        bytes.extend_from_slice(&rng.next().to_le_bytes());
        bytes.extend_from_slice(&rng.next().to_le_bytes());
        let inst = decoder.decode_uncached(&bytes);
        if inst.encoding().is_some_and(|d| std::ptr::eq(d, e)) {
            out.push(inst);
        }
    }
    out
}

#[derive(Default)]
struct Tally {
    total: usize,
    same: usize,
    /// Lines LLVM assembled, and of those, how many of LLVM's bytes our decoder reads whole and
    /// our canonical encoder writes back identically.
    llvm_accepted: usize,
    llvm_re_encoded: usize,
    re_encode_failures: Vec<String>,
    /// Of the lines LLVM assembled, how many our assembler (parser + encoder) assembles to
    /// LLVM's bytes; the others by reason (count, example).
    assembled_same: usize,
    /// Lines LLVM assembled that our assembler was given (all, or every eighth in debug).
    llvm_accepted_assembled: usize,
    /// Lines our assembler takes but assembles to other bytes than LLVM's (a refusal is a
    /// reason; other bytes are a bug).
    assembled_other: usize,
    assembled_different: BTreeMap<String, (usize, String)>,
    reasons: BTreeMap<String, (usize, String)>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why LLVM's bytes for our printed text are not ours. When LLVM's bytes print as the same
/// text, the text simply does not carry the difference (a field the printer omits at its
/// default, an encoding LLVM's matcher prefers); that is said first.
fn reason(decoder: &Decoder, inst: &Inst, ours: &Inst, llvm: &[u8]) -> String {
    let e = inst.encoding().unwrap();
    let theirs = decoder.decode(llvm);
    let target = decoder.target();
    let same_text = theirs.len() == llvm.len() && print::print(&theirs, target, 0) == print::print(inst, target, 0);
    let prefix = if same_text { "same text: " } else { "DIFFERENT TEXT: " };
    prefix.to_owned() + &match theirs.encoding() {
        Some(t) if !std::ptr::eq(t, e) => format!("LLVM picks another encoding for the text ({:?} {}-bit -> {:?} {}-bit)", e.variant, e.bits, t.variant, t.bits),
        None => "LLVM's bytes do not decode".to_owned(),
        Some(_) if theirs.len() != ours.len() => "same encoding, another length".to_owned(),
        Some(_) => {
            let names = common::differing_fields(e, ours.encoded_bits(), theirs.encoded_bits());
            if names.is_empty() {
                "same encoding, bits outside operand fields differ".to_owned()
            } else {
                format!("same encoding, LLVM writes other bits in {}", names.join(","))
            }
        }
    }
}

/// Our assembler (parser + encoder) on `text`, which LLVM assembled to `theirs`: the same bytes,
/// a refusal (counted by reason), or other bytes (a bug, counted apart).
fn compare_assemblers(tally: &mut Tally, parser: &Parser, decoder: &Decoder, (cpu, mattr): (&str, &str), text: &str, theirs: &[u8]) {
    tally.llvm_accepted_assembled += 1;
    let (why, detail) = match parser.parse(text) {
        Ok(p) if p.inst.bytes() == theirs => {
            tally.assembled_same += 1;
            return;
        }
        // LLVM 19 in-process is not llvm-mc: `getDefaultDepCtrEncoding` keeps the first
        // subtarget's default in a function-level static, so after gfx1010 (no
        // `depctr_hold_cnt` field) every later target's `s_waitcnt_depctr` leaves that bit clear.
        // llvm-mc, one process per target, is the oracle the README names; where it agrees with
        // us, the difference is LLVM's.
        Ok(p) if llvm_mc_bytes(cpu, mattr, text).as_deref() == Some(&p.inst.bytes()[..]) => (
            "LLVM in-process differs from llvm-mc-19, which gives our bytes (LLVM's process-wide depctr default)".to_owned(),
            format!("ours {}", hex(&p.inst.bytes())),
        ),
        Ok(p) => {
            tally.assembled_other += 1;
            (format!("OTHER BYTES: {}", reason(decoder, &p.inst, &p.inst, theirs)), format!("ours {}", hex(&p.inst.bytes())))
        }
        Err(e) => ("our parser refuses".to_owned(), e.to_string()),
    };
    let entry = tally.assembled_different.entry(why).or_insert((0, format!("`{text}` llvm {} {detail}", hex(theirs))));
    entry.0 += 1;
}

/// `llvm-mc-19 -show-encoding` on one line: its bytes, or `None` when it does not assemble it.
fn llvm_mc_bytes(cpu: &str, mattr: &str, text: &str) -> Option<Vec<u8>> {
    use std::io::Write as _;
    let mut child = std::process::Command::new("llvm-mc-19")
        .args(["-triple=amdgcn", &format!("-mcpu={cpu}"), &format!("-mattr={mattr}"), "-show-encoding"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("llvm-mc-19 is required (scripts/setup.sh installs it)");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).ok()?;
    let list = out.split("encoding: [").nth(1)?.split(']').next()?;
    list.split(',').map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok()).collect()
}

/// LLVM's bytes for a line, decoded by us and encoded canonically, must be LLVM's bytes.
fn re_encode(decoder: &Decoder, llvm: &[u8]) -> Result<(), String> {
    let target = decoder.target();
    let inst = decoder.decode(llvm);
    let Some(e) = inst.encoding().filter(|_| inst.len() == llvm.len()) else {
        return Err("our decoder does not read LLVM's bytes whole".to_owned());
    };
    let bytes = inst.bytes();
    let ops = decode_operands(e, inst.encoded_bits(), &bytes[inst.tail_at()..], target).map_err(|f| format!("{f:?}"))?;
    match encode(e, &ops, target) {
        Ok(ours) if ours.bytes() == llvm => Ok(()),
        Ok(ours) => Err(format!("{} ours {}", e.record_name(), hex(&ours.bytes()))),
        Err(err) => Err(format!("{}: {err}", e.record_name())),
    }
}

#[test]
fn random_instructions_encode_like_llvm() {
    let count: usize = std::env::var("GFXPATCH_DIFF_COUNT").ok().and_then(|c| c.parse().ok()).unwrap_or(10_000);
    let assemble_every = match std::env::var("GFXPATCH_DIFF_ASSEMBLE").as_deref() {
        Ok("all") => 1,
        _ if cfg!(debug_assertions) => 8,
        _ => 1,
    };
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut rng = Rng::new(0x6766_7870_6174_6368);
    for (cpu, mattr) in TARGETS {
        let target = Target::from_name(cpu, mattr).unwrap();
        let decoder = Decoder::new(target);
        let parser = Parser::new(target);
        let mut llvm = LlvmAssembler::new(&target).unwrap();
        let tally = tallies.entry(format!("{} ({cpu})", target.generation().name())).or_default();
        // Draw until `count` lines LLVM assembles have been compared: LLVM 19 rejects some
        // printed text (out-of-range offsets it checks, `tfe` on stores, invalid DPP controls),
        // and those are drawn past, counted by reason.
        let mut rounds = 0;
        while tally.llvm_accepted < count && rounds < 10 {
            rounds += 1;
            let need = count - tally.llvm_accepted;
            let insts = sample(&target, need + need / 4 + 16, &mut rng);
            let mut texts = Vec::with_capacity(insts.len());
            let mut ours = Vec::with_capacity(insts.len());
            for inst in &insts {
                let e = inst.encoding().unwrap();
                let bytes = inst.bytes();
                let ops = decode_operands(e, inst.encoded_bits(), &bytes[inst.tail_at()..], &target).unwrap();
                ours.push(encode(e, &ops, &target));
                texts.push(print::print(inst, &target, 0));
            }
            let lines: Vec<&str> = texts.iter().map(String::as_str).collect();
            let theirs = llvm.assemble_each(&lines).unwrap();
            for ((inst, text), (ours, theirs)) in insts.iter().zip(&texts).zip(ours.iter().zip(theirs)) {
                if tally.llvm_accepted == count {
                    break;
                }
                tally.total += 1;
                if let Ok(theirs) = &theirs {
                    tally.llvm_accepted += 1;
                    match re_encode(&decoder, theirs) {
                        Ok(()) => tally.llvm_re_encoded += 1,
                        Err(why) => tally.re_encode_failures.push(format!("`{text}` llvm {}: {why}", hex(theirs))),
                    }
                    // The two assemblers on the same text (in a debug build every eighth line:
                    // parsing is slow unoptimised; release and GFXPATCH_DIFF_ASSEMBLE=all take all).
                    if tally.llvm_accepted % assemble_every == 0 {
                        compare_assemblers(tally, &parser, &decoder, (cpu, mattr), text, theirs);
                    }
                }
                let example = |detail: &str| format!("`{text}` {} {detail}", hex(&inst.bytes()));
                let (why, example) = match (ours, theirs) {
                    (Ok(ours), Ok(theirs)) if ours.bytes() == theirs => {
                        tally.same += 1;
                        continue;
                    }
                    (Ok(ours), Ok(theirs)) => {
                        (reason(&decoder, inst, ours, &theirs), example(&format!("ours {} llvm {}", hex(&ours.bytes()), hex(&theirs))))
                    }
                    (Err(err), _) => (format!("our encoder refuses: {err:?}").split(" {").next().unwrap().to_owned(), example(&err.to_string())),
                    (Ok(_), Err(message)) => {
                        let short: String = message.split(['(', ':', '\n']).next().unwrap_or("").trim().to_owned();
                        (format!("LLVM 19 does not take the printed text back: {short}"), example(&message))
                    }
                };
                let entry = tally.reasons.entry(why).or_insert((0, example));
                entry.0 += 1;
            }
        }
        assert_eq!(tally.llvm_accepted, count, "{cpu}: only {} random instructions LLVM assembles after {} drawn", tally.llvm_accepted, tally.total);
    }
    let mut report = format!("differential: random instructions drawn until {count} per generation are assembled by LLVM 19, ours vs LLVM 19's assembler on our printed text\n");
    for (group, t) in &tallies {
        let count = |prefix: &str| t.reasons.iter().filter(|(why, _)| why.starts_with(prefix)).map(|(_, (n, _))| n).sum::<usize>();
        report.push_str(&format!(
            "{group:18} {:6}/{:6} of the lines LLVM assembles identical ({:.3}%); drawn {}, of which LLVM 19 rejects the text: {}; LLVM's bytes print the same text: {}; print differently: {}; our encoder refuses: {}\n",
            t.same,
            t.llvm_accepted,
            100.0 * t.same as f64 / t.llvm_accepted.max(1) as f64,
            t.total,
            count("LLVM 19 does not"),
            count("same text"),
            count("DIFFERENT"),
            count("our encoder"),
        ));
        report.push_str(&format!(
            "{:18} LLVM's own bytes, decoded and canonically re-encoded: {}/{} identical\n",
            "",
            t.llvm_re_encoded,
            t.llvm_accepted
        ));
        for failure in t.re_encode_failures.iter().take(10) {
            report.push_str(&format!("    re-encode: {failure}\n"));
        }
        report.push_str(&format!(
            "{:18} our assembler (parse + encode) on the same text: {}/{} identical to LLVM's bytes ({:.3}%)\n",
            "",
            t.assembled_same,
            t.llvm_accepted_assembled,
            100.0 * t.assembled_same as f64 / t.llvm_accepted_assembled.max(1) as f64
        ));
        for (why, (n, example)) in &t.assembled_different {
            report.push_str(&format!("    assembler {n:6} {why}\n           e.g. {example}\n"));
        }
        let mut reasons: Vec<_> = t.reasons.iter().collect();
        reasons.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
        for (why, (n, example)) in reasons {
            report.push_str(&format!("    {n:6} {why}\n           e.g. {example}\n"));
        }
    }
    eprintln!("{report}");
    let _ = std::fs::write(common::repo().join("target/encode-differential.txt"), &report);
    // The floors hold for the default sample; other counts draw other instructions.
    if count == 10_000 {
        check_floors(&tallies, &report);
    }
    for (group, t) in &tallies {
        assert_eq!(t.llvm_re_encoded, t.llvm_accepted, "{group}: LLVM's bytes do not all re-encode to themselves\n{report}");
        // Our assembler on the text LLVM assembles: LLVM's bytes, or a refusal that says why
        // (`exp ... compr` text naming a register the compressed form does not encode, which
        // LLVM drops); never other bytes. Issue 4's goal is 99.5 % per generation.
        assert_eq!(t.assembled_other, 0, "{group}: our assembler writes other bytes than LLVM's for the same text\n{report}");
        let rate = 100.0 * t.assembled_same as f64 / t.llvm_accepted_assembled.max(1) as f64;
        assert!(rate >= 99.5, "{group}: our assembler gives LLVM's bytes for {rate:.3}% of the text LLVM assembles, below 99.5%\n{report}");
    }
}

/// Identical-byte rates may not fall below the golden floors (`GFXPATCH_BLESS=1` rewrites them).
fn check_floors(tallies: &BTreeMap<String, Tally>, report: &str) {
    let golden = common::repo().join("tests/golden/encode-canonical-rates.txt");
    let prefix = "differential";
    let rates: BTreeMap<String, f64> = tallies
        .iter()
        .map(|(g, t)| (format!("{prefix} {}", g.replace(' ', "_")), 100.0 * t.same as f64 / t.llvm_accepted.max(1) as f64))
        .collect();
    let existing = std::fs::read_to_string(&golden).unwrap_or_default();
    if std::env::var("GFXPATCH_BLESS").is_ok_and(|v| v == "1") {
        let mut lines: BTreeMap<String, String> = existing
            .lines()
            .filter_map(|l| l.rsplit_once(' ').map(|(k, v)| (k.to_owned(), v.to_owned())))
            .filter(|(k, _)| !k.starts_with(&format!("{prefix} ")))
            .collect();
        for (k, r) in &rates {
            // A little slack: the floor holds for smaller GFXPATCH_DIFF_COUNT samples too.
            lines.insert(k.clone(), format!("{:.1}", ((r - 1.0).max(0.0) * 10.0).floor() / 10.0));
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
            "{key}: {rate:.3}% of random instructions encode like LLVM, below the floor {floor}% \
             (tests/golden/encode-canonical-rates.txt; GFXPATCH_BLESS=1 after an improvement)\n{report}"
        );
    }
}
