//! Patch files (docs/patches.md) and `gfxpatch diff`, end to end through the binary: every
//! example under fixtures/patches/ applies, verifies, disassembles as `llvm-objdump-19 -d`
//! does, is recognised when applied twice, and reverses to the input's bytes; every bad patch
//! under fixtures/patches/bad/ fails with its own message and writes nothing; `diff --patch`
//! then `patch` turns a code object into its rewrite byte for byte.

mod common;

use std::path::{Path, PathBuf};

use common::{gfxpatch, llvm_tool, repo};

fn fixture(path: &str) -> PathBuf {
    repo().join(path)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gfxpatch-patch-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs gfxpatch; panics with its stderr unless it succeeds. Returns stdout and stderr.
fn ok(args: &[&str]) -> (String, String) {
    let o = gfxpatch(args);
    let (out, err) = (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned());
    assert!(o.status.success(), "gfxpatch {args:?} failed: {err}");
    (out, err)
}

/// Instruction lines (`text // address: words`) of a disassembly listing.
fn instructions(listing: &str) -> Vec<String> {
    listing.lines().filter(|l| l.starts_with('\t') && l.contains("//")).map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

/// One example patch and the inputs it is shown on.
struct Example {
    patch: &'static str,
    inputs: &'static [&'static str],
    /// What `--dry-run` must show put in.
    added: &'static str,
}

const EXAMPLES: &[Example] = &[
    Example { patch: "constant", inputs: &["fixtures/co/gfx900/emu_float.O2.co"], added: "+v_mul_f32_e32 v3, 0x43000000, v3" },
    Example { patch: "longer", inputs: &["fixtures/co/gfx900/emu_float.O2.co"], added: "+v_max_f32_e32 v1, 0, v1" },
    Example { patch: "branch", inputs: &["fixtures/co/gfx900/control_flow.O2.co"], added: "+s_cbranch_execz 5" },
    Example {
        patch: "register_hungry",
        inputs: &["fixtures/co/gfx900/emu_float.O2.co", "fixtures/co/gfx1030/emu_float.O2.co", "fixtures/co/gfx90a/emu_float.O2.co", "fixtures/co/gfx942/emu_float.O2.co"],
        added: "+v_mov_b32_e32 v40, 0x42800000",
    },
    Example {
        patch: "pal_clamp",
        inputs: &["fixtures/graphics/gfx900/pixel.pal.co", "fixtures/graphics/gfx1030/pixel.pal.co"],
        added: "+v_max_f32_e32 v2, 0x3e800000, v4",
    },
    Example {
        patch: "hip_lerp",
        inputs: &["fixtures/co/gfx1030/hip_kernels.O2.co", "fixtures/bundle/hip_kernels.hipfb", "fixtures/host/libhip_app.so"],
        added: "+v_add_f32_e32 v0, v0, v1",
    },
];

#[test]
fn every_example_applies_verifies_matches_llvm_and_reverses() {
    for ex in EXAMPLES {
        let patch = fixture(&format!("fixtures/patches/{}.gpatch", ex.patch));
        for input in ex.inputs {
            let input = fixture(input);
            let what = format!("{} on {}", ex.patch, input.display());
            let out = scratch(&format!("{}.{}.out", ex.patch, input.file_name().unwrap().to_str().unwrap()));
            let (diff, _) = ok(&["patch", s(&input), s(&patch), "--dry-run"]);
            assert!(diff.lines().any(|l| l == ex.added), "{what}: --dry-run shows no `{}`:\n{diff}", ex.added);

            let (_, notes) = ok(&["patch", s(&input), "-o", s(&out), s(&patch)]);
            assert!(notes.contains("applied in"), "{what}: {notes}");
            // No example brings a hazard about: each applies as it did before hazards were
            // checked beyond GFX9 (and reverses to the input's bytes below, which a fix put in
            // would break).
            assert!(!notes.contains("inserted"), "{what}: {notes}");
            let (verified, _) = ok(&["verify", s(&out)]);
            assert!(verified.contains(": ok:"), "{what}: {verified}");
            let (before, after) = (std::fs::read(&input).unwrap(), std::fs::read(&out).unwrap());
            assert_ne!(before, after, "{what}: nothing changed");

            // LLVM reads the output as we do (code objects; LLVM has no reader for bundles).
            if input.extension().is_some_and(|e| e == "co") {
                let ours = instructions(&ok(&["disasm", s(&out)]).0);
                let theirs = instructions(&llvm_tool("llvm-objdump-19", &["-d", s(&out)]));
                assert_eq!(ours, theirs, "{what}: our disassembly of the output is not llvm-objdump-19's");
                assert!(ours.iter().any(|l| l.starts_with(&ex.added[1..])), "{what}: the output lacks `{}`", &ex.added[1..]);
            }

            // Applied twice: recognised, not applied again.
            let again = scratch("again.out");
            let (_, notes) = ok(&["patch", s(&out), "-o", s(&again), s(&patch)]);
            assert!(notes.contains("already applied"), "{what}: {notes}");
            // `longer` puts in a sequence that starts with what it finds: applied or not reads
            // the same, and the note says so rather than claiming it was applied.
            assert_eq!(notes.contains("cannot tell whether it is applied"), ex.patch == "longer", "{what}: {notes}");
            assert_eq!(std::fs::read(&again).unwrap(), after, "{what}: applying twice changed the output");

            // Reversed: the input's bytes again, register counts the patch raised included
            // (lowered back: docs/patches.md, "Reversing").
            let back = scratch("back.out");
            let (_, notes) = ok(&["patch", "-R", s(&out), "-o", s(&back), s(&patch)]);
            assert!(std::fs::read(&back).unwrap() == before, "{what}: reversing did not give the input's bytes back: {notes}");
            if ex.patch == "register_hungry" {
                assert!(notes.contains(".vgpr_count lowered 41 -> "), "{what}: {notes}");
            }
        }
    }
}

#[test]
fn the_register_hungry_example_raises_the_vgpr_count() {
    let counts = |p: &Path| {
        let info = common::info_json(p);
        let k = info["code_objects"][0]["kernels"].as_array().unwrap().iter().find(|k| k["name"] == "f32_convert").unwrap().clone();
        (k["vgpr_count"].as_u64().unwrap(), k["descriptor_registers"]["vgprs"].as_u64().unwrap())
    };
    let out = scratch("hungry.co");
    let input = fixture("fixtures/co/gfx900/emu_float.O2.co");
    ok(&["patch", s(&input), "-o", s(&out), s(&fixture("fixtures/patches/register_hungry.gpatch"))]);
    assert_eq!(counts(&input), (17, 20));
    // v40 is the 41st VGPR; the descriptor counts in granules of 4.
    assert_eq!(counts(&out), (41, 44));
}

/// `.vgpr_count` and the descriptor's VGPRs of kernel `name`.
fn vgpr_counts(p: &Path, name: &str) -> (u64, u64) {
    let info = common::info_json(p);
    let k = info["code_objects"][0]["kernels"].as_array().unwrap().iter().find(|k| k["name"] == name).unwrap().clone();
    (k["vgpr_count"].as_u64().unwrap(), k["descriptor_registers"]["vgprs"].as_u64().unwrap())
}

fn write_patch(name: &str, text: &str) -> PathBuf {
    let p = scratch(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn reversing_lowers_only_the_counts_the_patch_alone_explains() {
    let input = fixture("fixtures/co/gfx900/emu_float.O2.co");
    let hungry = fixture("fixtures/patches/register_hungry.gpatch");
    // An input whose count is above what its code needs (51 VGPRs for code using 17): a v50
    // put in, then taken out by a second patch applied forward (which never lowers).
    let put = write_patch("put-v50.gpatch", "target gfx900\nfunction f32_convert\nhunk\n    = v_add_f32_e32 %x, 0xc4800000, %x\n    + v_mov_b32_e32 v50, 0\n");
    let take = write_patch("take-v50.gpatch", "target gfx900\nfunction f32_convert\nhunk\n    = v_add_f32_e32 %x, 0xc4800000, %x\n    - v_mov_b32_e32 v50, 0\n");
    let (with, roomy) = (scratch("with-v50.co"), scratch("roomy.co"));
    ok(&["patch", s(&input), "-o", s(&with), s(&put)]);
    ok(&["patch", s(&with), "-o", s(&roomy), s(&take)]);
    let code = |p: &Path| instructions(&ok(&["disasm", s(p)]).0);
    assert_eq!(code(&roomy), code(&input));
    assert_eq!(vgpr_counts(&roomy, "f32_convert"), (51, 52));
    // The hungry patch needs 41: nothing raised, so nothing is lowered when it is reversed.
    let (patched, back) = (scratch("roomy-hungry.co"), scratch("roomy-back.co"));
    ok(&["patch", s(&roomy), "-o", s(&patched), s(&hungry)]);
    assert_eq!(vgpr_counts(&patched, "f32_convert"), (51, 52));
    let (_, notes) = ok(&["patch", "-R", s(&patched), "-o", s(&back), s(&hungry)]);
    assert!(!notes.contains("lowered"), "{notes}");
    assert!(std::fs::read(&back).unwrap() == std::fs::read(&roomy).unwrap(), "reversing changed what the patch did not: {notes}");

    // Kernels that call a function a patch made hungry: raised, and not lowered when it is
    // reversed (a callee's registers count; calls are where counting stops being exact).
    let hip = fixture("fixtures/co/gfx1030/hip_kernels.O2.co");
    let callee = write_patch("callee-v40.gpatch", "target gfx1030\nfunction _Z7lerp_atPKfjjf\nhunk\n    = v_sub_f32_e32 %d, %b, %a\n    + v_mov_b32_e32 v40, %d\n");
    let (patched, back) = (scratch("hip-v40.co"), scratch("hip-v40-back.co"));
    ok(&["patch", s(&hip), "-o", s(&patched), s(&callee)]);
    let kernel = "_Z9tile_lerpPfPKff"; // calls lerp_at
    assert_eq!(vgpr_counts(&hip, kernel).0, 8);
    assert_eq!(vgpr_counts(&patched, kernel).0, 41);
    let (_, notes) = ok(&["patch", "-R", s(&patched), "-o", s(&back), s(&callee)]);
    assert_eq!(code(&back), code(&hip));
    assert_eq!(vgpr_counts(&back, kernel).0, 41, "{notes}");
}

#[test]
fn wait_states_are_kept_across_block_boundaries() {
    // A VALU write of an SGPR at the end of a block, its lane-select read by v_readlane at the
    // start of the next: 4 wait states needed, 1 there (the branch ending the block). Once
    // along a fall-through, once along a taken branch.
    let patch = write_patch(
        "waits.gpatch",
        "target gfx900\nfunction collatz_steps\n\
         hunk fall-through\n    = s_and_saveexec_b64 s[2:3], vcc\n    + v_readfirstlane_b32 s12, v0\n    = s_cbranch_execz 25\n    + v_readlane_b32 s13, v1, s12\n    = s_mov_b64 s[4:5], 0\n\
         hunk branch\n    = s_mov_b64 s[4:5], 0\n    + v_readfirstlane_b32 s14, v0\n    = s_branch 12\n\
         hunk target\n    + v_readlane_b32 s15, v1, s14\n    = v_and_b32_e32 v1, 1, v0\n",
    );
    let out = scratch("waits.co");
    let (_, notes) = ok(&["patch", s(&fixture("fixtures/co/gfx900/control_flow.O2.co")), "-o", s(&out), s(&patch)]);
    for read in ["v_readlane_b32 s13, v1, s12", "v_readlane_b32 s15, v1, s14"] {
        assert!(notes.contains(&format!("inserted s_nop 2 before `{read}`")), "{notes}");
    }
    let listing = instructions(&llvm_tool("llvm-objdump-19", &["-d", s(&out)]));
    let before = |read: &str| listing.iter().position(|l| l.starts_with(read)).map(|i| listing[i - 1].clone()).unwrap();
    assert!(before("v_readlane_b32 s13, v1, s12").starts_with("s_nop 2"));
    assert!(before("v_readlane_b32 s15, v1, s14").starts_with("s_nop 2"));
    ok(&["verify", s(&out)]);
}

#[test]
fn every_bad_patch_fails_with_its_own_error_and_writes_nothing() {
    let input = fixture("fixtures/graphics/gfx900/pixel.pal.co");
    let cases: &[(&str, &str)] = &[
        ("no_match", "hunk 1: 0 matches in _amdgpu_ps_main; nearest at 0x1348, line 2: found v_mul_f32_e32, want v_mul_legacy_f32_e32"),
        ("two_matches", "hunk 1: 2 matches in _amdgpu_ps_main (_amdgpu_ps_main+0x38, _amdgpu_ps_main+0x48), expected 1"),
        ("wrong_target", "the patch is for gfx11, "),
        ("malformed", "malformed.gpatch:6: a hunk line starts with `=` (context), `-` (find) or `+` (replace), found `* v_max_f32_e32"),
        ("not_an_instruction", "line 1 (`v_maxx_f32_e32 %d, 0x3e000000, %b`) names no instruction of gfx900"),
        ("does_not_assemble", "does_not_assemble.gpatch:6: hunk 1: `v_max_f32_e32 v2, 0x3e800000, v4, v4` does not assemble for gfx900"),
    ];
    let mut seen = Vec::new();
    for (name, want) in cases {
        let out = scratch(&format!("bad-{name}.out"));
        let o = gfxpatch(&["patch", s(&input), "-o", s(&out), s(&fixture(&format!("fixtures/patches/bad/{name}.gpatch")))]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(want), "{name}: expected `{want}` in:\n{err}");
        assert!(!out.exists(), "{name}: an output was written");
        assert!(!seen.contains(&err), "{name}: the same error as another bad patch");
        seen.push(err);
    }
    // Every file under bad/ is a case here.
    let files = common::fixture_files("patches/bad", "gpatch");
    assert_eq!(files.len(), cases.len(), "fixtures/patches/bad/ has patches this test does not check");
}

#[test]
fn a_refused_patch_leaves_an_existing_output_alone() {
    let out = scratch("existing.out");
    std::fs::write(&out, b"keep me").unwrap();
    let o = gfxpatch(&["patch", s(&fixture("fixtures/graphics/gfx900/pixel.pal.co")), "-o", s(&out), s(&fixture("fixtures/patches/bad/two_matches.gpatch"))]);
    assert!(!o.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
}

/// `diff A B --patch P`, then `patch A P`: B, byte for byte.
fn diff_then_patch(a: &Path, b: &Path) -> usize {
    let p = scratch(&format!("{}.gpatch", b.file_name().unwrap().to_str().unwrap()));
    let (text, _) = ok(&["diff", s(a), s(b), "--patch", s(&p)]);
    assert!(text.starts_with("--- "), "{text}");
    // Named after B: tests run in parallel, and two calls must not write one file.
    let out = scratch(&format!("{}.from-diff.out", b.file_name().unwrap().to_str().unwrap()));
    ok(&["patch", s(a), "-o", s(&out), s(&p)]);
    assert!(std::fs::read(&out).unwrap() == std::fs::read(b).unwrap(), "diff then patch of {} did not give {} back", a.display(), b.display());
    std::fs::read_to_string(&p).unwrap().matches("\nhunk").count()
}

#[test]
fn diff_then_patch_gives_the_rewrite_back() {
    let pairs: &[(&str, &str)] = &[
        ("fixtures/co/gfx900/peephole_cases.asm.co", "peephole"),
        ("fixtures/graphics/gfx1201/compute.mesa.co", "peephole"),
        ("fixtures/co/gfx900/control_flow.O2.co", "insert-nops"),
        ("fixtures/co/gfx1100/hip_kernels.O2.co", "insert-nops"),
        ("fixtures/graphics/gfx1100/pixel.pal.co", "insert-nops"),
        // An s_nop 0 put in at the start of a block after a run of s_nop 0 (the loop header's
        // alignment padding): aligned where it was, not anywhere in the run.
        ("fixtures/co/gfx1030/control_flow.O2.co", "insert-nops"),
        ("fixtures/co/gfx1100/control_flow.O2.co", "insert-nops"),
        ("fixtures/co/gfx1201/control_flow.O2.co", "insert-nops"),
        ("fixtures/co/gfx803/control_flow.O0.co", "insert-nops"),
        ("fixtures/graphics/gfx1030/geometry.pal.co", "insert-nops"),
        ("fixtures/graphics/gfx900/vertex.mesa.co", "insert-nops"),
    ];
    for (input, pass) in pairs {
        let a = fixture(input);
        let b = scratch(&format!("{pass}.{}", a.file_name().unwrap().to_str().unwrap()));
        ok(&["rewrite", s(&a), "-o", s(&b), "--passes", pass, "-q"]);
        let hunks = diff_then_patch(&a, &b);
        assert!(hunks > 0, "{input} {pass}: no hunks");
    }
}

#[test]
fn diff_writes_no_patch_that_does_not_give_b_back() {
    // gfx90a code with AGPR moves: the patch cannot move its code (wait states not modelled),
    // so the patch diff would write is refused, and nothing is written.
    let a = fixture("fixtures/co/gfx90a/control_flow.O0.co");
    let b = scratch("nops.gfx90a.O0.co");
    ok(&["rewrite", s(&a), "-o", s(&b), "--passes", "insert-nops", "-q"]);
    let p = scratch("gfx90a.O0.gpatch");
    let o = gfxpatch(&["diff", s(&a), s(&b), "--patch", s(&p)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("the patch written from the difference does not apply"), "{err}");
    assert!(!p.exists());
}

#[test]
fn diff_aligns_by_control_flow_not_address() {
    // One branch put in: every later branch's offset and address changes, yet the diff shows
    // one added line and nothing else.
    let a = fixture("fixtures/co/gfx900/control_flow.O2.co");
    let b = scratch("branch.co");
    ok(&["patch", s(&a), "-o", s(&b), s(&fixture("fixtures/patches/branch.gpatch"))]);
    let (text, _) = ok(&["diff", s(&a), s(&b)]);
    let changed: Vec<&str> = text.lines().filter(|l| (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++") && !l.starts_with("---")).collect();
    assert_eq!(changed, ["+s_cbranch_execz 5"], "{text}");
    // The patch names the branch's target by a label, and gives B back.
    assert_eq!(diff_then_patch(&a, &b), 1);
    let p = std::fs::read_to_string(scratch("branch.co.gpatch")).unwrap();
    assert!(p.contains("\n    + s_cbranch_execz l1\n") && p.contains("\n    = l1: s_endpgm\n"), "{p}");
}

#[test]
fn diff_writes_branches_put_in_or_changed_with_labels() {
    // A branch changed (its condition) and one put in: each travels as a hunk with a label.
    let a = fixture("fixtures/co/gfx900/control_flow.O2.co");
    let changed = write_patch(
        "branches.gpatch",
        "target gfx900\nfunction collatz_steps\n\
         hunk\n    = s_andn2_b64 exec, exec, s[4:5]\n    - s_cbranch_execz 10\n    + s_cbranch_vccz out\n    = v_and_b32_e32 v1, 1, v0\n\
         \x20   = v_cmp_eq_u32_e32 vcc, 1, v1\n    = s_and_saveexec_b64 s[6:7], vcc\n    = s_xor_b64 s[6:7], exec, s[6:7]\n\
         \x20   = v_mad_u64_u32 v[0:1], s[10:11], v0, 3, 1\n    = s_andn2_saveexec_b64 s[6:7], s[6:7]\n    = s_cbranch_execz 65516\n\
         \x20   = v_lshrrev_b32_e32 v0, 1, v0\n    = s_branch 65514\n    = out: s_or_b64 exec, exec, s[4:5]\n\
         hunk\n    = v_mov_b32_e32 v0, s1\n    = v_add_co_u32_e32 v2, vcc, s0, v2\n    + s_cbranch_scc1 end\n    = v_addc_co_u32_e32 v3, vcc, v0, v3, vcc\n\
         \x20   = global_store_dword v[2:3], v1, off\n    = end: s_endpgm\n",
    );
    let b = scratch("branches.co");
    let o = gfxpatch(&["patch", s(&a), "-o", s(&b), s(&changed)]);
    // (A branch replaced goes where the old one was, not in front of the next block, which
    // another branch goes to: before, this failed verification.)
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(diff_then_patch(&a, &b), 2);
    let p = std::fs::read_to_string(scratch("branches.co.gpatch")).unwrap();
    assert!(p.contains("\n    + s_cbranch_vccz l1\n") && p.contains("\n    = l1: s_or_b64 exec, exec, s[4:5]\n"), "{p}");
}

/// A code object for `mcpu` assembled here (llvm-mc-19, ld.lld-19) with two kernels: `plain`,
/// whose body is `plain`, and `opaque`, whose body `opaque` ends in an indirect jump nothing
/// proves (so nothing in it may move, and a fix needing room there is refused).
fn hand_object(mcpu: &str, wave64: bool, plain: &[&str], opaque: &[&str]) -> PathBuf {
    // GFX8 and GFX9 are wave64 only, and have no wave-size field in the descriptor.
    let pre_gfx10 = mcpu.starts_with("gfx8") || mcpu.starts_with("gfx9");
    let wave = if wave64 || pre_gfx10 { 64 } else { 32 };
    let kernel = |name: &str, body: &[&str]| {
        let mut k = format!("\t.protected {name}\n\t.globl {name}\n\t.p2align 8\n\t.type {name},@function\n{name}:\n");
        for line in body {
            k += &format!("\t{line}\n");
        }
        k + &format!(".L{name}_end:\n\t.size {name}, .L{name}_end-{name}\n")
    };
    let wave_field = if pre_gfx10 { String::new() } else { format!("\t\t.amdhsa_wavefront_size32 {}\n", u8::from(wave == 32)) };
    let descriptor = |name: &str| format!("\t.amdhsa_kernel {name}\n\t\t.amdhsa_next_free_vgpr 32\n\t\t.amdhsa_next_free_sgpr 16\n{wave_field}\t.end_amdhsa_kernel\n");
    let mut text = format!("\t.amdgcn_target \"amdgcn-amd-amdhsa--{mcpu}\"\n\t.amdhsa_code_object_version 5\n\t.text\n");
    text += &kernel("plain", &[plain, &["s_endpgm"]].concat());
    // GFX11 renamed the scalar loads.
    let load = if pre_gfx10 || mcpu.starts_with("gfx10") { "s_load_dwordx2" } else { "s_load_b64" };
    let tail = [&*format!("{load} s[4:5], s[0:1], 0x0"), "s_waitcnt lgkmcnt(0)", "s_setpc_b64 s[4:5]", "s_endpgm"];
    text += &kernel("opaque", &[opaque, &tail[..]].concat());
    text += "\t.rodata\n";
    text += &descriptor("plain");
    text += &descriptor("opaque");
    text += "\t.amdgpu_metadata\n---\namdhsa.kernels:\n";
    for n in ["plain", "opaque"] {
        text += &format!(
            "  - .args: []\n    .group_segment_fixed_size: 0\n    .kernarg_segment_align: 8\n    .kernarg_segment_size: 0\n    .max_flat_workgroup_size: 256\n    .name: {n}\n    .private_segment_fixed_size: 0\n    .sgpr_count: 16\n    .sgpr_spill_count: 0\n    .symbol: {n}.kd\n    .vgpr_count: 32\n    .vgpr_spill_count: 0\n    .wavefront_size: {wave}\n"
        );
    }
    text += &format!("amdhsa.target: amdgcn-amd-amdhsa--{mcpu}\namdhsa.version:\n  - 1\n  - 2\n...\n\t.end_amdgpu_metadata\n");
    let stem = format!("hazards-{mcpu}-w{wave}");
    let (src, obj, co) = (scratch(&format!("{stem}.s")), scratch(&format!("{stem}.o")), scratch(&format!("{stem}.co")));
    std::fs::write(&src, text).unwrap();
    let mattr = if pre_gfx10 { String::new() } else { format!("-mattr=+wavefrontsize{wave}") };
    let mcpu_flag = format!("-mcpu={mcpu}");
    let mut args = vec!["-triple=amdgcn-amd-amdhsa", &*mcpu_flag, "-filetype=obj", s(&src), "-o", s(&obj)];
    if !mattr.is_empty() {
        args.push(&mattr);
    }
    llvm_tool("llvm-mc-19", &args);
    llvm_tool("ld.lld-19", &["-shared", s(&obj), "-o", s(&co)]);
    co
}

/// One hazard case: a patch applied to a hand-written object, and what must come of it.
struct HazardCase {
    mcpu: &'static str,
    wave64: bool,
    plain: &'static [&'static str],
    opaque: &'static [&'static str],
    /// Hunks for kernel `plain`: the hazard is mitigated by what `inserted` names, right before
    /// (or, for a fix LLVM puts after the writer, right after) the line `at`.
    mitigated: &'static str,
    inserted: &'static str,
    at: &'static str,
    after: bool,
    /// The rule named in the note.
    rule: &'static str,
    /// A patch the hazards refuse, and what the error must say (none: "").
    refused: &'static str,
    refusal: &'static str,
}

const HAZARD_CASES: &[HazardCase] = &[
    HazardCase {
        mcpu: "gfx803",
        wave64: false,
        plain: &["s_setreg_b32 hwreg(HW_REG_MODE), s6", "s_mov_b32 s8, 0", "v_mov_b32_e32 v1, 0"],
        opaque: &["s_setreg_b32 hwreg(HW_REG_MODE), s6", "s_nop 1", "s_getreg_b32 s7, hwreg(HW_REG_MODE)"],
        // s_setreg then s_getreg of MODE: 2 wait states (checkGetRegHazards).
        mitigated: "function plain\nhunk\n    = s_setreg_b32 hwreg(HW_REG_MODE), s6\n    + s_getreg_b32 s7, hwreg(HW_REG_MODE)\n",
        inserted: "s_nop 1",
        at: "s_getreg_b32 s7, hwreg(HW_REG_MODE)",
        after: false,
        rule: "checkGetRegHazards",
        // The s_nop that kept them apart replaced: the wait states cannot go back in, the
        // function keeps its size.
        refused: "function opaque\nhunk\n    - s_nop 1\n    + s_mov_b32 s8, 0\n",
        refusal: "opaque: at 0x",
    },
    HazardCase {
        mcpu: "gfx1030",
        wave64: false,
        plain: &["global_atomic_fmin v0, v1, s[0:1]", "s_mov_b32 s8, 0"],
        opaque: &["global_atomic_fmin v0, v1, s[0:1]", "s_nop 2", "s_denorm_mode 0"],
        // An FP atomic then s_denorm_mode: 3 wait states (checkFPAtomicToDenormModeHazard).
        mitigated: "function plain\nhunk\n    = global_atomic_fmin v0, v1, s[0:1]\n    + s_denorm_mode 0\n",
        inserted: "s_nop 2",
        at: "s_denorm_mode 0",
        after: false,
        rule: "checkFPAtomicToDenormModeHazard",
        refused: "function opaque\nhunk\n    - s_nop 2\n    + s_mov_b32 s8, 0\n",
        refusal: "opaque: at 0x",
    },
    HazardCase {
        mcpu: "gfx1100",
        wave64: false,
        plain: &["v_exp_f32_e32 v3, v4", "s_mov_b32 s8, 0"],
        opaque: &["v_mov_b32_e32 v2, 0", "lds_param_load v1, attr0.x wait_vdst:15"],
        // A VALU reads a transcendental's result right away (fixVALUTransUseHazard, the
        // retarget's search).
        mitigated: "function plain\nhunk\n    = v_exp_f32_e32 v3, v4\n    + v_add_f32_e32 v5, v3, v3\n",
        inserted: "s_waitcnt_depctr 0xfff",
        at: "v_add_f32_e32 v5, v3, v3",
        after: false,
        rule: "fixVALUTransUseHazard",
        // A VALU write of what lds_param_load writes, right before it: LLVM lowers the
        // instruction's wait_vdst, which gfxpatch does not.
        refused: "function opaque\nhunk\n    - v_mov_b32_e32 v2, 0\n    + v_mov_b32_e32 v1, 0\n",
        refusal: "fixLdsDirectVALUHazard: LLVM lowers its wait_vdst to 0 (it is 15)",
    },
    HazardCase {
        mcpu: "gfx1201",
        wave64: false,
        plain: &["v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7]", "s_mov_b32 s8, 0", "ds_param_load v30, attr0.x wait_va_vdst:15 wait_vm_vsrc:1"],
        opaque: &[],
        // A WMMA reading the previous one's result as matrix A (fixWMMAHazards).
        mitigated: "function plain\nhunk\n    = v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7]\n    + v_wmma_f32_16x16x16_f16 v[16:23], v[0:3], v[12:15], v[16:23]\n",
        inserted: "v_nop",
        at: "v_wmma_f32_16x16x16_f16 v[16:23], v[0:3], v[12:15], v[16:23]",
        after: false,
        rule: "fixWMMAHazards",
        // A load writing what ds_param_load writes: LLVM sets its wait_vm_vsrc to 0.
        refused: "function plain\nhunk\n    = s_mov_b32 s8, 0\n    + global_load_b32 v30, v0, s[0:1]\n    = ds_param_load v30, attr0.x wait_va_vdst:15 wait_vm_vsrc:1\n",
        refusal: "fixLdsDirectVMEMHazard: LLVM sets its wait_vsrc to 0",
    },
    HazardCase {
        mcpu: "gfx1010",
        wave64: false,
        plain: &["global_load_dword v1, v0, s[0:1]", "v_mov_b32_e32 v2, 0"],
        opaque: &[],
        // A load reads s[0:1], then an SALU writes s0 (fixVMEMtoScalarWriteHazards).
        mitigated: "function plain\nhunk\n    = global_load_dword v1, v0, s[0:1]\n    + s_mov_b32 s0, 0\n",
        inserted: "s_waitcnt_depctr 0xffe3",
        at: "s_mov_b32 s0, 0",
        after: false,
        rule: "fixVMEMtoScalarWriteHazards",
        refused: "",
        refusal: "",
    },
    HazardCase {
        mcpu: "gfx1100",
        wave64: true,
        plain: &["v_cndmask_b32_e64 v0, v1, v2, s[4:5]", "v_mov_b32_e32 v3, 0"],
        opaque: &[],
        // A VALU reads s[4:5] as a mask, then an SALU writes it (fixVALUMaskWriteHazard): the
        // wait goes after the write.
        mitigated: "function plain\nhunk\n    = v_cndmask_b32_e64 v0, v1, v2, s[4:5]\n    + s_mov_b64 s[4:5], 0\n",
        inserted: "s_waitcnt_depctr 0xfffe",
        at: "s_mov_b64 s[4:5], 0",
        after: true,
        rule: "fixVALUMaskWriteHazard",
        refused: "",
        refusal: "",
    },
    HazardCase {
        mcpu: "gfx900",
        wave64: false,
        plain: &["s_load_dword s2, s[0:1], 0x0", "s_mov_b32 s8, 0", "s_waitcnt lgkmcnt(0)"],
        opaque: &[],
        // XNACK any (code object v5's default): two loads in a soft clause, the second writing
        // what the first reads (checkSoftClauseHazards).
        mitigated: "function plain\nhunk\n    = s_load_dword s2, s[0:1], 0x0\n    + s_load_dword s0, s[4:5], 0x0\n",
        inserted: "s_nop 0",
        at: "s_load_dword s0, s[4:5], 0x0",
        after: false,
        rule: "checkSoftClauseHazards",
        refused: "",
        refusal: "",
    },
];

#[test]
fn hazards_a_patch_creates_are_mitigated_or_refused() {
    for case in HAZARD_CASES {
        let input = hand_object(case.mcpu, case.wave64, case.plain, case.opaque);
        let what = format!("{}{}", case.mcpu, if case.wave64 { " wave64" } else { "" });
        // Mitigated: the fix in place (as llvm-objdump-19 reads the output), said so, verified.
        let patch = write_patch(&format!("hazard-{}.gpatch", what.replace(' ', "-")), &format!("target {}\n{}", case.mcpu, case.mitigated));
        let out = scratch(&format!("hazard-{}.co", what.replace(' ', "-")));
        let (_, notes) = ok(&["patch", s(&input), "-o", s(&out), s(&patch)]);
        assert!(notes.contains(&format!("inserted {} {} `{}`", case.inserted, if case.after { "after" } else { "before" }, case.at)) && notes.contains(case.rule), "{what}: {notes}");
        let listing = instructions(&llvm_tool("llvm-objdump-19", &["-d", s(&out)]));
        let at = listing.iter().position(|l| l.starts_with(case.at)).unwrap_or_else(|| panic!("{what}: no `{}` in {listing:#?}", case.at));
        let next = if case.after { &listing[at + 1] } else { &listing[at - 1] };
        assert!(next.starts_with(case.inserted), "{what}: `{next}` next to `{}`", case.at);
        let (verified, _) = ok(&["verify", s(&out)]);
        assert!(verified.contains(": ok:"), "{what}: {verified}");
        assert_eq!(instructions(&ok(&["disasm", s(&out)]).0), listing, "{what}: our disassembly is not llvm-objdump-19's");
        if case.refused.is_empty() {
            continue;
        }
        // Refused: a clear error naming the rule, nothing written.
        let patch = write_patch(&format!("hazard-refused-{}.gpatch", what.replace(' ', "-")), &format!("target {}\n{}", case.mcpu, case.refused));
        let out = scratch(&format!("hazard-refused-{}.co", what.replace(' ', "-")));
        let o = gfxpatch(&["patch", s(&input), "-o", s(&out), s(&patch)]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(case.refusal), "{what}: expected `{}` in:\n{err}", case.refusal);
        assert!(!out.exists(), "{what}: an output was written");
    }
}

/// Each example patch applied, then the output run against the input by the emulator
/// (`gfxpatch check`, docs/emulator.md): the patches that keep what the kernel computes give
/// every buffer back bit for bit on three seeds; `constant` changes a constant on purpose and
/// the difference is the one it means. (`pal_clamp` patches a pixel shader, which the emulator
/// does not run; `hip_lerp`'s bundle and host library hold the code object checked here.)
#[test]
fn every_example_computes_what_the_emulator_expects() {
    let f32_convert = ["--kernel", "f32_convert", "--grid", "256", "--block", "64", "i32[512]=0", "f32[1536]=0", "u32[256]"];
    // collatz_steps with n = 256 of 320 work-items: the last wave has no lane on, and takes the
    // branch `branch.gpatch` puts in.
    let collatz = ["--kernel", "collatz_steps", "--grid", "320", "--block", "64", "u32[320]=0", "u32[320]", "u32=256"];
    // t = 0.25: the fused and the unfused lerp round alike.
    let lerp = ["--kernel", "_Z9tile_lerpPfPKff", "--grid", "1024", "--block", "256", "f32[1024]=0", "f32[64]", "f32=0.25"];
    let same: &[(&str, &str, &[&str])] = &[
        ("longer", "fixtures/co/gfx900/emu_float.O2.co", &f32_convert),
        ("branch", "fixtures/co/gfx900/control_flow.O2.co", &collatz),
        ("register_hungry", "fixtures/co/gfx900/emu_float.O2.co", &f32_convert),
        ("register_hungry", "fixtures/co/gfx1030/emu_float.O2.co", &f32_convert),
        ("register_hungry", "fixtures/co/gfx90a/emu_float.O2.co", &f32_convert),
        ("register_hungry", "fixtures/co/gfx942/emu_float.O2.co", &f32_convert),
        ("hip_lerp", "fixtures/co/gfx1030/hip_kernels.O2.co", &lerp),
    ];
    let patched = |patch: &str, input: &Path| {
        let out = scratch(&format!("emu.{patch}.{}", input.to_str().unwrap().replace('/', "_")));
        ok(&["patch", s(input), "-o", s(&out), s(&fixture(&format!("fixtures/patches/{patch}.gpatch")))]);
        out
    };
    for (patch, input, args) in same {
        let input = fixture(input);
        let out = patched(patch, &input);
        let o = gfxpatch(&[&["check", s(&input), s(&out)], *args].concat());
        let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{patch} on {}: {text}", input.display());
        assert_eq!(text.matches(": same (").count(), 3, "{patch}: {text}");
    }
    // x * 64 becomes x * 128: the first output, (int)x, doubles (truncated: 2t or 2t + 1).
    let input = fixture("fixtures/co/gfx900/emu_float.O2.co");
    let out = patched("constant", &input);
    let o = gfxpatch(&[&["check", s(&input), s(&out)], &f32_convert[..]].concat());
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(1), "{text}");
    let values = text.split("arg0 (i32) index 0: ").nth(1).unwrap_or_else(|| panic!("{text}"));
    let (a, b) = values.trim().split_once(" vs ").unwrap();
    let (a, b): (i64, i64) = (a.parse().unwrap(), b.trim().parse().unwrap());
    assert!(a != 0 && (b == 2 * a || b == 2 * a + a.signum()), "{text}");
}
