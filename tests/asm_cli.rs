//! `gfxpatch asm` on the command line: LLVM's bytes for the seed examples in llvm-mc's layout,
//! and bad input as one error line naming the column, with a hint, exit status 2 and nothing on
//! stdout.

mod common;

fn asm(args: &[&str]) -> (i32, String, String) {
    let out = common::gfxpatch(&[&["asm"], args].concat());
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn seed_examples_show_llvms_encoding() {
    let (code, out, _) = asm(&["--target", "gfx1100", "v_lshl_or_b32 v5, v1, v2, s3"]);
    assert_eq!(code, 0);
    // llvm-mc-19 -show-encoding's layout: text padded to 40 columns, then the bytes.
    assert_eq!(
        out,
        "\t.text\n\tv_lshl_or_b32 v5, v1, v2, s3            ; encoding: [0x05,0x00,0x56,0xd6,0x01,0x05,0x0e,0x00]\n"
    );
    let (_, out, _) = asm(&["--target", "gfx900", "v_cmp_le_i64 vcc, -1, v[2:3]"]);
    assert!(
        out.contains("v_cmp_le_i64_e32 vcc, -1, v[2:3]        ; encoding: [0xc1,0x04,0xc6,0x7d]"),
        "{out}"
    );
    let (_, out, _) = asm(&[
        "--target",
        "gfx1100",
        "--mattr=+wavefrontsize64",
        "v_cmp_le_i64 vcc, -1, v[2:3]",
    ]);
    assert!(out.contains("[0xc1,0x04,0xa6,0x7c]"), "{out}");
}

#[test]
fn files_resolve_labels() {
    let dir = std::env::temp_dir().join(format!("gfxpatch-asm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("loop.s");
    std::fs::write(&file, ".text\nloop: ; top\n  s_nop 0 // pad\n\n  s_branch loop\n  s_cbranch_scc0 done\ndone:\n  s_endpgm\n").unwrap();
    let (code, out, err) = asm(&["--target", "gfx1100", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // s_branch at 4 back to 0: (0 - 8) / 4 = -2; s_cbranch_scc0 at 8 to 12: 0.
    assert!(out.contains("loop:\n\ts_nop 0"), "{out}");
    assert!(out.contains("[0xfe,0xff,0xa0,0xbf]"), "{out}");
    assert!(out.contains("[0x00,0x00,0xa1,0xbf]\ndone:\n"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_names_the_column_with_a_hint() {
    for (target, text, want) in [
        (
            "gfx900",
            "v_lshl_or_bb32 v5, v1, v2, s3",
            "1:1: unknown instruction v_lshl_or_bb32 (did you mean v_lshl_or_b32?)",
        ),
        (
            "gfx803",
            "v_lshl_or_b32 v5, v1, v2, s3",
            "1:1: v_lshl_or_b32 is not an instruction of gfx803 (v_lshl_or_b32 exists on gfx900",
        ),
        (
            "gfx900",
            "v_lshl_or_b32 s5, v1, v2, s3",
            "1:15: expected a VGPR, found s5 (v_lshl_or_b32 vdst takes v0..v255)",
        ),
        ("gfx900", "s_movk_i32 s1, 0x12345", "1:16: expected"),
        (
            "gfx900",
            "ds_read_b32 v1, v2 offset:70000",
            "1:20: expected the end of the instruction, found offset:70000",
        ),
    ] {
        let (code, out, err) = asm(&["--target", target, text]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(out.is_empty(), "{text}: stdout {out:?}");
        assert!(
            err.starts_with(&format!("gfxpatch: <command line>:{want}")),
            "{text}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// `--backend llvm`: LLVM 19's assembler in-process gives the seed example's bytes; a line LLVM
/// rejects is an error naming the line, exit 2.
#[test]
fn llvm_backend_assembles_in_process() {
    let (code, out, err) = asm(&["--backend", "llvm", "--target", "gfx900", "v_lshl_or_b32 v5, v1, v2, s3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[0x05,0x00,0x00,0xd2,0x01,0x05,0x0e,0x00]"), "{out}");
    let (code, out, err) = asm(&["--backend", "llvm", "--target", "gfx803", "v_lshl_or_b32 v5, v1, v2, s3"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("<command line>:1: LLVM"), "{err}");
}

/// `--like FILE`: the bits text does not determine are filled as FILE's compiler filled them.
/// The fixture is LLVM 19's (0x7e in the unused destination of `v_cmpx_*_e64`); patched to 0
/// it is as Debian's clang 15 wrote librocrand and librocsparse.
#[test]
fn like_fills_unprinted_bits_as_the_files_compiler_did() {
    let fixture = common::repo().join("fixtures/co/gfx1030/control_flow.O2.co");
    let original = std::fs::read(&fixture).unwrap();
    // v_cmpx_gt_u32_e64 s1, v2 and v_cmpx_ne_u32_e64 s3, v3, as LLVM 19 wrote them.
    let cmpx: [&[u8]; 2] = [&[0x7e, 0x00, 0xd4, 0xd4, 0x01, 0x04, 0x02, 0x00], &[0x7e, 0x00, 0xd5, 0xd4, 0x03, 0x06, 0x02, 0x00]];
    let at = |bytes: &[u8], pattern: &[u8]| bytes.windows(8).position(|w| w == pattern).expect("the fixture's v_cmpx_*_e64");
    let dir = std::env::temp_dir().join(format!("gfxpatch-asm-like-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (clang15, mixed) = (dir.join("clang15.co"), dir.join("mixed.co"));
    let mut patched = original.clone();
    patched[at(&original, cmpx[0])] = 0;
    std::fs::write(&mixed, &patched).unwrap();
    patched[at(&original, cmpx[1])] = 0;
    std::fs::write(&clang15, &patched).unwrap();

    let text = "v_cmpx_gt_u32_e64 s1, v2";
    let llvm = "[0x7e,0x00,0xd4,0xd4,0x01,0x04,0x02,0x00]";
    let zero = "[0x00,0x00,0xd4,0xd4,0x01,0x04,0x02,0x00]";
    let like = |file: &std::path::Path| asm(&["--target", "gfx1030", "--like", file.to_str().unwrap(), text]);

    let (code, out, err) = like(&clang15);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(zero), "{out}");
    assert!(err.contains("v_cmpx_*_e64 unused destination 0x00 (LLVM writes 0x7e)"), "{err}");
    // Without --like, and like a file whose compiler was LLVM 19: LLVM's byte, no note.
    assert!(asm(&["--target", "gfx1030", text]).1.contains(llvm));
    let (code, out, err) = like(&fixture);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.contains(llvm), "{out}");
    // Instructions that disagree are no evidence: LLVM's byte, and a note saying why.
    let (code, out, err) = like(&mixed);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(llvm), "{out}");
    assert!(err.contains("disagree"), "{err}");
    // A file with no code object for the target is an error naming what it has.
    let (code, out, err) = asm(&["--target", "gfx1100", "--like", clang15.to_str().unwrap(), text]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("has no code object for gfx1100 (it has: gfx1030)"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
