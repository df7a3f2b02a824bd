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
    Example { patch: "register_hungry", inputs: &["fixtures/co/gfx900/emu_float.O2.co"], added: "+v_mov_b32_e32 v40, 0x42800000" },
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
            assert_eq!(std::fs::read(&again).unwrap(), after, "{what}: applying twice changed the output");

            // Reversed: the input's bytes again, but for the register counts a patch raised
            // (a count is never lowered: see docs/patches.md).
            let back = scratch("back.out");
            ok(&["patch", "-R", s(&out), "-o", s(&back), s(&patch)]);
            let back_bytes = std::fs::read(&back).unwrap();
            if ex.patch == "register_hungry" {
                let code = |p: &Path| instructions(&ok(&["disasm", s(p)]).0);
                assert_eq!(code(&back), code(&input), "{what}: reversing did not restore the code");
                assert_eq!(back_bytes.len(), before.len(), "{what}");
            } else {
                assert!(back_bytes == before, "{what}: reversing did not give the input's bytes back");
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
    let out = scratch("from-diff.out");
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
fn diff_aligns_by_control_flow_not_address() {
    // One branch put in: every later branch's offset and address changes, yet the diff shows
    // one added line and nothing else.
    let a = fixture("fixtures/co/gfx900/control_flow.O2.co");
    let b = scratch("branch.co");
    ok(&["patch", s(&a), "-o", s(&b), s(&fixture("fixtures/patches/branch.gpatch"))]);
    let (text, _) = ok(&["diff", s(&a), s(&b)]);
    let changed: Vec<&str> = text.lines().filter(|l| (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++") && !l.starts_with("---")).collect();
    assert_eq!(changed, ["+s_cbranch_execz 5"], "{text}");
    // Without labels the diff cannot write that patch: it says so.
    let o = gfxpatch(&["diff", s(&a), s(&b), "--patch", s(&scratch("branch.gpatch"))]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("by a label"));
}
