//! `gfxpatch retarget` (issue 32): code objects proven valid on other members of their generic
//! family, and the refusals that must hold.
//!
//! - Every clang-19 fixture for gfx1030, gfx1100 and gfx900 retargets to every other member of
//!   its family; LLVM's disassembly of each output for the destination (`llvm-objdump-19 -d
//!   --mcpu=DEST`) equals the source's for the source; `llvm-readelf-19` names the
//!   destination in `e_flags`; `gfxpatch verify` accepts it; only `e_flags` and the metadata's
//!   target string differ from the input. (gfx1153 is retargeted but not disassembled: LLVM 19
//!   does not know it.)
//! - Hand-written code objects assembled by llvm-mc-19 are refused, each for its own reason:
//!   a dot product on a processor without it, an SALU float on gfx1102, an SGPR as DPP src1 on
//!   gfx1100, a transcendental instruction and a wave32 kernel where the destination has a
//!   hazard the source has not, a processor outside the family, a feature setting the
//!   destination lacks.

mod common;

use std::path::{Path, PathBuf};

use common::{fixture_files, gfxpatch, llvm_tool};

fn disassembly(file: &Path, mcpu: &str) -> String {
    let text = llvm_tool("llvm-objdump-19", &["-d", &format!("--mcpu={mcpu}"), file.to_str().unwrap()]);
    // Without the first lines, which name the file.
    text.lines().skip_while(|l| !l.starts_with("Disassembly")).collect::<Vec<_>>().join("\n")
}

/// LLVM 19 knows every processor but these.
const UNKNOWN_TO_LLVM19: &[&str] = &["gfx1153", "gfx950"];

#[test]
fn clang_fixtures_retarget_to_every_family_member() {
    let dir = tempfile::tempdir().unwrap();
    let families: &[(&str, &[&str])] = &[
        ("gfx1030", &["gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"]),
        ("gfx1100", &["gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"]),
        ("gfx900", &["gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"]),
    ];
    let mut checked = 0;
    for (source, members) in families {
        // Four kinds of code per family keep the test short: straight-line address math, loops
        // and branches, HIP kernels (with calls and globals), LDS and barriers at -O0.
        let inputs: Vec<PathBuf> = fixture_files(&format!("co/{source}"), "co")
            .into_iter()
            .filter(|p| ["addr_math.O2.co", "control_flow.O2.co", "hip_kernels.O2.co", "lds_reduce.O0.co"].iter().any(|n| p.ends_with(n)))
            .collect();
        assert_eq!(inputs.len(), 4, "{source}: {inputs:?}");
        for input in &inputs {
            let out_dir = dir.path().join(source);
            let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", &members.join(","), "--out-dir", out_dir.to_str().unwrap()]);
            assert!(o.status.success(), "{}: {}{}", input.display(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
            let original = std::fs::read(input).unwrap();
            let theirs = disassembly(input, source);
            let stem = input.file_name().unwrap().to_str().unwrap().strip_suffix(".co").unwrap();
            for dest in *members {
                let output = out_dir.join(format!("{stem}.{dest}.co"));
                let bytes = std::fs::read(&output).unwrap_or_else(|e| panic!("{}: {e}", output.display()));
                // Only e_flags and the metadata's target string change.
                assert_eq!(bytes.len(), original.len());
                let object = gfxpatch::container::CodeObject::parse(&original).unwrap();
                let (note, len) = object.metadata_range.unwrap();
                let differing: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] != original[i]).collect();
                assert!(
                    differing.iter().all(|&i| (48..52).contains(&i) || (note as usize..(note + len) as usize).contains(&i)),
                    "{}: bytes outside e_flags and the metadata differ: {differing:?}",
                    output.display()
                );
                let v = gfxpatch(&["verify", output.to_str().unwrap()]);
                assert!(v.status.success(), "{}: {}", output.display(), String::from_utf8_lossy(&v.stdout));
                let header = llvm_tool("llvm-readelf-19", &["-h", output.to_str().unwrap()]);
                // `Flags: 0x12d, gfx902, xnack` (the number alone for a processor LLVM 19 does not know).
                let flags = header.lines().find_map(|l| l.trim_start().strip_prefix("Flags:")).unwrap().trim().to_lowercase();
                let mut parts = flags.split(", ");
                let value = u32::from_str_radix(parts.next().unwrap().trim_start_matches("0x"), 16).unwrap();
                assert_eq!(value & 0xff, u32::from(gfxpatch::isa::Processor::by_name(dest).unwrap().mach), "{}: {flags}", output.display());
                if !UNKNOWN_TO_LLVM19.contains(dest) {
                    assert_eq!(parts.next(), Some(*dest), "{}: {flags}", output.display());
                }
                if !UNKNOWN_TO_LLVM19.contains(dest) {
                    assert_eq!(disassembly(&output, dest), theirs, "{}: LLVM's disassembly for {dest} differs", output.display());
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4 * (6 + 7 + 5));
}

/// Assembles a one-kernel code object for `mcpu` with `body`.
fn kernel(dir: &Path, name: &str, mcpu: &str, target_id: &str, body: &str, wave64: bool) -> PathBuf {
    let wave = if wave64 { "\t.amdhsa_wavefront_size32 0\n" } else { "" };
    let s = format!(
        "\t.amdgcn_target \"amdgcn-amd-amdhsa--{target_id}\"\n\t.amdhsa_code_object_version 5\n\t.text\n\t.globl k\n\t.p2align 8\n\t.type k,@function\nk:\n{body}\n\ts_endpgm\n\t.rodata\n\t.p2align 6\n\t.amdhsa_kernel k\n\t.amdhsa_next_free_vgpr 8\n\t.amdhsa_next_free_sgpr 8\n{wave}\t.end_amdhsa_kernel\n"
    );
    let src = dir.join(format!("{name}.s"));
    std::fs::write(&src, s).unwrap();
    let obj = dir.join(format!("{name}.o"));
    let co = dir.join(format!("{name}.co"));
    let attrs = if target_id.contains(":sramecc+") { "-mattr=+sramecc" } else { "-mattr=" };
    llvm_tool("llvm-mc-19", &["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={mcpu}"), attrs, "-filetype=obj", src.to_str().unwrap(), "-o", obj.to_str().unwrap()]);
    llvm_tool("ld.lld-19", &["-shared", obj.to_str().unwrap(), "-o", co.to_str().unwrap()]);
    co
}

#[test]
fn each_refusal_names_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: &[(&str, PathBuf, &str, &str)] = &[
        ("dot on gfx900", kernel(d, "dot906", "gfx906", "gfx906", "\tv_dot2_f32_f16 v0, v1, v2, v3", false), "gfx900", "does not exist on gfx900"),
        ("dot on gfx1010", kernel(d, "dot1011", "gfx1011", "gfx1011", "\tv_dot2_f32_f16 v0, v1, v2, v3", false), "gfx1010", "does not exist on gfx1010"),
        ("salu float on gfx1102", kernel(d, "salu1150", "gfx1150", "gfx1150", "\ts_add_f32 s0, s1, s2", true), "gfx1102", "does not exist on gfx1102"),
        (
            "dpp sgpr src1 on gfx1100",
            kernel(d, "dpp1150", "gfx1150", "gfx1150", "\tv_add_f32_e64_dpp v0, v1, s2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf", true),
            "gfx1103",
            "takes no SGPR as src1 of a DPP instruction",
        ),
        ("trans hazard on gfx1103", kernel(d, "trans1151", "gfx1151", "gfx1151", "\tv_exp_f32 v3, v4", true), "gfx1103", "FeatureVALUTransUseHazard"),
        ("wave32 user SGPR bug on gfx1100", kernel(d, "w32_1151", "gfx1151", "gfx1151", "\tv_mov_b32 v0, v1", false), "gfx1100", "FeatureUserSGPRInit16Bug"),
        ("outside the family", kernel(d, "fam1030", "gfx1030", "gfx1030", "\tv_mov_b32 v0, v1", false), "gfx1100", "not in gfx1030's generic family"),
        ("sramecc setting on gfx900", kernel(d, "ecc906", "gfx906", "gfx906:sramecc+", "\tv_mov_b32 v0, v1", false), "gfx900", "built with sramecc+ but gfx900 has no sramecc"),
    ];
    for (case, input, dest, why) in cases {
        let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", dest, "-o", d.join("out.co").to_str().unwrap()]);
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(2), "{case}: {stdout}");
        assert!(stdout.contains("refused") && stdout.contains(why), "{case}: want `{why}`:\n{stdout}");
        assert!(!d.join("out.co").exists(), "{case}: wrote an output");
    }
    // The control: the same SGPR-src1 DPP kernel goes to a sibling that allows it.
    let o = gfxpatch(&["retarget", cases[3].1.to_str().unwrap(), "--to", "gfx1151", "--check"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
}

/// Where the destination's code generation is the source's (gfx10.3, and the gfx9 consumer
/// chips share every hazard feature), retargeting must give exactly what clang-19 writes when
/// compiling for the destination: the same bytes, descriptors (register granules) included.
#[test]
fn retargeting_equals_recompiling_where_codegen_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::repo().join("fixtures");
    let families: &[(&str, &[&str])] = &[("gfx1030", &["gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"]), ("gfx900", &["gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"])];
    for (source, members) in families {
        let input = fixtures.join(format!("co/{source}/addr_math.O2.co"));
        for dest in *members {
            let ours = dir.path().join(format!("ours.{dest}.co"));
            let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", dest, "-o", ours.to_str().unwrap()]);
            assert!(o.status.success(), "{dest}: {}", String::from_utf8_lossy(&o.stdout));
            let clangs = dir.path().join(format!("clang.{dest}.co"));
            // fixtures/build.sh's flags for OpenCL at -O2.
            let status = std::process::Command::new("clang-19")
                .current_dir(&fixtures)
                .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-include", "src/ocl_builtins.h"])
                .arg(format!("-ffile-prefix-map={}=.", fixtures.display()))
                .args(["-fdebug-compilation-dir=.", &format!("-mcpu={dest}"), "-O2", "-o", clangs.to_str().unwrap(), "src/addr_math.cl"])
                .status()
                .expect("clang-19 is required (scripts/setup.sh installs it)");
            assert!(status.success(), "clang-19 for {dest}");
            assert!(std::fs::read(&ours).unwrap() == std::fs::read(&clangs).unwrap(), "{source} -> {dest}: differs from clang-19's own build for {dest}");
        }
    }
}
