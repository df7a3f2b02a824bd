//! gfx1250's `s_add_pc_i64` in the rewrite engine, on fixtures/gfx1250/rewrite_add_pc.asm.co
//! (fixtures/src/rewrite_add_pc.s): an immediate `s_add_pc_i64` is a direct branch to the next
//! instruction plus the offset, with a CFG edge, re-encoded by the layout (growing to a literal
//! form when the offset no longer fits); `s_add_pc_i64 s[N:N+1]` is a branch when constant moves
//! in its block prove the pair (their constant re-aimed), else the function is opaque.
//!
//! LLVM 19 knows no gfx1250, so LLVM's tools are not the oracle here: our decoder (98 % of LLVM
//! 22's gfx1250 assembler vectors, 100 % of its s_add_pc_i64 ones) and `gfxpatch verify` are.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{gfxpatch, repo};
use gfxpatch::container::CodeObject;
use gfxpatch::ir::{BranchTarget, Flow, Program};
use gfxpatch::isa::{print, Decoder};
use gfxpatch::rewrite::read_program;

fn fixture() -> PathBuf {
    repo().join("fixtures/gfx1250/rewrite_add_pc.asm.co")
}

fn program(data: &[u8]) -> Program {
    let object = CodeObject::parse(data).unwrap();
    read_program(&object).unwrap().unwrap()
}

/// Every instruction of `.text` by address: (text, length).
fn listing(data: &[u8]) -> BTreeMap<u64, (String, u64)> {
    let p = program(data);
    let object = CodeObject::parse(data).unwrap();
    let text = object.text_sections().next().copied().unwrap();
    let bytes = &data[text.offset as usize..(text.offset + text.size) as usize];
    let decoder = Decoder::new(p.target);
    let mut out = BTreeMap::new();
    for f in &p.functions {
        for n in f.nodes() {
            let a = n.origin.input_address().unwrap();
            let inst = decoder.decode(&bytes[(a - text.address) as usize..]);
            out.insert(a, (print::print(&inst, &p.target, a), inst.len() as u64));
        }
    }
    out
}

fn rewrite(input: &Path, output: &Path, passes: Option<&str>) -> serde_json::Value {
    let report = output.with_extension("json");
    let mut args = vec!["rewrite", input.to_str().unwrap(), "-o", output.to_str().unwrap(), "--report", report.to_str().unwrap()];
    if let Some(p) = passes {
        args.extend(["--passes", p]);
    }
    let o = gfxpatch(&args);
    assert!(o.status.success(), "gfxpatch {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap()
}

/// Where each `s_add_pc_i64` (and the proven pair's) goes: (its address, target address).
fn add_pc_targets(data: &[u8]) -> Vec<(String, u64, u64)> {
    let p = program(data);
    let mut out = Vec::new();
    for f in &p.functions {
        for (bi, b) in f.blocks.iter().enumerate() {
            let last = b.nodes.last().unwrap();
            if let Flow::AddPc(BranchTarget::Block(t)) = last.flow {
                let at = last.origin.input_address().unwrap();
                assert_eq!(*b.successors, [t], "{} block {bi}: the only successor is the target", f.name);
                out.push((f.name.clone(), at, f.blocks[t].address));
            }
        }
    }
    out
}

#[test]
fn fixture_words_are_the_instructions_the_source_names() {
    let data = std::fs::read(fixture()).unwrap();
    let object = CodeObject::parse(&data).unwrap();
    assert_eq!(object.target.processor.name, "gfx1250");
    assert_eq!(object.metadata.as_ref().and_then(|m| m.target.as_deref()), Some("amdgcn-amd-amdhsa--gfx1250"));
    let l = listing(&data);
    let texts: Vec<&str> = l.values().map(|(t, _)| t.as_str()).filter(|t| t.starts_with("s_add_pc_i64") || t.contains("_pc_i64")).collect();
    assert_eq!(
        texts,
        [
            "s_set_pc_i64 s[30:31]",
            "s_add_pc_i64 4",
            "s_add_pc_i64 -16",
            "s_add_pc_i64 lit(0x8)",
            "s_add_pc_i64 0xffffffffffffffe8",
            "s_get_pc_i64 s[4:5]",
            "s_swap_pc_i64 s[30:31], s[4:5]",
            "s_get_pc_i64 s[6:7]",
            "s_swap_pc_i64 s[30:31], s[6:7]",
            "s_add_pc_i64 s[2:3]",
            "s_add_pc_i64 s[2:3]",
            "s_add_pc_i64 s[2:3]",
        ]
    );
    // Our assembler (checked against LLVM 22's vectors) writes the same words for gfx1250.
    for (text, bytes) in [
        ("s_add_pc_i64 4", "[0x84,0x4b,0x80,0xbe]"),
        ("s_add_pc_i64 -16", "[0xd0,0x4b,0x80,0xbe]"),
        ("s_add_pc_i64 8", "[0x88,0x4b,0x80,0xbe]"),
        ("s_add_pc_i64 s[2:3]", "[0x02,0x4b,0x80,0xbe]"),
        ("s_get_pc_i64 s[4:5]", "[0x00,0x47,0x84,0xbe]"),
    ] {
        let o = gfxpatch(&["asm", "--target", "gfx1250", text]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(&format!("encoding: {bytes}")), "{text}: {out}");
    }
}

#[test]
fn add_pc_is_a_direct_branch_and_only_the_unproven_pair_is_opaque() {
    let data = std::fs::read(fixture()).unwrap();
    let p = program(&data);
    let opaque: Vec<(&str, &str)> = p.functions.iter().filter_map(|f| f.opaque.as_ref().map(|o| (f.name.as_str(), o.reason.as_str()))).collect();
    assert_eq!(opaque, [("add_pc_unknown", "s_add_pc_i64 s[2:3]: the pair is not proven constant within its block")]);
    // Edges: next instruction + offset, each the block the source's label names.
    assert_eq!(
        add_pc_targets(&data),
        [
            ("add_pc_direct".to_owned(), 0x1b08, 0x1b10), // 4: over s_mov_b32 s0, 7
            ("add_pc_direct".to_owned(), 0x1b1c, 0x1b10), // -16: back to .Lspin
            ("add_pc_direct".to_owned(), 0x1b20, 0x1b30), // lit 8: to .Lloop
            ("add_pc_direct".to_owned(), 0x1b3c, 0x1b30), // lit64 -24: back to .Lloop
            ("add_pc_pair".to_owned(), 0x1c10, 0x1c18),   // s[2:3] = 4: to .Lpair_target
            ("add_pc_pair64".to_owned(), 0x1e0c, 0x1e14), // s[2:3] = lit64(4)
        ]
    );
    // Both call chains are recovered: s_get_pc_i64 + two 32-bit adds, and + one s_add_nc_u64.
    let chains = &p.functions.iter().find(|f| f.name == "add_pc_direct").unwrap().pcrel;
    let summary: Vec<(u64, bool, u64)> = chains.iter().map(|c| (c.getpc, c.is_wide(), c.target)).collect();
    assert_eq!(summary, [(0x1b48, false, 0x1a00), (0x1b64, true, 0x1a00)]);
    let pair = &p.functions.iter().find(|f| f.name == "add_pc_pair").unwrap().add_pc_pairs;
    assert_eq!(pair.len(), 1);
    assert_eq!((pair[0].lo, pair[0].hi, pair[0].sgpr), (0x1c04, Some(0x1c0c), 2));
    let pair64 = &p.functions.iter().find(|f| f.name == "add_pc_pair64").unwrap().add_pc_pairs;
    assert_eq!((pair64[0].lo, pair64[0].hi), (0x1e00, None));
    // The skipped instructions are blocks nothing reaches but the fall-through into them.
    let f = p.functions.iter().find(|f| f.name == "add_pc_direct").unwrap();
    let preds = |addr: u64| {
        let b = f.block_at(addr).unwrap();
        f.blocks.iter().filter(|x| x.successors.contains(&b)).count()
    };
    assert_eq!(preds(0x1b0c), 0, "s_mov_b32 s0, 7 follows an unconditional s_add_pc_i64");
    assert_eq!(preds(0x1b10), 3, ".Lspin: from the s_add_pc_i64 4, its fall-through block and the -16 loop back");
}

#[test]
fn insert_nops_re_encodes_every_offset_and_verify_accepts_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture();
    let out = dir.path().join("nops.co");
    let report = rewrite(&input, &out, Some("insert-nops"));
    assert_eq!(report["refused"].as_array().unwrap().len(), 0, "{report}");
    assert_eq!(report["functions_opaque"].as_array().unwrap().len(), 1, "{report}");
    let before = std::fs::read(&input).unwrap();
    let after = std::fs::read(&out).unwrap();
    // The same s_add_pc_i64 reach the same instructions, moved: decode the output and follow
    // each one to the first input instruction at or after where it lands.
    let old = add_pc_targets(&before);
    let new = add_pc_targets(&after);
    assert_eq!(old.len(), new.len());
    let (lo, ln) = (listing(&before), listing(&after));
    let first_real = |l: &BTreeMap<u64, (String, u64)>, a: u64| l.range(a..).find(|(_, (t, _))| t != "s_nop 0").map(|(_, (t, _))| t.clone()).unwrap();
    for ((f, a0, t0), (g, a1, t1)) in old.iter().zip(&new) {
        assert_eq!(f, g);
        assert_eq!(first_real(&lo, *t0), first_real(&ln, *t1), "{f}: s_add_pc_i64 at {a0:#x} (now {a1:#x}) reaches another instruction");
        assert_eq!(ln[t1].0, "s_nop 0", "{f}: the target is the block start, with its inserted s_nop");
    }
    // The forms: inline 4 stays inline (now 8); inline -16 no longer fits and a 32-bit literal
    // cannot hold a negative offset, so it became a 64-bit literal; the literals stayed.
    let texts: Vec<(String, u64)> = new.iter().map(|(_, a, _)| ln[a].clone()).collect();
    assert_eq!(
        texts,
        [
            ("s_add_pc_i64 8".to_owned(), 4),
            ("s_add_pc_i64 0xffffffffffffffe0".to_owned(), 12),
            ("s_add_pc_i64 lit(0xc)".to_owned(), 8),
            ("s_add_pc_i64 0xffffffffffffffe0".to_owned(), 12),
            ("s_add_pc_i64 s[2:3]".to_owned(), 4),
            ("s_add_pc_i64 s[2:3]".to_owned(), 4),
        ]
    );
    // The one-add call chain still reaches add_one (at 0x1a00, with its inserted s_nop).
    let (getpc, _) = ln.iter().find(|(_, (t, _))| t == "s_get_pc_i64 s[6:7]").unwrap();
    assert_eq!(ln[&(getpc + 4)].0, format!("s_add_nc_u64 s[6:7], s[6:7], {:#x}", 0x1a00u64.wrapping_sub(getpc + 4)));
    // The pair's move was re-aimed: s2 = 8 now.
    assert!(ln.values().any(|(t, _)| t == "s_mov_b32 s2, lit(0x8)"), "{ln:?}");
    assert!(ln.values().any(|(t, _)| t == "s_mov_b64 s[2:3], lit64(0x8)"), "{ln:?}");
    let o = gfxpatch(&["verify", out.to_str().unwrap()]);
    assert!(o.status.success(), "gfxpatch verify: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
}

#[test]
fn identity_and_round_trip_give_the_input_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture();
    let data = std::fs::read(&input).unwrap();
    for passes in [None, Some("insert-nops,remove-nops")] {
        let out = dir.path().join("out.co");
        rewrite(&input, &out, passes);
        assert!(data == std::fs::read(&out).unwrap(), "{passes:?}: the output differs from the input");
    }
}

#[test]
fn verify_rejects_an_add_pc_into_the_middle_of_an_instruction() {
    // s_add_pc_i64 4 at 0x1b08 aimed 2 bytes further: into the middle of s_mov_b32 s0, 7.
    let mut data = std::fs::read(fixture()).unwrap();
    let object = CodeObject::parse(&data).unwrap();
    let text = object.text_sections().next().copied().unwrap();
    let at = (text.offset + 0x1b08 - text.address) as usize;
    assert_eq!(data[at..at + 4], [0x84, 0x4b, 0x80, 0xbe]);
    data[at] = 0x86;
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.co");
    std::fs::write(&bad, &data).unwrap();
    let o = gfxpatch(&["verify", bad.to_str().unwrap()]);
    let said = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(!o.status.success() && said.contains("branch at 0x1b08 to 0x1b12, which is not an instruction start"), "{said}");
}

/// The fixture with `patch(bytes of .text, text address)` applied, written to `dir`.
fn patched(dir: &Path, name: &str, patch: impl FnOnce(&mut [u8], u64)) -> PathBuf {
    let mut data = std::fs::read(fixture()).unwrap();
    let (offset, size, address) = {
        let object = CodeObject::parse(&data).unwrap();
        let text = object.text_sections().next().copied().unwrap();
        (text.offset as usize, text.size as usize, text.address)
    };
    patch(&mut data[offset..offset + size], address);
    let path = dir.join(name);
    std::fs::write(&path, &data).unwrap();
    path
}

#[test]
fn a_32_bit_literal_with_bit_31_set_is_not_guessed() {
    // lit(0x8) at 0x1b20 becomes lit(0x80000008): zero- or sign-extended is not established.
    let dir = tempfile::tempdir().unwrap();
    let path = patched(dir.path(), "bit31.co", |text, base| {
        let at = (0x1b24 - base) as usize;
        assert_eq!(text[at..at + 4], [8, 0, 0, 0]);
        text[at + 3] = 0x80;
    });
    let p = program(&std::fs::read(&path).unwrap());
    let f = p.functions.iter().find(|f| f.name == "add_pc_direct").unwrap();
    let o = f.opaque.as_ref().expect("add_pc_direct must be opaque");
    assert_eq!(o.address, 0x1b20);
    assert!(o.reason.contains("bit 31 set"), "{}", o.reason);
    // The rewrite leaves it untouched and says so.
    let out = dir.path().join("out.co");
    let report = rewrite(&path, &out, Some("insert-nops"));
    let opaque = report["functions_opaque"].to_string();
    assert!(opaque.contains("add_pc_direct") && opaque.contains("bit 31 set"), "{opaque}");
}

#[test]
fn a_pair_read_after_the_jump_is_not_re_aimed() {
    // s_add_co_u32 s0, s0, 3 at the pair's target becomes s_add_co_u32 s0, s2, 3: changing s2's
    // constant would change what it adds, so the object is refused (kept as it was).
    let dir = tempfile::tempdir().unwrap();
    let path = patched(dir.path(), "live.co", |text, base| {
        let at = (0x1c18 - base) as usize;
        assert_eq!(text[at..at + 4], [0x00, 0x83, 0x00, 0x80]);
        text[at] = 0x02;
    });
    let input = std::fs::read(&path).unwrap();
    assert!(program(&input).functions.iter().all(|f| f.name == "add_pc_unknown" || f.opaque.is_none()));
    let out = dir.path().join("out.co");
    let report = rewrite(&path, &out, Some("insert-nops"));
    let refused = report["refused"].to_string();
    assert!(refused.contains("s[2:3] is read after the jump"), "{report}");
    assert!(input == std::fs::read(&out).unwrap(), "a refused object is written unchanged");
    // The identity needs no new constant and goes through.
    let report = rewrite(&path, &out, None);
    assert_eq!(report["refused"].as_array().unwrap().len(), 0, "{report}");
}

/// The fixture is assembled by llvm-mc-19 as gfx1200, with the gfx1250-only instructions
/// written as data words, then marked gfx1250 (fixtures/build.sh). That is sound only if every
/// other word means on gfx1250 what llvm-mc meant on gfx1200. Two checks that could each fail:
/// our gfx1250 assembler (checked against LLVM 22's gfx1250 vectors) writes each instruction's
/// bytes back from its gfx1250 text, and llvm-objdump-19 reading the bytes as gfx1200 finds an
/// instruction with the same words at the same address, except the data words themselves.
#[test]
fn every_fixture_word_is_what_gfx1250_assembles_from_its_text() {
    use gfxpatch::isa::parse::Parser;
    let data = std::fs::read(fixture()).unwrap();
    let p = program(&data);
    let object = CodeObject::parse(&data).unwrap();
    let text = object.text_sections().next().copied().unwrap();
    let bytes = &data[text.offset as usize..(text.offset + text.size) as usize];
    let decoder = Decoder::new(p.target);
    let parser = Parser::new(p.target);

    let objdump = common::llvm_tool("llvm-objdump-19", &["-d", "--mcpu=gfx1200", fixture().to_str().unwrap()]);
    // `\t<text>  // 000000001B08: BE804B84 ...` -> address -> words
    let mut llvm_words = BTreeMap::new();
    for line in objdump.lines() {
        if let Some((_, tail)) = line.split_once("// ")
            && let Some((addr, words)) = tail.split_once(": ")
            && let Ok(addr) = u64::from_str_radix(addr, 16)
        {
            let words: String = words.split_whitespace().take_while(|w| w.len() == 8).collect::<Vec<_>>().join(" ");
            llvm_words.insert(addr, words);
        }
    }

    let (mut reassembled, mut same_boundaries) = (0, 0);
    for (&address, (printed, len)) in &listing(&data) {
        let at = (address - text.address) as usize;
        let original = &bytes[at..at + *len as usize];
        let inst = decoder.decode(original);
        let text0 = print::print(&inst, &p.target, 0);
        let parsed = parser.parse(&text0).unwrap_or_else(|e| panic!("{address:#x} `{text0}`: {e}"));
        assert_eq!(parsed.inst.bytes(), original, "{address:#x}: `{printed}` does not assemble to the fixture's bytes on gfx1250");
        reassembled += 1;
        let data_word = printed.contains("_pc_i64") && !printed.starts_with("s_set") && !printed.starts_with("s_swap") && !printed.starts_with("s_get")
            || printed.starts_with("s_add_nc_u64")
            || printed.contains("lit64");
        if !data_word {
            let ours: Vec<String> = original.chunks(4).map(|w| format!("{:08X}", u32::from_le_bytes(w.try_into().unwrap()))).collect();
            assert_eq!(llvm_words.get(&address), Some(&ours.join(" ")), "{address:#x}: `{printed}` is not one gfx1200 instruction to llvm-objdump-19");
            same_boundaries += 1;
        }
    }
    assert!(reassembled >= 40 && same_boundaries >= 30, "{reassembled} reassembled, {same_boundaries} checked against llvm-objdump-19");
}

/// `gfxpatch bench decode` on an object LLVM 19 cannot decode: it used to create LLVM's
/// disassembler for gfx1250 anyway, and LLVM aborted the process ("Disassembly not yet
/// supported for subtarget", exit by SIGABRT). Now the comparison leaves the object out and,
/// with nothing left to compare, says so; `--decode-only` measures ours on it.
#[test]
fn bench_leaves_out_objects_llvm_19_cannot_decode() {
    let file = fixture();
    let file = file.to_str().unwrap();
    let output = gfxpatch(&["bench", "decode", file]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("LLVM ERROR") && !stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains(file) && stderr.contains("in-process LLVM 19"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("left out: 1 code object(s) for gfx1250"), "{stdout}");

    let output = gfxpatch(&["bench", "decode", file, "--decode-only"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("gfxpatch decode only:") && !stdout.contains("left out"), "{stdout}");
}

/// Every command that makes LLVM's disassembler refuses a target LLVM 19 does not know in the
/// same words, naming the input where there is one, without LLVM's abort (`bench rewrite`
/// and `decode --llvm` used to say it in words of their own, the former without the file).
#[test]
fn commands_refuse_targets_llvm_19_cannot_decode_in_one_wording() {
    let file = fixture();
    let file = file.to_str().unwrap();
    let refusal = "gfx1250 needs LLVM 22, and the in-process LLVM is 19";
    for args in [vec!["disasm", file, "--backend", "llvm"], vec!["bench", "rewrite", file]] {
        let output = gfxpatch(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(!output.status.success(), "{args:?}: {stdout}");
        assert!(!stderr.contains("LLVM ERROR") && !stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.contains(file) && stderr.contains(refusal), "{args:?}: {stderr}");
    }
    let output = gfxpatch(&["decode", "--target", "gfx950", "--llvm", "00", "00", "80", "bf"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("gfx950 needs LLVM 22, and the in-process LLVM is 19"), "{stderr}");
}
