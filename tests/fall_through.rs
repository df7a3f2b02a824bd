//! Only a real fall-through is one. A function ending in `s_trap 2`, a halting `s_sethalt` or a
//! self-loop (a device `abort()`, `__builtin_trap()`) does not run into the next function, so
//! its padding may change like any other's. A function whose code truly runs into the next
//! stays in front of it as one placement unit: the padding moves in front of the unit, and only
//! a unit nothing can pad in front of (at the start of `.text`) is refused.
//!
//! Fixtures: `fixtures/src/trap_abort.hip` (clang-19, gfx90a and gfx1100, -O2 and -O0), and two
//! gfx900 objects assembled here with llvm-mc-19 / ld.lld-19.

mod common;

use std::path::{Path, PathBuf};

use common::{gfxpatch, llvm_tool, repo};
use gfxpatch::container::CodeObject;
use gfxpatch::ir::{Flow, Program};

fn trap_fixtures() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for t in ["gfx90a", "gfx1100"] {
        for opt in ["O2", "O0"] {
            let p = repo().join(format!("fixtures/co/{t}/trap_abort.{opt}.co"));
            assert!(p.exists(), "{} is missing: run fixtures/build.sh", p.display());
            all.push(p);
        }
    }
    all
}

fn program(bytes: &[u8]) -> Program {
    let object = CodeObject::parse(bytes).unwrap();
    gfxpatch::rewrite::read_program(&object).unwrap().unwrap()
}

/// Runs `gfxpatch rewrite IN -o OUT --passes P --report R`: (exit ok, stderr, report).
fn rewrite(input: &Path, output: &Path, passes: &str) -> (bool, String, serde_json::Value) {
    let report = output.with_extension("json");
    let o = gfxpatch(&["rewrite", input.to_str().unwrap(), "-o", output.to_str().unwrap(), "--passes", passes, "--report", report.to_str().unwrap()]);
    let json = std::fs::read(&report).map(|b| serde_json::from_slice(&b).expect("report is not JSON")).unwrap_or(serde_json::Value::Null);
    (o.status.success(), String::from_utf8_lossy(&o.stderr).into_owned(), json)
}

fn function<'p>(p: &'p Program, name: &str) -> &'p gfxpatch::ir::Function {
    p.functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function {name}"))
}

#[test]
fn trap_and_halt_end_control_flow() {
    for f in trap_fixtures() {
        let p = program(&std::fs::read(&f).unwrap());
        let abort = function(&p, "abort");
        let last = abort.blocks.last().and_then(|b| b.nodes.last()).unwrap();
        assert!(!last.flow.falls_through(), "{}: abort() ends in {:?}, which falls through", f.display(), last.flow);
        assert!(abort.padding.bytes > 0, "{}: the filler after abort() is not recognised as padding", f.display());
        // gfx90a: each `s_trap 2` halts. gfx1100 may run `s_trap 2` as a no-op, so there the
        // `s_sethalt 5` of the simulated trap after it is what halts.
        let halts = p.functions.iter().flat_map(|f| f.nodes()).filter(|n| n.flow == Flow::Halt).count();
        let expected = 2;
        assert_eq!(halts, expected, "{}: halting instructions", f.display());
        assert!(p.functions.iter().all(|f| f.opaque.is_none()), "{}: an opaque function", f.display());
    }
}

/// Regression: `s_code_end` ends control (reaching it faults) and is the filler after the last
/// function. Taken for code, every word of it became a one-instruction block: `count-blocks`
/// put 128 probes on `lds_reduce.O2.co` for gfx1100 (32 blocks of code) and the instruction
/// counts included the filler.
#[test]
fn trailing_s_code_end_words_are_padding_not_blocks() {
    let f = repo().join("fixtures/co/gfx1100/lds_reduce.O2.co");
    let p = program(&std::fs::read(&f).unwrap());
    let code_end = |inst: &gfxpatch::isa::Inst| inst.encoding().is_some_and(|e| e.opcode == gfxpatch::isa::table::Opcode::S_CODE_END);
    let filler = |n: &gfxpatch::ir::Node| code_end(&n.inst);
    for function in &p.functions {
        assert!(!function.nodes().any(filler), "{}: an s_code_end word is in a block", function.name);
    }
    let last = p.functions.iter().max_by_key(|f| f.entry).unwrap();
    assert!(last.padding.bytes >= 64, "{}: only {} bytes of padding after it", last.name, last.padding.bytes);
    assert!(last.padding.filler.as_ref().is_some_and(code_end), "{}: the padding's filler is not s_code_end", last.name);
}

#[test]
fn the_abort_and_trap_fixture_rewrites_with_insert_nops_and_peephole_verified() {
    let dir = tempfile::tempdir().unwrap();
    for f in trap_fixtures() {
        let cpu = f.parent().unwrap().file_name().unwrap().to_str().unwrap().to_owned();
        for passes in ["insert-nops", "peephole"] {
            let out = dir.path().join(format!("{cpu}.{passes}.co"));
            let (ok, stderr, report) = rewrite(&f, &out, passes);
            assert!(ok, "{}: {passes}: {stderr}", f.display());
            assert_eq!(report["refused"], serde_json::json!([]), "{}: {passes}: {stderr}", f.display());
            let v = gfxpatch(&["verify", out.to_str().unwrap()]);
            assert!(v.status.success(), "{}: {passes}: gfxpatch verify: {}", f.display(), String::from_utf8_lossy(&v.stdout));
            let o = std::process::Command::new("llvm-objdump-19").args(["-d", &format!("--mcpu={cpu}"), out.to_str().unwrap()]).output().expect("llvm-objdump-19");
            assert!(o.status.success() && o.stderr.is_empty(), "{}: llvm-objdump-19: {}", f.display(), String::from_utf8_lossy(&o.stderr));
            if passes != "insert-nops" {
                continue;
            }
            // abort() grew and the kernel after it still starts 256-byte aligned.
            assert!(report["passes"][0]["applied"].as_u64().unwrap() > 0);
            let (before, after) = (program(&std::fs::read(&f).unwrap()), program(&std::fs::read(&out).unwrap()));
            let code = |p: &Program| {
                let a = function(p, "abort");
                a.end - a.padding.bytes - a.entry
            };
            assert!(code(&after) > code(&before), "{}: abort() did not grow", f.display());
            let kernel = function(&after, "_Z11after_abortPii");
            assert_eq!(kernel.entry % 256, 0, "{}: the kernel after abort() is not aligned", f.display());
        }
    }
}

/// A gfx900 object whose device function `prologue` runs into the kernel `second`. With
/// `at_start` it is the first code of `.text`; otherwise the kernel `first` and its padding
/// come before it.
fn falling_object(dir: &Path, at_start: bool) -> PathBuf {
    let kernel = |name: &str| {
        format!(
            "\t.protected {name}\n\t.globl {name}\n\t.p2align 8\n\t.type {name},@function\n{name}:\n\tv_mov_b32_e32 v1, 0\n\ts_endpgm\n.L{name}_end:\n\t.size {name}, .L{name}_end-{name}\n"
        )
    };
    let descriptor = |name: &str| {
        format!(
            "\t.amdhsa_kernel {name}\n\t\t.amdhsa_next_free_vgpr 8\n\t\t.amdhsa_next_free_sgpr 8\n\t\t.amdhsa_accum_offset 4\n\t.end_amdhsa_kernel\n"
        )
        .replace("\t\t.amdhsa_accum_offset 4\n", "")
    };
    let metadata = |names: &[&str]| {
        let mut m = String::from("\t.amdgpu_metadata\n---\namdhsa.kernels:\n");
        for n in names {
            m += &format!(
                "  - .args: []\n    .group_segment_fixed_size: 0\n    .kernarg_segment_align: 8\n    .kernarg_segment_size: 0\n    .max_flat_workgroup_size: 256\n    .name: {n}\n    .private_segment_fixed_size: 0\n    .sgpr_count: 8\n    .sgpr_spill_count: 0\n    .symbol: {n}.kd\n    .vgpr_count: 8\n    .vgpr_spill_count: 0\n    .wavefront_size: 64\n"
            );
        }
        m + "amdhsa.target: amdgcn-amd-amdhsa--gfx900\namdhsa.version:\n  - 1\n  - 2\n...\n\t.end_amdgpu_metadata\n"
    };
    // 64 instructions of 4 bytes at the start of .text reach the next 256-byte boundary exactly;
    // after `first`, 60 filler words and 4 instructions do.
    let (lead, body) = if at_start { (String::new(), 64) } else { (kernel("first") + "\t.p2align 8\n\t.fill 60, 4, 0xbf800000\n", 4) };
    let mut s = String::from("\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx900\"\n\t.amdhsa_code_object_version 5\n\t.text\n\t.p2align 8\n");
    s += &lead;
    s += "\t.type prologue,@function\nprologue:\n";
    for i in 0..body {
        s += &format!("\tv_mov_b32_e32 v{}, {}\n", 2 + i % 4, i % 64);
    }
    s += ".Lprologue_end:\n\t.size prologue, .Lprologue_end-prologue\n";
    s += &kernel("second");
    s += "\t.rodata\n";
    let names: &[&str] = if at_start { &["second"] } else { &["first", "second"] };
    for n in names {
        s += &descriptor(n);
    }
    s += &metadata(names);
    let stem = if at_start { "at_start" } else { "after_first" };
    let (src, obj, co) = (dir.join(format!("{stem}.s")), dir.join(format!("{stem}.o")), dir.join(format!("{stem}.co")));
    std::fs::write(&src, s).unwrap();
    llvm_tool("llvm-mc-19", &["-triple=amdgcn-amd-amdhsa", "-mcpu=gfx900", "-filetype=obj", src.to_str().unwrap(), "-o", obj.to_str().unwrap()]);
    llvm_tool("ld.lld-19", &["-shared", obj.to_str().unwrap(), "-o", co.to_str().unwrap()]);
    co
}

#[test]
fn a_function_falling_into_a_kernel_moves_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let input = falling_object(dir.path(), false);
    let before = program(&std::fs::read(&input).unwrap());
    let (prologue, second) = (function(&before, "prologue"), function(&before, "second"));
    assert!(prologue.blocks.last().unwrap().nodes.last().unwrap().flow.falls_through());
    assert_eq!((prologue.end, prologue.padding.bytes, second.entry % 256), (second.entry, 0, 0), "the input is not what this test needs");

    let out = dir.path().join("out.co");
    let (ok, stderr, report) = rewrite(&input, &out, "insert-nops");
    assert!(ok, "{stderr}");
    assert_eq!(report["refused"], serde_json::json!([]), "{stderr}");
    let after = program(&std::fs::read(&out).unwrap());
    let (prologue, second) = (function(&after, "prologue"), function(&after, "second"));
    assert_eq!(second.entry % 256, 0, "the kernel entry is no longer aligned");
    assert_eq!((prologue.end, prologue.padding.bytes), (second.entry, 0), "padding came between the prologue and the kernel it runs into");
    assert!(second.entry - prologue.entry > 16, "the prologue did not grow");
    let v = gfxpatch(&["verify", out.to_str().unwrap()]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
}

#[test]
fn a_fall_through_nothing_can_pad_is_refused_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let input = falling_object(dir.path(), true);
    let out = dir.path().join("out.co");
    let (ok, stderr, report) = rewrite(&input, &out, "insert-nops");
    assert!(ok, "{stderr}");
    let refused = report["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{report}");
    assert!(
        refused[0].as_str().unwrap().contains("prologue falls through into second, whose entry could no longer be 256-byte aligned"),
        "{report}"
    );
    assert_eq!(std::fs::read(&input).unwrap(), std::fs::read(&out).unwrap(), "a refused object must be written unchanged");
}
