//! Graphics code objects (issue 31, item 1): every fixture under `fixtures/graphics/` (vertex,
//! pixel, geometry and compute shaders from `fixtures/src/graphics/*.ll`, compiled by llc-19 for
//! `amdgcn-amd-amdpal` and `amdgcn-mesa-mesa3d` on gfx900, gfx1030, gfx1100 and gfx1201, and
//! one pixel shader with the legacy `NT_AMD_PAL_METADATA` note):
//!
//! * `info` names each shader's stage, entry and register counts, and they equal what
//!   `llvm-readelf-19 --notes` (the PAL msgpack) and `llvm-readelf-19 -x .AMDGPU.config` (Mesa's
//!   register pairs) say, parsed here on their own and decoded here with the hardware's field
//!   layout, not gfxpatch's;
//! * `disasm` equals `llvm-objdump-19 -d`;
//! * the identity rewrite is byte-exact; `insert-nops` verifies and keeps the counts
//!   consistent; a rewrite that needs more registers raises RSRC1 and the metadata together;
//! * malformed inputs (bad msgpack, an odd-length config section, a stage whose entry symbol is
//!   missing) give an error naming the file and the fault, exit 2, no panic, no output file.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{gfxpatch, llvm_tool};
use serde_json::Value;

fn fixtures() -> Vec<PathBuf> {
    let all = common::fixture_files("graphics", "co");
    assert_eq!(all.len(), 33, "4 shaders x 2 ABIs x 4 targets, and the legacy PAL note: {all:?}");
    all
}

fn target_of(path: &Path) -> String {
    path.parent().unwrap().file_name().unwrap().to_str().unwrap().to_owned()
}

fn is_pal(path: &Path) -> bool {
    path.to_str().unwrap().ends_with(".pal.co") || is_legacy(path)
}

/// The pixel shader whose PAL metadata is the legacy register-pair note.
fn is_legacy(path: &Path) -> bool {
    path.to_str().unwrap().ends_with(".pal-legacy.co")
}

/// The stage the fixture's file name promises.
fn stage_of(path: &Path) -> &'static str {
    let name = path.file_name().unwrap().to_str().unwrap();
    match name.split('.').next().unwrap() {
        "vertex" => "vs",
        "pixel" => "ps",
        "geometry" => "gs",
        "compute" => "cs",
        other => panic!("unknown fixture {other}"),
    }
}

/// One hardware stage as `llvm-readelf-19 --notes` prints the PAL metadata.
#[derive(Debug, Default)]
struct PalStage {
    entry_point: Option<String>,
    vgpr_count: Option<u64>,
    sgpr_count: Option<u64>,
    scratch_memory_size: Option<u64>,
}

/// `.hardware_stages` and `.registers` from readelf's YAML rendering of the note.
fn readelf_pal(file: &Path) -> (BTreeMap<String, PalStage>, BTreeMap<u32, u32>) {
    let text = llvm_tool("llvm-readelf-19", &["--notes", file.to_str().unwrap()]);
    let mut stages: BTreeMap<String, PalStage> = BTreeMap::new();
    let mut registers = BTreeMap::new();
    let (mut section, mut stage) = ("", String::new());
    for line in text.lines() {
        let trimmed = line.trim();
        match trimmed {
            "- .hardware_stages:" | ".hardware_stages:" => section = "stages",
            ".registers:" => section = "registers",
            _ if trimmed.starts_with('.') && trimmed.ends_with(':') && section == "stages" => {
                stage = trimmed.trim_start_matches('.').trim_end_matches(':').to_owned();
                stages.entry(stage.clone()).or_default();
            }
            _ => {
                let Some((key, value)) = trimmed.split_once(':') else { continue };
                let value = value.trim();
                match section {
                    "stages" if !stage.is_empty() => {
                        let s = stages.get_mut(&stage).unwrap();
                        match key {
                            ".entry_point" => s.entry_point = Some(value.to_owned()),
                            ".vgpr_count" => s.vgpr_count = value.parse().ok(),
                            ".sgpr_count" => s.sgpr_count = value.parse().ok(),
                            ".scratch_memory_size" => s.scratch_memory_size = value.parse().ok(),
                            _ => {}
                        }
                    }
                    "registers" => {
                        if let (Ok(k), Ok(v)) = (key.parse::<u32>(), value.parse::<u32>()) {
                            registers.insert(k, v);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    (stages, registers)
}

/// The legacy note as readelf prints it, `[11274: 36634752][11275: 0]...`: key -> value.
fn readelf_legacy(file: &Path) -> BTreeMap<u32, u32> {
    let text = llvm_tool("llvm-readelf-19", &["--notes", file.to_str().unwrap()]);
    let line = text.lines().find(|l| l.trim_start().starts_with('[')).expect("no NT_AMD_PAL_METADATA pairs");
    line.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split("][")
        .map(|pair| {
            let (k, v) = pair.split_once(": ").unwrap();
            (k.parse().unwrap(), v.parse().unwrap())
        })
        .collect()
}

/// One stage and the registers, from whichever PAL note the object has. The legacy note's
/// facts are numbered per stage (LS, HS, ES, GS, VS, PS, CS): PAL's `NUM_USED_VGPRS` is
/// 0x10000021 + stage, `NUM_USED_SGPRS` 0x10000028 + stage, `SCRATCH_SIZE` 0x10000044 + stage.
fn readelf_pal_stage(file: &Path, stage: &str) -> (PalStage, BTreeMap<u32, u32>) {
    if !is_legacy(file) {
        let (mut stages, registers) = readelf_pal(file);
        assert_eq!(stages.keys().collect::<Vec<_>>(), [stage], "{}", file.display());
        return (stages.remove(stage).unwrap(), registers);
    }
    let pairs = readelf_legacy(file);
    let n = ["ls", "hs", "es", "gs", "vs", "ps", "cs"].iter().position(|s| *s == stage).unwrap() as u32;
    let fact = |base: u32| pairs.get(&(base + n)).map(|&v| u64::from(v));
    let s = PalStage {
        entry_point: Some(format!("_amdgpu_{stage}_main")),
        vgpr_count: fact(0x1000_0021),
        sgpr_count: fact(0x1000_0028),
        scratch_memory_size: fact(0x1000_0044),
    };
    (s, pairs.into_iter().filter(|&(k, _)| k < 0x1000_0000).collect())
}

/// `.AMDGPU.config` as (register, value) pairs, from `llvm-readelf-19 -x`.
fn readelf_config(file: &Path) -> Vec<(u32, u32)> {
    let text = llvm_tool("llvm-readelf-19", &["-x", ".AMDGPU.config", file.to_str().unwrap()]);
    let mut words = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("0x")) {
        // "0x00000000 48b80000 80002f60 4cb80000 04800000 H...": up to four 8-digit groups.
        for group in line.split_whitespace().skip(1).take(4) {
            if group.len() != 8 || !group.chars().all(|c| c.is_ascii_hexdigit()) {
                break;
            }
            let bytes: Vec<u8> = (0..4).map(|i| u8::from_str_radix(&group[2 * i..2 * i + 2], 16).unwrap()).collect();
            words.push(u32::from_le_bytes(bytes.try_into().unwrap()));
        }
    }
    assert!(words.len() % 2 == 0, "{}: odd number of config words", file.display());
    words.chunks(2).map(|p| (p[0], p[1])).collect()
}

/// The hardware's `*_PGM_RSRC1` dword offset for a stage (register reference, not gfxpatch's).
fn rsrc1_dword(stage: &str) -> u32 {
    match stage {
        "ps" => 0x2c0a,
        "vs" => 0x2c4a,
        "gs" => 0x2c8a,
        "cs" => 0x2e12,
        other => panic!("{other}"),
    }
}

/// VGPRs and (before GFX10) SGPRs an RSRC1 value allocates, for LLVM's default wave size of
/// the target (wave64 on GFX9, wave32 after, which every fixture is compiled with).
fn allocation(rsrc1: u32, target: &str) -> (u64, Option<u64>) {
    let gfx9 = target == "gfx900";
    let granule = if gfx9 { 4 } else { 8 };
    let vgprs = u64::from((rsrc1 & 0x3f) + 1) * granule;
    let sgprs = gfx9.then(|| u64::from(((rsrc1 >> 6) & 0xf) + 1) * 8);
    (vgprs, sgprs)
}

fn the_shader(info: &Value, file: &Path) -> Value {
    let shaders = info["code_objects"][0]["shaders"].as_array().unwrap_or_else(|| panic!("{}: no shaders in info", file.display()));
    assert_eq!(shaders.len(), 1, "{}: {shaders:?}", file.display());
    shaders[0].clone()
}

#[test]
fn info_agrees_with_readelf_notes_and_config() {
    for file in fixtures() {
        let target = target_of(&file);
        let stage = stage_of(&file);
        let info = common::info_json(&file);
        let object = &info["code_objects"][0];
        assert_eq!(object["os_abi"], if is_pal(&file) { "pal" } else { "mesa3d" }, "{}", file.display());
        assert_eq!(object["processor"], target.as_str());
        let shader = the_shader(&info, &file);
        let what = format!("{}: {shader}", file.display());
        assert_eq!(shader["stage"], stage, "{what}");
        assert_eq!(shader["name"], format!("_amdgpu_{stage}_main"), "{what}");
        assert_eq!(shader["disagreements"], serde_json::json!([]), "{what}");
        let rsrc1 = if is_pal(&file) {
            let (s, registers) = readelf_pal_stage(&file, stage);
            assert!(s.vgpr_count.is_some() && s.sgpr_count.is_some(), "{what}: {s:?}");
            assert_eq!(shader["registers_from"], if is_legacy(&file) { "pal_legacy_note" } else { "pal_metadata" }, "{what}");
            assert_eq!(s.entry_point.as_deref(), shader["name"].as_str(), "{what}");
            assert_eq!(s.vgpr_count, shader["vgpr_count"].as_u64(), "{what}");
            assert_eq!(s.sgpr_count, shader["sgpr_count"].as_u64(), "{what}");
            assert_eq!(s.scratch_memory_size, shader["scratch_memory_size"].as_u64(), "{what}");
            let rsrc1 = registers[&rsrc1_dword(stage)];
            assert_eq!(registers.get(&(rsrc1_dword(stage) + 1)).copied().map(u64::from), shader["rsrc2"].as_u64(), "{what}");
            // The exact counts fit the blocks LLVM derived from them.
            let (vgprs, sgprs) = allocation(rsrc1, &target);
            assert!(s.vgpr_count.unwrap() <= vgprs && s.vgpr_count.unwrap() + 8 > vgprs, "{what}");
            if let Some(sgprs) = sgprs {
                assert!(s.sgpr_count.unwrap() <= sgprs, "{what}");
            }
            rsrc1
        } else {
            let pairs = readelf_config(&file);
            assert_eq!(pairs[0].0, rsrc1_dword(stage) * 4, "{what}: the first pair is the stage's RSRC1");
            assert!(shader["vgpr_count"].is_null() && shader["sgpr_count"].is_null(), "{what}");
            let rsrc2 = pairs.iter().find(|p| p.0 == rsrc1_dword(stage) * 4 + 4).map(|p| u64::from(p.1));
            assert_eq!(shader["rsrc2"].as_u64(), rsrc2, "{what}");
            pairs[0].1
        };
        assert_eq!(shader["rsrc1"].as_u64(), Some(u64::from(rsrc1)), "{what}");
        let (vgprs, sgprs) = allocation(rsrc1, &target);
        assert_eq!(shader["registers"]["vgprs"].as_u64(), Some(vgprs), "{what}");
        assert_eq!(shader["registers"]["sgprs"].as_u64(), sgprs, "{what}");
        if stage == "cs" {
            // LDS_SIZE, COMPUTE_PGM_RSRC2 bits 15-23, in 512-byte granules: the 256-byte array.
            assert_eq!(shader["lds_size"].as_u64(), Some(512), "{what}");
        }
        // The text form says the same.
        let text = gfxpatch(&["info", file.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(text.contains(&format!("_amdgpu_{stage}_main")) && text.contains(&format!("{rsrc1:#010x}")), "{text}");
    }
}

/// The fixtures grouped by target directory: one process of each tool per target rather than
/// one per file (each of our processes maps LLVM; ~130 runs cost CI tens of seconds).
fn by_target(files: &[PathBuf]) -> BTreeMap<String, Vec<PathBuf>> {
    let mut groups = BTreeMap::<String, Vec<PathBuf>>::new();
    for file in files {
        groups.entry(target_of(file)).or_default().push(file.clone());
    }
    groups
}

fn strs(files: &[PathBuf]) -> Vec<&str> {
    files.iter().map(|f| f.to_str().unwrap()).collect()
}

/// Our disassembly of `files` equals llvm-objdump-19's (both print the files in order).
fn assert_disasm_equals_objdump(files: &[PathBuf], target: &str) -> String {
    let mut args = vec!["disasm"];
    args.extend(strs(files));
    let ours = gfxpatch(&args);
    assert!(ours.status.success(), "{target}: {}", String::from_utf8_lossy(&ours.stderr));
    let mcpu = format!("--mcpu={target}");
    let mut args = vec!["-d", mcpu.as_str()];
    args.extend(strs(files));
    let theirs = llvm_tool("llvm-objdump-19", &args);
    let ours = String::from_utf8_lossy(&ours.stdout).into_owned();
    // Per file, so that a difference names its fixture.
    for (a, b) in ours.split("\n\n/").zip(theirs.split("\n\n/")) {
        assert_eq!(a, b, "{target}");
    }
    assert_eq!(ours, theirs, "{target}");
    ours
}

#[test]
fn disasm_equals_llvm_objdump() {
    for (target, files) in by_target(&fixtures()) {
        assert_disasm_equals_objdump(&files, &target);
    }
}

/// Counts the output's registers and metadata record, for comparing before and after.
fn counts(shader: &Value) -> (u64, u64, Option<u64>, Option<u64>) {
    (
        shader["registers"]["vgprs"].as_u64().unwrap(),
        shader["registers"]["sgpr_blocks"].as_u64().unwrap(),
        shader["vgpr_count"].as_u64(),
        shader["sgpr_count"].as_u64(),
    )
}

#[test]
fn identity_is_byte_exact_and_insert_nops_verifies() {
    let dir = tempfile::tempdir().unwrap();
    for (target, files) in by_target(&fixtures()) {
        let identity = dir.path().join("id").join(&target);
        let nops = dir.path().join("nops").join(&target);
        for (out_dir, passes) in [(&identity, None), (&nops, Some("insert-nops"))] {
            let mut args = vec!["rewrite", "-q", "--out-dir", out_dir.to_str().unwrap()];
            if let Some(passes) = passes {
                args.extend(["--passes", passes]);
            }
            args.extend(strs(&files));
            let out = gfxpatch(&args);
            assert!(out.status.success(), "{target}: {}", String::from_utf8_lossy(&out.stderr));
        }
        let written: Vec<PathBuf> = files.iter().map(|f| nops.join(f.file_name().unwrap())).collect();
        for (file, out) in files.iter().zip(&written) {
            let name = format!("{target}/{}", file.file_name().unwrap().to_str().unwrap());
            let input = std::fs::read(file).unwrap();
            let same = std::fs::read(identity.join(file.file_name().unwrap())).unwrap();
            assert!(same == input, "{name}: identity rewrite changed bytes");
            let changed = std::fs::read(out).unwrap();
            assert!(changed.len() > input.len() || changed != input, "{name}: insert-nops changed nothing");
        }
        let mut args = vec!["verify"];
        args.extend(strs(&written));
        let verify = gfxpatch(&args);
        assert!(verify.status.success(), "{target}: {}", String::from_utf8_lossy(&verify.stdout));
        let listing = assert_disasm_equals_objdump(&written, &target);
        for (file, text) in files.iter().zip(listing.split("file format").skip(1)) {
            assert!(text.matches("s_nop 0").count() >= 3, "{}: no nops inserted", file.display());
        }
        for (file, out) in files.iter().zip(&written) {
            let name = out.display();
            // No register was needed: the counts are the input's, and still agree with each other.
            let before = the_shader(&common::info_json(file), file);
            let after = the_shader(&common::info_json(out), out);
            assert_eq!(counts(&before), counts(&after), "{name}");
            assert_eq!(after["disagreements"], serde_json::json!([]), "{name}");
            assert_eq!(before["entry_address"], after["entry_address"], "{name}");
        }
    }
}

/// A rewrite that needs more registers (the count-blocks probes take VGPRs and SGPRs beyond
/// the shader's own) raises RSRC1 and, in PAL objects, the metadata's counts, consistently.
#[test]
fn a_rewrite_needing_registers_raises_rsrc1_and_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let cases = ["gfx900/vertex.pal.co", "gfx900/pixel.mesa.co", "gfx1030/geometry.pal.co", "gfx1030/pixel.pal-legacy.co", "gfx1100/compute.pal.co", "gfx1201/pixel.mesa.co"];
    for case in cases {
        let file = common::repo().join("fixtures/graphics").join(case);
        let out_path = dir.path().join(case.replace('/', "."));
        let out = gfxpatch(&["instrument", "-q", "--probe", "count-blocks", file.to_str().unwrap(), "-o", out_path.to_str().unwrap()]);
        assert!(out.status.success(), "{case}: {}", String::from_utf8_lossy(&out.stderr));
        let verify = gfxpatch(&["verify", out_path.to_str().unwrap()]);
        assert!(verify.status.success(), "{case}: {}", String::from_utf8_lossy(&verify.stdout));
        let before = the_shader(&common::info_json(&file), &file);
        let after = the_shader(&common::info_json(&out_path), &out_path);
        assert_eq!(after["disagreements"], serde_json::json!([]), "{case}: {after}");
        let (v0, s0, _, _) = counts(&before);
        let (v1, s1, vc, sc) = counts(&after);
        assert!(v1 >= v0 && s1 >= s0, "{case}: counts were lowered");
        assert!(v1 > v0 || s1 > s0 || vc > before["vgpr_count"].as_u64(), "{case}: the probes' registers were not granted: {before} -> {after}");
        let rsrc1 = after["rsrc1"].as_u64().unwrap() as u32;
        if is_pal(&file) {
            // The note as LLVM's reader sees it holds the raised RSRC1 and counts.
            let stage = stage_of(&file);
            let (s, registers) = readelf_pal_stage(&out_path, stage);
            assert_eq!(registers[&rsrc1_dword(stage)], rsrc1, "{case}");
            assert_eq!(s.vgpr_count, vc, "{case}");
            assert_eq!(s.sgpr_count, sc, "{case}");
            assert!(vc.unwrap() <= allocation(rsrc1, &target_of(&file)).0, "{case}");
        } else {
            assert_eq!(readelf_config(&out_path)[0].1, rsrc1, "{case}");
        }
    }
}

// ---- malformed inputs --------------------------------------------------------------------

/// File offset and size of the section named `name` (ELF64 little-endian, read by hand).
fn section(bytes: &[u8], name: &str) -> (usize, usize, usize) {
    let u16_at = |at: usize| u16::from_le_bytes(bytes[at..at + 2].try_into().unwrap()) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let (shoff, shnum, shstrndx) = (u64_at(0x28), u16_at(0x3c), u16_at(0x3e));
    let header = |i: usize| shoff + 64 * i;
    let names = u64_at(header(shstrndx) + 24);
    for i in 0..shnum {
        let h = header(i);
        let at = names + u32_at(h);
        let end = at + bytes[at..].iter().position(|&b| b == 0).unwrap();
        if &bytes[at..end] == name.as_bytes() {
            return (h, u64_at(h + 24), u64_at(h + 32));
        }
    }
    panic!("no section {name}");
}

/// Runs `info` and `rewrite` on `bytes`; both must fail cleanly with a message containing the
/// file name and every one of `expected`, and the rewrite must write nothing.
fn refused(bytes: &[u8], stem: &str, expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{stem}.co"));
    std::fs::write(&path, bytes).unwrap();
    let output = dir.path().join("out.co");
    for args in [vec!["info", path.to_str().unwrap()], vec!["rewrite", "-q", path.to_str().unwrap(), "-o", output.to_str().unwrap()]] {
        let out = gfxpatch(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: want a clean failure (exit 2, no panic): {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stderr.contains(&format!("{stem}.co")), "{args:?}: the error names no file: {stderr}");
        for e in expected {
            assert!(stderr.contains(e), "{args:?}: want {e:?} in: {stderr}");
        }
    }
    assert!(!output.exists(), "a refused rewrite wrote {}", output.display());
}

fn fixture_bytes(case: &str) -> Vec<u8> {
    std::fs::read(common::repo().join("fixtures/graphics").join(case)).unwrap()
}

#[test]
fn malformed_pal_msgpack_is_refused_with_its_offset() {
    let mut bytes = fixture_bytes("gfx1030/pixel.pal.co");
    let key = b"amdpal.pipelines";
    let at = bytes.windows(key.len()).position(|w| w == key).unwrap();
    // The document is a one-entry map: fixmap(1), fixstr(16), the key. 0xc1 is never used.
    assert_eq!(&bytes[at - 2..at], &[0x81, 0xb0]);
    let offset = format!("offset {:#x}", at - 2);
    let mut reserved = bytes.clone();
    reserved[at - 2] = 0xc1;
    refused(&reserved, "reserved_marker", &["NT_AMDGPU_METADATA", &offset, "not a map"]);
    // A map of two entries with one in the note: the decoder runs out of bytes.
    bytes[at - 2] = 0x82;
    refused(&bytes, "truncated_msgpack", &["NT_AMDGPU_METADATA msgpack", &offset]);
}

#[test]
fn odd_length_config_section_is_refused() {
    let mut bytes = fixture_bytes("gfx900/pixel.mesa.co");
    let (header, offset, size) = section(&bytes, ".AMDGPU.config");
    assert_eq!(size % 8, 0);
    bytes[header + 32..header + 40].copy_from_slice(&((size - 4) as u64).to_le_bytes());
    refused(&bytes, "odd_config", &[".AMDGPU.config", &format!("{offset:#x}"), &format!("{} bytes long", size - 4)]);
}

#[test]
fn config_run_without_its_shader_symbol_is_refused() {
    // The shader's symbol made local: two runs' worth of nothing to pair the registers with.
    let mut bytes = fixture_bytes("gfx1100/compute.mesa.co");
    let (_, symtab, size) = section(&bytes, ".symtab");
    for sym in (symtab..symtab + size).step_by(24) {
        if bytes[sym + 4] == 0x12 {
            bytes[sym + 4] = 0x02; // STB_GLOBAL|STT_FUNC -> STB_LOCAL|STT_FUNC
        }
    }
    refused(&bytes, "no_shader_symbol", &[".AMDGPU.config", "1 shader(s)", "0 global function symbol(s)"]);
}

#[test]
fn stage_whose_entry_symbol_is_missing_is_refused() {
    // The metadata's .entry_point renamed (same length); the symbol tables keep the old name.
    let mut bytes = fixture_bytes("gfx1201/vertex.pal.co");
    let (_, note, size) = section(&bytes, ".note");
    let name = b"_amdgpu_vs_main";
    let at = note + bytes[note..note + size].windows(name.len()).position(|w| w == name).unwrap();
    bytes[at..at + name.len()].copy_from_slice(b"_amdgpu_vs_mein");
    refused(&bytes, "no_entry", &["hardware stage vs", "_amdgpu_vs_mein", "not a function symbol"]);
}

/// Shaders bundled together (clang-offload-bundler takes any triple) are summed in `info`'s
/// per-target summary in a column of their own: graphics objects have no kernels.
#[test]
fn info_summary_of_bundled_shaders_counts_shaders() {
    let dir = tempfile::tempdir().unwrap();
    let repo = common::repo();
    let bundle = dir.path().join("shaders.bundle");
    llvm_tool(
        "clang-offload-bundler-19",
        &[
            "-type=o",
            "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdpal--gfx1100,hipv4-amdgcn-amd-amdpal--gfx1030",
            "-input=/dev/null",
            &format!("-input={}", repo.join("fixtures/graphics/gfx1100/pixel.pal.co").display()),
            &format!("-input={}", repo.join("fixtures/graphics/gfx1030/compute.pal.co").display()),
            &format!("-output={}", bundle.display()),
        ],
    );
    let out = gfxpatch(&["info", bundle.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let row = |name: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_else(|| panic!("no `{name}` row in:\n{text}"));
        line.split_whitespace().map(str::to_owned).collect()
    };
    assert_eq!(row("target")[1..4], ["objects", "kernels", "shaders"], "{text}");
    assert_eq!(row("gfx1100")[1..4], ["1", "0", "1"], "{text}");
    assert_eq!(row("total")[1..4], ["2", "0", "2"], "{text}");
}
