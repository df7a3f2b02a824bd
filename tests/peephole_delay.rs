//! `s_delay_alu` under the peephole (issue 34, item 4): a rewrite between or around delays
//! rewrites the delays so that each still waits for the instruction it waited for.
//!
//! - Every block of every GFX11/GFX12 fixture clang-19 built reads back exactly: our model of
//!   a delay (waits between instructions, re-packed as LLVM's `AMDGPUInsertDelayAlu` packs
//!   them) reproduces LLVM's delays bit for bit on code we did not write.
//! - `fixtures/src/peephole_delay.s`, assembled by llvm-mc-19 for gfx1100 and gfx1201, is
//!   rewritten: the cases that must fire fire and the near misses are declined `delay-alu`;
//!   every delay in the output again reads back exactly and names the producer it named before
//!   (checked by name below, not only against the golden file); `gfxpatch verify` accepts the
//!   output; LLVM's disassembly is golden in `tests/golden/peephole-delay.txt`
//!   (`GFXPATCH_BLESS=1` rewrites it after a reviewed change).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{code_object_fixtures, gfxpatch, llvm_tool, repo};
use gfxpatch::container::CodeObject;
use gfxpatch::ir::delay::Stream;
use gfxpatch::isa::Inst;

/// The delays of every block of a code object (but the functions in `except`): (blocks with a
/// delay, delays), or the first block that does not read back exactly.
fn read_back(file: &Path, except: &[&str]) -> Result<(usize, usize), String> {
    let data = std::fs::read(file).unwrap();
    let object = CodeObject::parse(&data).unwrap();
    let program = gfxpatch::rewrite::read_program(&object).unwrap().unwrap();
    let (mut blocks, mut delays) = (0, 0);
    for f in program.functions.iter().filter(|f| !except.contains(&f.name.as_str())) {
        for b in &f.blocks {
            let insts: Vec<Inst> = b.nodes.iter().map(|n| n.inst).collect();
            let stream = Stream::read(&insts).map_err(|e| format!("{} {}: {:#x}: {}", file.display(), f.name, b.address, e.0))?;
            if !stream.canonical() {
                return Err(format!("{} {}: block {:#x} does not read back: {:?}", file.display(), f.name, b.address, stream.delays));
            }
            let n = stream.delays.iter().flatten().count();
            blocks += usize::from(n > 0);
            delays += n;
        }
    }
    Ok((blocks, delays))
}

#[test]
fn llvm_delays_read_back_exactly() {
    let files: Vec<PathBuf> = code_object_fixtures()
        .into_iter()
        .filter(|p| {
            let dir = p.parent().unwrap().file_name().unwrap().to_str().unwrap();
            dir.starts_with("gfx11") || dir.starts_with("gfx12")
        })
        .collect();
    assert!(files.len() >= 30, "{files:?}");
    let (mut blocks, mut delays) = (0, 0);
    for f in &files {
        let (b, d) = read_back(f, &[]).unwrap_or_else(|e| panic!("{e}"));
        blocks += b;
        delays += d;
    }
    // A model that read nothing would pass trivially.
    assert!(delays >= 500 && blocks >= 100, "{blocks} blocks, {delays} delays");
}

const TARGETS: &[&str] = &["gfx1100", "gfx1201"];

fn build(dir: &Path, target: &str) -> PathBuf {
    let source = std::fs::read_to_string(repo().join("fixtures/src/peephole_delay.s")).unwrap();
    let s = dir.join(format!("{target}.s"));
    std::fs::write(&s, source.replace("@TARGET@", target)).unwrap();
    let o = dir.join(format!("{target}.o"));
    let co = dir.join(format!("{target}.co"));
    llvm_tool("llvm-mc-19", &["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={target}"), "-filetype=obj", s.to_str().unwrap(), "-o", o.to_str().unwrap()]);
    llvm_tool("ld.lld-19", &["-shared", o.to_str().unwrap(), "-o", co.to_str().unwrap()]);
    co
}

/// `llvm-objdump-19 -d` per kernel, without addresses, padding and encodings.
fn disassembly(file: &Path, target: &str) -> BTreeMap<String, Vec<String>> {
    let text = llvm_tool("llvm-objdump-19", &["-d", "--no-show-raw-insn", &format!("--mcpu={target}"), file.to_str().unwrap()]);
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = None;
    for line in text.lines() {
        if let Some(name) = line.strip_suffix(">:").and_then(|l| l.split_once(" <")).map(|(_, n)| n.to_owned()) {
            current = Some(name);
            continue;
        }
        let (Some(name), line) = (&current, line.trim()) else { continue };
        assert!(!line.contains("<unknown>"), "{}: {line}", file.display());
        let text = line.split_once("//").map_or(line, |(t, _)| t).trim();
        if text.is_empty() || text.starts_with("s_code_end") || (text == "s_nop 0") {
            continue;
        }
        out.entry(name.clone()).or_default().push(text.to_owned());
    }
    out
}

#[test]
fn peephole_rewrites_delays_with_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let mut golden = String::new();
    for target in TARGETS {
        let input = build(dir.path(), target);
        let output = dir.path().join(format!("{target}.out.co"));
        let o = gfxpatch(&["rewrite", input.to_str().unwrap(), "-o", output.to_str().unwrap(), "--passes", "peephole", "--explain"]);
        let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned());
        assert!(o.status.success() && stderr.is_empty(), "{target}: {stderr}");
        let v = gfxpatch(&["verify", output.to_str().unwrap()]);
        assert!(v.status.success(), "{target}: gfxpatch verify: {}", String::from_utf8_lossy(&v.stdout));
        // Written as LLVM packs (the one kernel that is not stays as it was).
        read_back(&output, &["not_packed_as_llvm_packs"]).unwrap_or_else(|e| panic!("{target}: the output's delays: {e}"));

        let fired = |kernel: &str| stdout.lines().any(|l| l.starts_with(&format!("{kernel} ")) && l.contains(" => "));
        for kernel in [
            "wait_inside_the_pair",
            "wait_moves_to_the_fused",
            "distance_shrinks",
            "skip_shrinks",
            "removed_before_the_producer",
            "at_the_producer",
            "next_block_without_delays",
            "unfolded_wait_stays_unfolded",
        ] {
            assert!(fired(kernel), "{target}: {kernel} not rewritten:\n{stdout}");
        }
        for (kernel, why) in [
            ("waits_for_the_removed", "placed after it"),
            ("not_packed_as_llvm_packs", "not packed as LLVM packs it"),
            ("counted_from_the_next_block", "later block"),
            ("salu_wait_across_the_pair", "SALU_CYCLE"),
        ] {
            assert!(!fired(kernel), "{target}: {kernel} rewritten:\n{stdout}");
            assert!(
                stdout.lines().any(|l| l.starts_with(&format!("{kernel} ")) && l.contains("declined (delay-alu: ") && l.contains(why)),
                "{target}: {kernel} not declined for {why}:\n{stdout}"
            );
        }

        // Each delay waits for what it waited for (by name, independent of the golden file).
        let new = disassembly(&output, target);
        let old = disassembly(&input, target);
        let expect: &[(&str, &[&str])] = &[
            ("wait_inside_the_pair", &["v_lshl_or_b32 v3, v2, 4, v4", "s_endpgm"]),
            ("wait_moves_to_the_fused", &["v_mov_b32_e32 v2, v5", "s_delay_alu instid0(VALU_DEP_1)", "v_lshl_or_b32 v3, v2, 4, v4", "s_endpgm"]),
            ("distance_shrinks", &["v_mov_b32_e32 v7, v8", "v_lshl_or_b32 v3, v2, 4, v4", "s_delay_alu instid0(VALU_DEP_2)", "v_add_nc_u32_e32 v9, v7, v7", "s_endpgm"]),
            (
                "skip_shrinks",
                &[
                    "v_mov_b32_e32 v7, v8",
                    "s_delay_alu instid0(VALU_DEP_1) | instskip(SKIP_1) | instid1(VALU_DEP_2)",
                    "v_add_nc_u32_e32 v10, v7, v7",
                    "v_lshl_or_b32 v3, v2, 4, v4",
                    "v_add_nc_u32_e32 v9, v10, v10",
                    "s_endpgm",
                ],
            ),
            (
                "unfolded_wait_stays_unfolded",
                &[
                    "v_mov_b32_e32 v7, v8",
                    "s_delay_alu instid0(VALU_DEP_1)",
                    "v_add_nc_u32_e32 v10, v7, v7",
                    "v_lshl_or_b32 v3, v2, 4, v4",
                    "s_delay_alu instid0(VALU_DEP_2)",
                    "v_add_nc_u32_e32 v9, v10, v10",
                    "s_endpgm",
                ],
            ),
            ("at_the_producer", &["v_sub_nc_u32_e32 v4, v6, v5", "s_delay_alu instid0(VALU_DEP_1)", "v_lshl_or_b32 v3, v2, 4, v4", "v_mov_b32_e32 v2, 0", "s_endpgm"]),
        ];
        for (kernel, want) in expect {
            assert_eq!(&new[*kernel], want, "{target}: {kernel}");
        }
        // The delay after a removal before its producer keeps its bytes.
        let kept = |d: &BTreeMap<String, Vec<String>>| d["removed_before_the_producer"].iter().filter(|l| l.starts_with("s_delay_alu")).cloned().collect::<Vec<_>>();
        assert_eq!(kept(&new), vec!["s_delay_alu instid0(VALU_DEP_3)"], "{target}");
        assert_eq!(kept(&old), kept(&new));

        golden.push_str(&format!("== {target}\n{stdout}"));
        for (kernel, lines) in &new {
            if old[kernel] != *lines {
                golden.push_str(&format!("{kernel}:\n"));
                for l in lines {
                    golden.push_str(&format!("    {l}\n"));
                }
            }
        }
    }
    common::golden("peephole-delay.txt", "peephole delay cases", &golden);
}
