//! `gfxpatch retarget` (issue 32): code objects proven valid on other members of their generic
//! family, and the refusals that must hold.
//!
//! - Every clang-19 fixture for gfx1030, gfx1100 and gfx900 retargets to every other member of
//!   its family; LLVM's disassembly of each output for the destination (`llvm-objdump-19 -d
//!   --mcpu=DEST`) equals the source's for the source; `llvm-readelf-19` names the
//!   destination in `e_flags`; `gfxpatch verify` accepts it; only `e_flags` and the metadata's
//!   target string differ from the input. gfx1153, gfx950 and gfx9-4-generic, which LLVM 19
//!   does not know, are compared by LLVM 22 (`llvm-objdump-22`) on both sides.
//! - Hand-written code objects assembled by llvm-mc-19 are refused, each for its own reason:
//!   a dot product on a processor without it, an SALU float on gfx1102, an SGPR as DPP src1 on
//!   gfx1100, a wave32 kernel where the destination has a hazard the source has not, a
//!   transcendental result read too soon where no wait can be inserted, a processor outside the
//!   family, a feature setting the destination lacks.
//! - Where a wait can be inserted, it is: LLVM's `s_waitcnt_depctr 0xfff` for
//!   `FeatureVALUTransUseHazard`, in front of each reader LLVM's pass would put it before.

mod common;
#[path = "common/host.rs"]
mod host;

use std::path::{Path, PathBuf};

use common::{fixture_files, gfxpatch, llvm_tool};

fn disassembly(file: &Path, mcpu: &str) -> String {
    disassembly_by("llvm-objdump-19", file, mcpu)
}

/// `llvm-objdump-NN -d --mcpu=MCPU` (the processor from `e_flags` where `mcpu` is empty),
/// without the first lines, which name the file.
fn disassembly_by(objdump: &str, file: &Path, mcpu: &str) -> String {
    let mut args = vec!["-d".to_owned(), file.to_str().unwrap().to_owned()];
    if !mcpu.is_empty() {
        args.insert(1, format!("--mcpu={mcpu}"));
    }
    let text = llvm_tool(objdump, &args.iter().map(String::as_str).collect::<Vec<_>>());
    text.lines().skip_while(|l| !l.starts_with("Disassembly")).collect::<Vec<_>>().join("\n")
}

/// LLVM 19 knows every processor but these; LLVM 22 (Debian's llvm-22) is their oracle.
const UNKNOWN_TO_LLVM19: &[&str] = &["gfx1153", "gfx950", "gfx9-4-generic"];

/// The disassembly that proves `output` (for `dest`) runs `input`'s code (for `source`): LLVM 19
/// where it knows the destination, else LLVM 22 on both sides (its gfx11 printer differs from
/// LLVM 19's: real true16 by default).
fn oracle_pair(input: &Path, source: &str, output: &Path, dest: &str) -> (String, String) {
    if UNKNOWN_TO_LLVM19.contains(&dest) || UNKNOWN_TO_LLVM19.contains(&source) {
        (disassembly_by("llvm-objdump-22", input, source), disassembly_by("llvm-objdump-22", output, dest))
    } else {
        (disassembly(input, source), disassembly(output, dest))
    }
}

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
                // `Flags: 0x12d, gfx902, xnack` (LLVM 22 names gfx1153, LLVM 19 does not).
                let readelf = if UNKNOWN_TO_LLVM19.contains(dest) { "llvm-readelf-22" } else { "llvm-readelf-19" };
                let header = llvm_tool(readelf, &["-h", output.to_str().unwrap()]);
                let flags = header.lines().find_map(|l| l.trim_start().strip_prefix("Flags:")).unwrap().trim().to_lowercase();
                let mut parts = flags.split(", ");
                let value = u32::from_str_radix(parts.next().unwrap().trim_start_matches("0x"), 16).unwrap();
                assert_eq!(value & 0xff, u32::from(gfxpatch::isa::Processor::by_name(dest).unwrap().mach), "{}: {flags}", output.display());
                assert_eq!(parts.next(), Some(*dest), "{}: {flags}", output.display());
                if UNKNOWN_TO_LLVM19.contains(dest) {
                    let (source_text, dest_text) = oracle_pair(input, source, &output, dest);
                    assert_eq!(dest_text, source_text, "{}: LLVM 22's disassembly for {dest} differs", output.display());
                } else {
                    assert_eq!(disassembly(&output, dest), theirs, "{}: LLVM's disassembly for {dest} differs", output.display());
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4 * (6 + 7 + 5));
}

/// Assembles a one-kernel code object for `mcpu` with `body` (then `s_endpgm`), with the
/// metadata note a retarget writes the destination's name into.
fn kernel(dir: &Path, name: &str, mcpu: &str, target_id: &str, body: &str, wave64: bool) -> PathBuf {
    kernel_ending(dir, name, mcpu, target_id, body, "s_endpgm", wave64)
}

fn kernel_ending(dir: &Path, name: &str, mcpu: &str, target_id: &str, body: &str, end: &str, wave64: bool) -> PathBuf {
    let mut wave = if wave64 { "\t.amdhsa_wavefront_size32 0\n" } else { "" }.to_owned();
    if ["gfx90a", "gfx942", "gfx950"].contains(&mcpu) {
        wave.push_str("\t.amdhsa_accum_offset 4\n");
    }
    let wave_size = if wave64 || !mcpu.starts_with("gfx1") { 64 } else { 32 };
    let metadata = format!(
        "\t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .args: []\n    .group_segment_fixed_size: 0\n    .kernarg_segment_align: 4\n    .kernarg_segment_size: 0\n    .max_flat_workgroup_size: 256\n    .name: k\n    .private_segment_fixed_size: 0\n    .sgpr_count: 8\n    .symbol: k.kd\n    .vgpr_count: 8\n    .wavefront_size: {wave_size}\namdhsa.target: amdgcn-amd-amdhsa--{target_id}\namdhsa.version:\n  - 1\n  - 2\n...\n\t.end_amdgpu_metadata\n"
    );
    let s = format!(
        "\t.amdgcn_target \"amdgcn-amd-amdhsa--{target_id}\"\n\t.amdhsa_code_object_version 5\n\t.text\n\t.globl k\n\t.p2align 8\n\t.type k,@function\nk:\n{body}\n\t{end}\n\t.rodata\n\t.p2align 6\n\t.amdhsa_kernel k\n\t.amdhsa_next_free_vgpr 8\n\t.amdhsa_next_free_sgpr 8\n{wave}\t.end_amdhsa_kernel\n{metadata}"
    );
    let src = dir.join(format!("{name}.s"));
    std::fs::write(&src, s).unwrap();
    let obj = dir.join(format!("{name}.o"));
    let co = dir.join(format!("{name}.co"));
    let attrs = if target_id.contains(":sramecc+") { "-mattr=+sramecc" } else { "-mattr=" };
    let mc = if UNKNOWN_TO_LLVM19.contains(&mcpu) { "llvm-mc-22" } else { "llvm-mc-19" };
    llvm_tool(mc, &["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={mcpu}"), attrs, "-filetype=obj", src.to_str().unwrap(), "-o", obj.to_str().unwrap()]);
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
        // A transcendental result read too soon, in a kernel that must keep its size (an
        // indirect jump not proven): no wait fits, so refused at the reader.
        (
            "trans hazard, no room, on gfx1103",
            kernel_ending(d, "trans1151", "gfx1151", "gfx1151", TRANS_USE, "s_setpc_b64 s[4:5]", true),
            "gfx1103",
            "0x1504: v_add_f32_e32 v5, v3, v3: gfx1103 needs FeatureVALUTransUseHazard: reads what 0x1500 wrote too soon, and no wait can be inserted: k keeps its size",
        ),
        // gfx950 needs more wait states after an MFMA than gfx942 (GCNHazardRecognizer's
        // hasGFX950Insts tables); the xf32 MFMAs do not exist there at all.
        ("mfma on gfx950", kernel(d, "mfma942", "gfx942", "gfx942", MFMA, false), "gfx950", "gfx950 needs FeatureGFX950Insts"),
        ("mfma on gfx9-4-generic", kernel(d, "mfma942g", "gfx942", "gfx942", MFMA, false), "gfx9-4-generic", "gfx950 needs FeatureGFX950Insts"),
        ("xf32 mfma on gfx950", kernel(d, "xf32_942", "gfx942", "gfx942", "\tv_mfma_f32_16x16x8_xf32 a[0:3], v[0:1], v[2:3], a[0:3]", false), "gfx950", "does not exist on gfx950"),
        // An image sample gfx1150-gfx1152 may accelerate, in code built without the waits.
        (
            "image sample on gfx1151",
            kernel(d, "sample1100", "gfx1100", "gfx1100", "\timage_sample v[0:3], v[0:1], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D", true),
            "gfx1151",
            "gfx1151 needs FeaturePointSampleAccel",
        ),
        ("wave32 user SGPR bug on gfx1100", kernel(d, "w32_1151", "gfx1151", "gfx1151", "\tv_mov_b32 v0, v1", false), "gfx1100", "FeatureUserSGPRInit16Bug"),
        ("outside the family", kernel(d, "fam1030", "gfx1030", "gfx1030", "\tv_mov_b32 v0, v1", false), "gfx1100", "not in gfx1030's generic family"),
        ("sramecc setting on gfx900", kernel(d, "ecc906", "gfx906", "gfx906:sramecc+", "\tv_mov_b32 v0, v1", false), "gfx900", "built with sramecc+ but gfx900 has no sramecc"),
        // A generic destination names the member that blocks.
        ("dot on gfx10-1-generic", kernel(d, "dot1011g", "gfx1011", "gfx1011", "\tv_dot2_f32_f16 v0, v1, v2, v3", false), "gfx10-1-generic", "does not exist on gfx1010"),
        (
            "trans hazard, no room, on gfx11-generic",
            kernel_ending(d, "trans1151g", "gfx1151", "gfx1151", TRANS_USE, "s_setpc_b64 s[4:5]", true),
            "gfx11-generic",
            "gfx1100 needs FeatureVALUTransUseHazard",
        ),
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

/// An XDL MFMA whose result a store reads after gfx942's wait states (19 for a 16-pass XDL
/// write read by memory), one short of gfx950's (20).
const MFMA: &str = "\tv_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]\n\ts_nop 7\n\ts_nop 7\n\ts_nop 2\n\tglobal_store_dwordx4 v0, a[0:3], s[0:1]";

/// Two transcendental results read too soon for gfx1100-gfx1103's `FeatureVALUTransUseHazard`:
/// one by the next instruction (and again by the one after, which the first wait covers), one
/// across a branch, from the block before.
const TRANS_USE: &str = "\tv_exp_f32 v3, v4\n\tv_add_f32 v5, v3, v3\n\tv_mul_f32 v6, v3, v5\n\ts_cmp_eq_u32 s0, 0\n\ts_cbranch_scc1 .Lskip\n\tv_rcp_f32 v1, v2\n.Lskip:\n\tv_add_f32 v7, v1, v1\n\tv_sqrt_f32 v0, v4\n\tv_add_f32 v1, v2, v2\n\tv_add_f32 v1, v2, v2\n\tv_add_f32 v1, v2, v2\n\tv_add_f32 v1, v2, v2\n\tv_add_f32 v1, v2, v2\n\tv_add_f32 v1, v2, v2\n\tv_add_f32 v2, v0, v0";

/// gfx1151 code with `TRANS_USE` retargeted to the processors with the hazard and to
/// gfx11-generic: the write inserts LLVM's `s_waitcnt_depctr 0xfff` in front of each reader
/// that needs it (two; the third reader is six VALUs after its write, past the hazard) and the
/// report lists them; the output verifies; LLVM's disassembly of it for the destination equals
/// ours; our hazard search finds nothing left in it; and the waits are where LLVM's pass puts
/// them (in front of the two readers, nowhere else).
#[test]
fn transcendental_reads_get_the_wait_llvm_inserts() {
    use gfxpatch::container::CodeObject;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = kernel(d, "transuse", "gfx1151", "gfx1151", TRANS_USE, true);
    let source = disassembly(&input, "gfx1151");
    for dest in ["gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx11-generic"] {
        let output = d.join(format!("out.{dest}.co"));
        let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", dest, "-o", output.to_str().unwrap(), "--explain"]);
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{dest}: {stdout}{}", String::from_utf8_lossy(&o.stderr));
        assert!(stdout.contains("inserting 2 wait(s) for FeatureVALUTransUseHazard"), "{dest}: {stdout}");
        assert!(stdout.contains("`s_waitcnt_depctr 0xfff` in front of 0x1504 `v_add_f32_e32 v5, v3, v3`, which reads what 0x1500 wrote"), "{dest}: {stdout}");
        assert!(stdout.contains("in front of 0x1518 `v_add_f32_e32 v7, v1, v1`, which reads what 0x1514 wrote"), "{dest}: {stdout}");
        let v = gfxpatch(&["verify", output.to_str().unwrap()]);
        assert!(v.status.success(), "{dest}: {}", String::from_utf8_lossy(&v.stdout));
        // LLVM 19 disassembles the generic processor from e_flags.
        let theirs = if dest.contains("generic") {
            let t = llvm_tool("llvm-objdump-19", &["-d", output.to_str().unwrap()]);
            t.lines().skip_while(|l| !l.starts_with("Disassembly")).collect::<Vec<_>>().join("\n")
        } else {
            disassembly(&output, dest)
        };
        let ours = gfxpatch(&["disasm", output.to_str().unwrap()]);
        let ours = String::from_utf8_lossy(&ours.stdout);
        let ours = ours.lines().skip_while(|l| !l.starts_with("Disassembly")).collect::<Vec<_>>().join("\n");
        assert_eq!(ours, theirs, "{dest}: our disassembly of the output differs from LLVM's");
        // The source's instructions, in order, with the two waits in front of the readers.
        let text = |listing: &str| -> Vec<String> { listing.lines().filter(|l| l.starts_with('\t')).map(|l| l.split("//").next().unwrap().trim().to_owned()).collect() };
        let mut expected = text(&source);
        expected.insert(expected.iter().position(|l| l == "v_add_f32_e32 v7, v1, v1").unwrap(), "s_waitcnt_depctr 0xfff".into());
        expected.insert(1, "s_waitcnt_depctr 0xfff".into());
        // The branch over one instruction stays a branch over one instruction.
        assert_eq!(text(&theirs), expected, "{dest}");
        let bytes = std::fs::read(&output).unwrap();
        let object = CodeObject::parse(&bytes).unwrap();
        assert_eq!(gfxpatch::retarget::mitigate::insertions(&object).unwrap().unwrap(), vec![], "{dest}: waits still needed in the output");
    }
    // A processor without the hazard takes the code as it is.
    let output = d.join("out.gfx1152.co");
    let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", "gfx1152", "-o", output.to_str().unwrap()]);
    assert!(o.status.success() && !String::from_utf8_lossy(&o.stdout).contains("inserting"), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(disassembly(&output, "gfx1152"), source);
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

fn run(tool: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(tool).args(args).output().unwrap_or_else(|e| panic!("{tool} is required (scripts/setup.sh installs it): {e}"))
}

fn run_ok(tool: &str, args: &[&str]) -> String {
    let o = run(tool, args);
    assert!(o.status.success(), "{tool} {args:?}: {}{}", String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&o.stdout));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every bundle a host's `__hip_fatbin_wrapper`s point at (or the bundle file itself), as
/// `clang-offload-bundler-19` reads it: id -> bytes, one map per bundle, host entries left out
/// (an entry for a processor clang 19 does not know: listed by it, read by our parser).
fn unbundled(file: &Path, dir: &Path) -> Vec<std::collections::BTreeMap<String, Vec<u8>>> {
    use gfxpatch::container::bundle::{parse_bundle, DecompressLimits};
    use gfxpatch::container::elf::ElfFile;
    use gfxpatch::container::fatbin::HostImage;
    let data = std::fs::read(file).unwrap();
    let bundles: Vec<Vec<u8>> = if data.starts_with(b"\x7fELF") {
        let elf = ElfFile::parse(&data).unwrap();
        let image = HostImage::read(&elf).unwrap();
        image
            .wrappers
            .iter()
            .map(|w| {
                let offset = image.file_offset(w.target, 32).unwrap() as usize;
                let len = parse_bundle(&data[offset..], &DecompressLimits::default()).unwrap().len as usize;
                data[offset..offset + len].to_vec()
            })
            .collect()
    } else {
        vec![data]
    };
    bundles
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            // The HIP runtime reads only the first 4 KiB of a plain bundle for its entry table.
            if bytes.starts_with(b"__CLANG_OFFLOAD_BUNDLE__") {
                let table_end = parse_bundle(bytes, &DecompressLimits::default()).unwrap().entries.iter().map(|e| e.offset).min().unwrap();
                let ids_end = 32 + parse_bundle(bytes, &DecompressLimits::default()).unwrap().entries.iter().map(|e| 24 + e.id.len()).sum::<usize>();
                assert!(ids_end <= 4096 && ids_end as u64 <= table_end, "{}: bundle {i}: entry table ends at {ids_end}", file.display());
            }
            let bundle_file = dir.join(format!("bundle{i}"));
            std::fs::write(&bundle_file, bytes).unwrap();
            let input = format!("-input={}", bundle_file.display());
            let listed = run_ok("clang-offload-bundler-19", &["-list", "-type=o", &input]);
            let ids: Vec<&str> = listed.lines().filter(|id| !id.starts_with("host-")).collect();
            // clang 19's bundler lists an entry for a processor clang 19 does not know (gfx950)
            // but cannot unbundle it (`Can't find bundles for ...--gfx950-`: it cannot parse the
            // target id): those entries, listed, are read with our parser.
            let (known, unknown): (Vec<&str>, Vec<&str>) = ids.iter().partition(|id| {
                let processor = id.rsplit("--").next().unwrap().split(':').next().unwrap();
                !UNKNOWN_TO_LLVM19.contains(&processor)
            });
            let outputs: Vec<PathBuf> = (0..known.len()).map(|k| dir.join(format!("b{i}e{k}"))).collect();
            let mut args = vec!["-unbundle".to_owned(), "-type=o".to_owned(), input.clone(), format!("-targets={}", known.join(","))];
            args.extend(outputs.iter().map(|p| format!("-output={}", p.display())));
            run_ok("clang-offload-bundler-19", &args.iter().map(String::as_str).collect::<Vec<_>>());
            let _ = std::fs::remove_file(&bundle_file);
            let ours = parse_bundle(bytes, &DecompressLimits::default()).unwrap();
            // Each entry read, then removed: a whole library's entries need not sit on the disk.
            known
                .iter()
                .zip(&outputs)
                .map(|(id, p)| {
                    let bytes = std::fs::read(p).unwrap();
                    let _ = std::fs::remove_file(p);
                    ((*id).to_owned(), bytes)
                })
                .chain(unknown.iter().map(|id| ((*id).to_owned(), ours.entries.iter().find(|e| e.id == *id).unwrap().bytes.to_vec())))
                .collect()
        })
        .collect()
}

/// Bundles and host libraries gain one entry per destination, beside the entry it was made
/// from: `clang-offload-bundler-19 -list` shows them and `-unbundle` gives each back, equal to
/// the source object retargeted alone (whose disassembly for the destination is the source's);
/// the original entries keep their bytes; a compressed bundle stays compressed; a host library
/// grows and passes `eu-elflint --gnu-ld` (nothing new) and loads with `ctypes.CDLL`.
#[test]
fn bundles_and_host_libraries_gain_an_entry_per_destination() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fixtures = common::repo().join("fixtures");
    // gfx1030 -> gfx1031, gfx1100 -> gfx1101, gfx900/gfx906 -> gfx902 (the first of them in
    // entry order that retargets), gfx942:sramecc+:xnack- -> gfx950:sramecc+:xnack- (no MFMA).
    let to = "gfx1031,gfx1101,gfx902,gfx950";
    let new_ids = ["hipv4-amdgcn-amd-amdhsa--gfx1031", "hipv4-amdgcn-amd-amdhsa--gfx1101", "hipv4-amdgcn-amd-amdhsa--gfx902", "hipv4-amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-"];
    let inputs = [("bundle/hip_kernels.hipfb", 4), ("bundle/hip_kernels.ccob.hipfb", 4), ("host/libhip_app.so", 2), ("host/libhip_app.ccob.so", 2)];
    for (input, expected) in inputs {
        let input = fixtures.join(input);
        let name = input.file_name().unwrap().to_str().unwrap().to_owned();
        let output = d.join(format!("out.{name}"));
        let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", to, "-o", output.to_str().unwrap()]);
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{name}: {stdout}{}", String::from_utf8_lossy(&o.stderr));
        if expected == 4 {
            assert!(stdout.contains("gfx942 -> gfx950: 1 retarget"), "{name}: {stdout}");
        }
        let before = unbundled(&input, &mkdir(d.join(format!("in.{name}"))));
        let after = unbundled(&output, &mkdir(d.join(format!("outb.{name}"))));
        assert_eq!(before.len(), after.len(), "{name}: bundles");
        let mut added = 0;
        for (old, new) in before.iter().zip(&after) {
            for (id, bytes) in old {
                assert_eq!(new.get(id), Some(bytes), "{name}: {id} changed");
            }
            for id in new.keys().filter(|id| !old.contains_key(*id)) {
                assert!(new_ids.contains(&id.as_str()), "{name}: unexpected entry {id}");
                let dest = id.rsplit("--").next().unwrap().split(':').next().unwrap();
                // The same object retargeted alone: the entry it was made from, by family.
                let source_id = old.keys().find(|s| {
                    let p = s.rsplit("--").next().unwrap().split(':').next().unwrap();
                    let fam = |p: &str| gfxpatch::retarget::family(gfxpatch::isa::Processor::by_name(p).unwrap());
                    fam(p) == fam(dest) && {
                        let alone = d.join("alone.co");
                        std::fs::write(&alone, &old[*s]).unwrap();
                        let out = d.join("alone.out.co");
                        let _ = std::fs::remove_file(&out);
                        gfxpatch(&["retarget", alone.to_str().unwrap(), "--to", dest, "-o", out.to_str().unwrap()]).status.success() && std::fs::read(&out).unwrap() == new[id]
                    }
                });
                let source_id = source_id.unwrap_or_else(|| panic!("{name}: {id} is no source object retargeted alone"));
                let (src, out) = (d.join("src.co"), d.join("dst.co"));
                std::fs::write(&src, &old[source_id]).unwrap();
                std::fs::write(&out, &new[id]).unwrap();
                let source_cpu = source_id.rsplit("--").next().unwrap().split(':').next().unwrap();
                let (source_text, dest_text) = oracle_pair(&src, source_cpu, &out, dest);
                assert_eq!(dest_text, source_text, "{name}: {id}");
                added += 1;
            }
        }
        assert_eq!(added, expected, "{name}: entries added");
        let data = std::fs::read(&output).unwrap();
        if name.contains("ccob") && !name.ends_with(".so") {
            assert!(data.starts_with(b"CCOB"), "{name}: no longer compressed");
        }
        if name.ends_with(".so") {
            let new: Vec<String> = host::elflint(&output).difference(&host::elflint(&input)).cloned().collect();
            assert!(new.is_empty(), "{name}: eu-elflint --gnu-ld: {new:#?}");
            host::loads(&output);
            assert!(data.len() > std::fs::read(&input).unwrap().len(), "{name}: the host did not grow");
        }
    }
}

fn mkdir(p: PathBuf) -> PathBuf {
    std::fs::create_dir_all(&p).unwrap();
    p
}

/// `--to gfx10-3-generic` (and the other generic processors) writes code object v6: ABI
/// version 4, the generic processor's mach and `generic_v1` in `e_flags`, and the longer
/// metadata target string, for which the tables after the note move into the padding before
/// `.rodata`. Compared with clang-19's own build of the same source for the generic processor:
/// the same header fields and target string; LLVM's disassembly of the result (the processor
/// taken from `e_flags`) equals the source's.
#[test]
fn generic_destinations_write_code_object_v6() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::repo().join("fixtures/co");
    let header = |p: &Path| -> (String, String, String) {
        let h = llvm_tool("llvm-readelf-19", &["-h", "--notes", p.to_str().unwrap()]);
        let field = |name: &str| h.lines().find_map(|l| l.trim_start().strip_prefix(name)).unwrap_or_else(|| panic!("{}: no {name}", p.display())).trim().to_owned();
        (field("ABI Version:"), field("Flags:"), field("amdhsa.target:"))
    };
    let cases = [("gfx1030", "gfx10-3-generic"), ("gfx900", "gfx9-generic"), ("gfx1100", "gfx11-generic"), ("gfx1200", "gfx12-generic")];
    for (source, generic) in cases {
        let input = fixtures.join(format!("{source}/addr_math.O2.co"));
        let output = dir.path().join(format!("{generic}.co"));
        let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", generic, "-o", output.to_str().unwrap()]);
        assert!(o.status.success(), "{source} -> {generic}: {}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let clangs = fixtures.join(format!("{generic}/addr_math.O2.co"));
        let (abi, flags, target) = header(&output);
        assert_eq!((abi.as_str(), target.as_str()), ("4", format!("amdgcn-amd-amdhsa--{generic}").as_str()), "{generic}");
        assert!(flags.contains(generic) && flags.contains("generic_v1"), "{generic}: {flags}");
        assert_eq!((abi, flags, target), header(&clangs), "{source} -> {generic}: differs from clang-19's build for {generic}");
        let ours = llvm_tool("llvm-objdump-19", &["-d", output.to_str().unwrap()]);
        let ours: String = ours.lines().skip_while(|l| !l.starts_with("Disassembly")).collect::<Vec<_>>().join("\n");
        assert_eq!(ours, disassembly(&input, source), "{source} -> {generic}: LLVM's disassembly");
        let v = gfxpatch(&["verify", output.to_str().unwrap()]);
        assert!(v.status.success(), "{generic}: {}", String::from_utf8_lossy(&v.stdout));
    }
    // gfx1030 and gfx10-3-generic get the same code from clang-19: the retargeted file is
    // clang's own build for the generic processor, byte for byte.
    let ours = std::fs::read(dir.path().join("gfx10-3-generic.co")).unwrap();
    assert!(ours == std::fs::read(fixtures.join("gfx10-3-generic/addr_math.O2.co")).unwrap(), "gfx1030 -> gfx10-3-generic differs from clang-19's build");
}

/// gfx942's family is gfx9-4-generic (gfx942, gfx950). LLVM 19 does not know gfx950 or
/// gfx9-4-generic (asserted), LLVM 22 does: it is their oracle. Every gfx942 fixture of four
/// kinds retargets to both; `llvm-objdump-22 -d --mcpu=gfx950` of the gfx950 output, and
/// `llvm-objdump-22 -d` of the generic one (processor from `e_flags`), equal `llvm-objdump-22
/// -d --mcpu=gfx942` of the source (LLVM 22 prints `lit(0xffffffff)` where LLVM 19 prints
/// `-1`: the proof compares instructions, not texts, across the two LLVMs); LLVM 19 still
/// reads the output's code as gfx942 code exactly as the source's; only `e_flags` and the
/// metadata's target string change for gfx950; the generic output is code object v6 with
/// `generic_v1`, as `llvm-readelf-22` reads it; `gfxpatch verify` accepts both.
#[test]
fn gfx942_fixtures_retarget_to_gfx950_and_gfx9_4_generic() {
    let mc = std::process::Command::new("llvm-mc-19").args(["-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950"]).stdin(std::process::Stdio::null()).output().expect("llvm-mc-19");
    assert!(String::from_utf8_lossy(&mc.stderr).contains("'gfx950' is not a recognized processor"), "{}", String::from_utf8_lossy(&mc.stderr));
    let dir = tempfile::tempdir().unwrap();
    // emu_float has v_fma_mix_f32: our gfx9-4-generic decoder once read it as nothing.
    let inputs: Vec<PathBuf> = fixture_files("co/gfx942", "co")
        .into_iter()
        .filter(|p| ["addr_math.O2.co", "control_flow.O2.co", "hip_kernels.O2.co", "lds_reduce.O0.co", "emu_float.O2.co"].iter().any(|n| p.ends_with(n)))
        .collect();
    assert_eq!(inputs.len(), 5);
    let mut printed_apart = 0;
    for input in &inputs {
        let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", "gfx950,gfx9-4-generic", "--out-dir", dir.path().to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}{}", input.display(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let stem = input.file_name().unwrap().to_str().unwrap().strip_suffix(".co").unwrap();
        let source22 = disassembly_by("llvm-objdump-22", input, "gfx942");
        let source19 = disassembly(input, "gfx942");
        printed_apart += usize::from(source22 != source19);
        let original = std::fs::read(input).unwrap();
        for dest in ["gfx950", "gfx9-4-generic"] {
            let output = dir.path().join(format!("{stem}.{dest}.co"));
            let ours = if dest == "gfx950" { disassembly_by("llvm-objdump-22", &output, dest) } else { disassembly_by("llvm-objdump-22", &output, "") };
            assert_eq!(ours, source22, "{}: LLVM 22's disassembly for {dest} differs from the source's for gfx942", output.display());
            if dest == "gfx950" {
                // (LLVM 19 cannot read the generic object at all: it does not know its e_flags.)
                assert_eq!(disassembly(&output, "gfx942"), source19, "{}: LLVM 19 reads the code otherwise", output.display());
            }
            let header = llvm_tool("llvm-readelf-22", &["-h", "--notes", output.to_str().unwrap()]);
            let field = |name: &str| header.lines().find_map(|l| l.trim_start().strip_prefix(name)).unwrap_or_else(|| panic!("no {name}: {header}")).trim().to_owned();
            let flags = field("Flags:");
            assert!(flags.contains(dest), "{}: {flags}", output.display());
            // The source's features (none here: `any`) carry over.
            assert_eq!(field("amdhsa.target:"), format!("amdgcn-amd-amdhsa--{dest}"), "{}", output.display());
            if dest == "gfx950" {
                let bytes = std::fs::read(&output).unwrap();
                assert_eq!(bytes.len(), original.len());
                let object = gfxpatch::container::CodeObject::parse(&original).unwrap();
                let (note, len) = object.metadata_range.unwrap();
                assert!((0..bytes.len()).filter(|&i| bytes[i] != original[i]).all(|i| (48..52).contains(&i) || (note as usize..(note + len) as usize).contains(&i)), "{}", output.display());
            } else {
                assert_eq!(field("ABI Version:"), "4", "{}", output.display());
                assert!(flags.contains("generic_v1"), "{}: {flags}", output.display());
            }
            let v = gfxpatch(&["verify", output.to_str().unwrap()]);
            assert!(v.status.success(), "{}: {}{}", output.display(), String::from_utf8_lossy(&v.stdout), String::from_utf8_lossy(&v.stderr));
        }
    }
    // The two LLVMs print some of this code apart (`lit(0xffffffff)` against `-1`): the
    // comparison across them is exercised.
    assert!(printed_apart > 0);
}

/// The descriptor of a retargeted object is the source's, byte for byte; for gfx950 that is
/// what LLVM 22 writes for the same register counts: `llvm-mc-22` assembles the same
/// `.amdhsa_kernel` (VGPRs, AGPR offset, SGPRs, LDS, scratch) into the same 64 bytes for gfx942,
/// gfx950 and gfx9-4-generic, the granulated VGPR and SGPR counts included. (The test tells
/// counts apart: 72 and 80 VGPRs give different descriptors.)
#[test]
fn gfx950_descriptors_equal_gfx942s_for_the_same_counts() {
    let dir = tempfile::tempdir().unwrap();
    let descriptor = |mcpu: &str, vgprs: u32, accum: u32, sgprs: u32| -> Vec<u8> {
        let s = format!(
            "\t.amdgcn_target \"amdgcn-amd-amdhsa--{mcpu}\"\n\t.amdhsa_code_object_version 5\n\t.text\n\t.globl k\n\t.p2align 8\nk:\n\ts_endpgm\n\t.rodata\n\t.p2align 6\n\t.amdhsa_kernel k\n\t.amdhsa_next_free_vgpr {vgprs}\n\t.amdhsa_accum_offset {accum}\n\t.amdhsa_next_free_sgpr {sgprs}\n\t.amdhsa_group_segment_fixed_size 4096\n\t.amdhsa_private_segment_fixed_size 64\n\t.end_amdhsa_kernel\n"
        );
        let src = dir.path().join(format!("{mcpu}.{vgprs}.{sgprs}.s"));
        std::fs::write(&src, s).unwrap();
        let obj = src.with_extension("o");
        llvm_tool("llvm-mc-22", &["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={mcpu}"), "-filetype=obj", src.to_str().unwrap(), "-o", obj.to_str().unwrap()]);
        let raw = obj.with_extension("bin");
        llvm_tool("llvm-objcopy-22", &["-O", "binary", "--only-section=.rodata", obj.to_str().unwrap(), raw.to_str().unwrap()]);
        let bytes = std::fs::read(&raw).unwrap();
        assert_eq!(bytes.len(), 64, "{mcpu}: a kernel descriptor");
        bytes
    };
    for (vgprs, accum, sgprs) in [(1, 4, 1), (8, 4, 8), (72, 64, 74), (129, 128, 100), (256, 132, 96), (512, 256, 102)] {
        let theirs = descriptor("gfx942", vgprs, accum, sgprs);
        assert_eq!(descriptor("gfx950", vgprs, accum, sgprs), theirs, "{vgprs} VGPRs, {sgprs} SGPRs");
        assert_eq!(descriptor("gfx9-4-generic", vgprs, accum, sgprs), theirs, "{vgprs} VGPRs, {sgprs} SGPRs");
    }
    assert_ne!(descriptor("gfx950", 72, 64, 74), descriptor("gfx950", 80, 64, 74));
}

/// gfx1153, which LLVM 19 does not know, is gfx1152 to LLVM 22 but for `point-sample-accel`
/// (a wait-count matter, in gfxpatch's hazard table), and to our tables exactly gfx1152:
/// `llvm-objdump-22` disassembles 400,000 random words the same for gfx1152 and gfx1153 (and,
/// the sweep being able to tell, otherwise for gfx1100, which has no SALU float), and our
/// decoders for the two decode alike. Code assembled for gfx1153 by `llvm-mc-22` retargets to
/// the other members, LLVM 22's disassembly for each equal to the source's for gfx1153.
#[test]
fn gfx1153_is_gfx1152_to_llvm_22() {
    use gfxpatch::isa::{Decoder, Target};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A deterministic pseudo-random sweep (xorshift), as bytes in an assembler file.
    let mut x: u32 = 0x9e37_79b9;
    let mut s = String::from("\t.text\n");
    for _ in 0..400_000 / 16 {
        let words: Vec<String> = (0..16)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                format!("{x:#x}")
            })
            .collect();
        s.push_str(&format!("\t.long {}\n", words.join(",")));
    }
    let src = d.join("sweep.s");
    std::fs::write(&src, s).unwrap();
    let obj = d.join("sweep.o");
    llvm_tool("llvm-mc-22", &["-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1152", "-filetype=obj", src.to_str().unwrap(), "-o", obj.to_str().unwrap()]);
    let gfx1152 = disassembly_by("llvm-objdump-22", &obj, "gfx1152");
    assert!(gfx1152.lines().count() > 300_000);
    assert!(gfx1152 == disassembly_by("llvm-objdump-22", &obj, "gfx1153"), "LLVM 22 decodes gfx1153 otherwise than gfx1152");
    assert!(gfx1152 != disassembly_by("llvm-objdump-22", &obj, "gfx1100"), "the sweep cannot tell processors apart");
    let decoder = |p: &str| Decoder::new(Target::from_name(p, "").unwrap());
    assert!(decoder("gfx1153").decodes_alike(&decoder("gfx1152")));

    let input = kernel(d, "k1153", "gfx1153", "gfx1153", "\tv_add_f32 v2, v0, v1\n\tv_exp_f32 v3, v2\n\tv_mul_f32 v4, v3, v2\n\ts_add_f32 s0, s1, s2", true);
    let dests = ["gfx1150", "gfx1151", "gfx1152"];
    let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", "gfx1150,gfx1151,gfx1152", "--out-dir", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    for dest in dests {
        let (source_text, dest_text) = oracle_pair(&input, "gfx1153", &d.join(format!("k1153.{dest}.co")), dest);
        assert_eq!(dest_text, source_text, "gfx1153 -> {dest}");
    }
    // SALU float does not exist on gfx1100-gfx1103, nor therefore on gfx11-generic.
    let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", "gfx1103", "--check"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("s_add_f32 s0, s1, s2: does not exist on gfx1103"), "{}", String::from_utf8_lossy(&o.stdout));
}

/// The check skips the destination's decode where the two processors decode alike (same
/// decode group and class: exactly the same candidates). Which pairs are alike is a fact of
/// LLVM's predicates (gfx1030's decoder is every gfx103x's; gfx906 has `v_fmac_f32`, gfx900
/// has not); and where they are, the decodes of real code agree word for word.
#[test]
fn processors_that_decode_alike_decode_fixtures_alike() {
    use gfxpatch::isa::{Decoder, Target};
    let decoder = |p: &str| Decoder::new(Target::from_name(p, "").unwrap());
    let alike = |a: &str, b: &str| decoder(a).decodes_alike(&decoder(b));
    for p in ["gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"] {
        assert!(alike("gfx1030", p), "gfx1030, {p}");
    }
    for p in ["gfx902", "gfx909", "gfx90c"] {
        assert!(alike("gfx900", p), "gfx900, {p}");
    }
    for (a, b) in [("gfx900", "gfx906"), ("gfx900", "gfx904"), ("gfx1010", "gfx1011"), ("gfx1102", "gfx1151"), ("gfx1030", "gfx1100"), ("gfx942", "gfx950")] {
        assert!(!alike(a, b), "{a}, {b}");
    }
    for (source, other) in [("gfx1030", "gfx1034"), ("gfx900", "gfx90c")] {
        let (ours, theirs) = (decoder(source), decoder(other));
        for input in fixture_files(&format!("co/{source}"), "co") {
            let bytes = std::fs::read(&input).unwrap();
            let object = gfxpatch::container::CodeObject::parse(&bytes).unwrap();
            for section in object.sections.iter().filter(|s| s.name == ".text") {
                let text = &bytes[section.offset as usize..(section.offset + section.size) as usize];
                let mut at = 0;
                while at < text.len() {
                    let inst = ours.decode(&text[at..]);
                    assert!(inst == theirs.decode(&text[at..]), "{}: {other} decodes {:#x} otherwise", input.display(), section.address + at as u64);
                    at += inst.len().max(4);
                }
            }
        }
    }
}

/// Why no family has a "VGPR count beyond the destination's limit": every member of each
/// family encodes VGPRs in the same granule (wave32 and wave64) and addresses as many.
#[test]
fn family_members_share_vgpr_granules_and_limits() {
    use gfxpatch::container::descriptor::vgpr_encoding_granule;
    use gfxpatch::retarget::{addressable_vgprs, FAMILIES};
    for (generic, members) in FAMILIES {
        let first = gfxpatch::isa::Processor::by_name(members[0]).unwrap();
        for m in *members {
            let p = gfxpatch::isa::Processor::by_name(m).unwrap();
            for wave in [32, 64] {
                assert_eq!(vgpr_encoding_granule(p.generation, wave), vgpr_encoding_granule(first.generation, wave), "{generic}: {m} wave{wave}");
            }
            assert_eq!(addressable_vgprs(p), addressable_vgprs(first), "{generic}: {m}");
        }
    }
}

/// `gfxpatch info` lists for each code object the processors it retargets to (the same
/// checks), the generic one when every member takes it, and the first blocker of the others.
#[test]
fn info_lists_the_processors_each_object_retargets_to() {
    let input = common::repo().join("fixtures/bundle/hip_kernels.hipfb");
    let o = gfxpatch(&["info", "--json", input.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let object = |processor: &str| report["code_objects"].as_array().unwrap().iter().find(|o| o["processor"] == processor).unwrap().clone();
    let names = |v: &serde_json::Value| -> Vec<String> { v.as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned()).collect() };
    assert_eq!(names(&object("gfx1030")["retargets_to"]), ["gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx10-3-generic"]);
    let gfx906 = object("gfx906");
    assert!(names(&gfx906["retargets_to"]).is_empty());
    let refusals = gfx906["not_retargets_to"].as_array().unwrap();
    assert_eq!(refusals.len(), 5);
    assert!(refusals.iter().all(|r| r["why"].as_str().unwrap().contains("v_fmac_f32_e32") && r["why"].as_str().unwrap().contains("does not exist on")), "{refusals:?}");
    // gfx942's code (no MFMA) runs on gfx950, and so on every member of gfx9-4-generic.
    assert_eq!(names(&object("gfx942")["retargets_to"]), ["gfx950", "gfx9-4-generic"]);
    let text = String::from_utf8_lossy(&gfxpatch(&["info", input.to_str().unwrap()]).stdout).into_owned();
    assert!(text.contains("gfx1030 retargets to: gfx10-3-generic gfx1031 gfx1032") && text.contains("gfx906 retargets to: none; not gfx900 gfx902"), "{text}");
}

/// Debian's librocsparse and librocrand, written: gfx1030 objects to gfx1031-gfx1036, gfx900
/// objects to gfx902/gfx909/gfx90c, a new entry in every bundle that has a source for the
/// destination. The output passes `eu-elflint --gnu-ld` (nothing new), loads with
/// `ctypes.CDLL`, and `clang-offload-bundler-19` lists and extracts every entry of every
/// bundle; the original entries keep their bytes; the new entries of the first bundle
/// disassemble for their processor as their source does for its own. Behind
/// `GFXPATCH_CORPUS=1` (release: `GFXPATCH_CORPUS=1 cargo test --release --test retarget corpus`).
#[test]
fn corpus_libraries_are_written_with_new_entries() {
    if std::env::var_os("GFXPATCH_CORPUS").is_none() {
        eprintln!("skipped: set GFXPATCH_CORPUS=1 (and run scripts/fetch-corpus.sh) for the corpus test");
        return;
    }
    let dests = ["gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx902", "gfx909", "gfx90c"];
    let dir = tempfile::tempdir().unwrap();
    for lib in ["librocsparse.so.0.1", "librocrand.so.1.1"] {
        let input = common::corpus_file(lib);
        let output = dir.path().join(lib);
        let o = gfxpatch(&["retarget", input.to_str().unwrap(), "--to", &dests.join(","), "-o", output.to_str().unwrap(), "--json"]);
        assert!(o.status.success(), "{lib}: {}", String::from_utf8_lossy(&o.stderr));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        for row in report["rows"].as_array().unwrap() {
            eprintln!("{lib}: {} -> {}: {} retarget, {} refused {}", row["source"], row["destination"], row["retargets"], row["refused"], row["reasons"]);
            if ["gfx1030", "gfx900"].contains(&row["source"].as_str().unwrap()) {
                assert_eq!(row["refused"], 0, "{lib}: {row}");
            }
        }
        let added = report["added"].as_array().unwrap().len();
        eprintln!("{lib}: {added} entries added");
        let new: Vec<String> = host::elflint(&output).difference(&host::elflint(&input)).cloned().collect();
        assert!(new.is_empty(), "{lib}: eu-elflint --gnu-ld: {new:#?}");
        host::loads(&output);
        let before = unbundled(&input, &mkdir(dir.path().join(format!("in.{lib}"))));
        let after = unbundled(&output, &mkdir(dir.path().join(format!("out.{lib}"))));
        assert_eq!(before.len(), after.len());
        let mut new_entries = 0;
        for (k, (old, new)) in before.iter().zip(&after).enumerate() {
            for (id, bytes) in old {
                assert!(new.get(id) == Some(bytes), "{lib}: bundle {k}: {id} changed");
            }
            // `...--gfx902:xnack-` made from `...--gfx900:xnack-`: the processor, with or without features.
            let has = |entries: &std::collections::BTreeMap<String, Vec<u8>>, p: &str| entries.keys().any(|id| id.ends_with(&format!("--{p}")) || id.contains(&format!("--{p}:")));
            for dest in dests {
                let source = if dest.starts_with("gfx103") { "gfx1030" } else { "gfx900" };
                if has(old, source) && !has(old, dest) {
                    assert!(has(new, dest), "{lib}: bundle {k} has {source} but no entry for {dest}: {:?}", new.keys().collect::<Vec<_>>());
                }
            }
            let added_here: Vec<&String> = new.keys().filter(|id| !old.contains_key(*id)).collect();
            new_entries += added_here.len();
            if k == 0 {
                for id in added_here {
                    // `gfx902:xnack-`: llvm-objdump takes the processor alone.
                    let dest = id.rsplit("--").next().unwrap().split(':').next().unwrap();
                    // The entry it was made from, as the report names it.
                    let froms: Vec<&str> = report["added"].as_array().unwrap().iter().filter(|a| a["id"] == id.as_str()).map(|a| a["from"].as_str().unwrap()).collect();
                    let source_id = old.keys().find(|s| froms.contains(&s.as_str())).unwrap();
                    let source = source_id.rsplit("--").next().unwrap().split(':').next().unwrap();
                    let (src, out) = (dir.path().join("src.co"), dir.path().join("dst.co"));
                    std::fs::write(&src, &old[source_id]).unwrap();
                    std::fs::write(&out, &new[id]).unwrap();
                    assert_eq!(disassembly(&out, dest), disassembly(&src, source), "{lib}: {id}");
                }
            }
        }
        assert_eq!(new_entries, added, "{lib}: entries the bundler finds");
    }
}
