//! `gfxpatch rewrite` and `gfxpatch verify` on every fixture: the identity is exact, insert-nops
//! output is accepted by gfxpatch's verifier and by LLVM's tools, insert-nops then remove-nops
//! gives the input back, a branch pushed out of reach is relaxed (or refused when no register
//! is free), and opaque functions are reported and left alone.

mod common;

use std::path::{Path, PathBuf};

use common::{fixture_files, gfxpatch, llvm_tool};

fn out_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn all_fixtures() -> Vec<PathBuf> {
    let mut all = fixture_files("co", "co");
    all.extend(fixture_files("bundle", "hipfb"));
    all.extend(fixture_files("host", "so"));
    all
}

/// Runs `gfxpatch rewrite IN -o OUT [--passes P] --report R`; returns (stderr, report JSON).
fn rewrite(input: &Path, output: &Path, passes: Option<&str>) -> (String, serde_json::Value) {
    let report = output.with_extension("json");
    let mut args = vec!["rewrite", input.to_str().unwrap(), "-o", output.to_str().unwrap(), "--report", report.to_str().unwrap()];
    if let Some(p) = passes {
        args.extend(["--passes", p]);
    }
    let o = gfxpatch(&args);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "gfxpatch {args:?} failed: {stderr}");
    let json = serde_json::from_slice(&std::fs::read(&report).unwrap()).expect("report is not JSON");
    (stderr, json)
}

#[test]
fn identity_rewrite_is_byte_identical_on_every_fixture() {
    let dir = out_dir();
    for f in all_fixtures() {
        let out = dir.path().join("out");
        let (_, report) = rewrite(&f, &out, None);
        assert!(std::fs::read(&f).unwrap() == std::fs::read(&out).unwrap(), "{}: identity rewrite differs from the input", f.display());
        assert_eq!(report["instructions_before"], report["instructions_after"], "{}", f.display());
    }
}

/// The one refusal a fixture may get: the fixture built to be refused.
fn expected_refusal(f: &Path, stderr: &str) -> bool {
    let name = f.file_name().unwrap().to_str().unwrap();
    name == "rewrite_far_branch_live.asm.co" && stderr.contains("no SGPR pair below s7 is dead at the target")
}

/// Runs an LLVM tool; returns (stdout, stderr), failing on a non-zero exit.
fn llvm_both(tool: &str, args: &[&str]) -> (String, String) {
    let o = std::process::Command::new(tool).args(args).output().unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(o.status.success(), "{tool} {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn insert_nops_output_verifies_and_llvm_accepts_it() {
    let dir = out_dir();
    let (mut rewritten, mut with_dwarf) = (0, 0);
    for f in common::code_object_fixtures() {
        let target = f.parent().unwrap().file_name().unwrap().to_str().unwrap().to_owned();
        let out = dir.path().join("nops.co");
        let (stderr, report) = rewrite(&f, &out, Some("insert-nops"));
        let input = std::fs::read(&f).unwrap();
        let output = std::fs::read(&out).unwrap();
        if !report["refused"].as_array().unwrap().is_empty() {
            assert!(expected_refusal(&f, &stderr), "{}: unexpected refusal: {stderr}", f.display());
            assert!(input == output, "{}: refused, yet the output differs from the input", f.display());
            continue;
        }
        rewritten += 1;
        let applied = report["passes"][0]["applied"].as_u64().unwrap();
        assert!(applied > 0, "{}: insert-nops applied nothing", f.display());
        assert_eq!(
            report["instructions_after"].as_u64().unwrap(),
            report["instructions_before"].as_u64().unwrap() + applied,
            "{}: instruction counts",
            f.display()
        );
        assert!(output.len() >= input.len());
        let o = gfxpatch(&["verify", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}: gfxpatch verify: {}{}", f.display(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let mcpu = format!("--mcpu={target}");
        let (dis, err) = llvm_both("llvm-objdump-19", &["-d", &mcpu, out.to_str().unwrap()]);
        assert!(!dis.contains("<unknown>") && err.is_empty(), "{}: llvm-objdump-19 complains: {err}", f.display());
        let (_, err) = llvm_both("llvm-readelf-19", &["-a", out.to_str().unwrap()]);
        assert!(err.is_empty(), "{}: llvm-readelf-19 -a: {err}", f.display());
        let sections = llvm_tool("llvm-readelf-19", &["-S", f.to_str().unwrap()]);
        if sections.contains(".debug_info") {
            // DWARF is remapped, never stripped, and LLVM's verifier accepts it.
            assert_eq!(report["notes"].as_array().unwrap().len(), 0, "{}: {}", f.display(), report["notes"]);
            let (verify, _) = llvm_both("llvm-dwarfdump-19", &["--verify", out.to_str().unwrap()]);
            assert!(verify.contains("No errors."), "{}: llvm-dwarfdump-19 --verify: {verify}", f.display());
            let (lines, _) = llvm_both("llvm-dwarfdump-19", &["--debug-line", out.to_str().unwrap()]);
            assert!(lines.matches("\n0x").count() > 5, "{}: the line table is gone", f.display());
            with_dwarf += 1;
        }
    }
    assert_eq!(with_dwarf, 10, "debug_info fixtures (DWARF 5 on four targets, DWARF 4 on two)");
    assert!(rewritten >= 170, "only {rewritten} fixtures were rewritten");
}

#[test]
fn insert_nops_then_remove_nops_gives_the_input_back() {
    let dir = out_dir();
    for f in common::code_object_fixtures() {
        let out = dir.path().join("rt.co");
        let (stderr, report) = rewrite(&f, &out, Some("insert-nops,remove-nops"));
        assert_eq!(report["passes"][0]["applied"], report["passes"][1]["applied"], "{}", f.display());
        assert!(std::fs::read(&f).unwrap() == std::fs::read(&out).unwrap(), "{}: round trip differs: {stderr}", f.display());
    }
}

fn fixture(name: &str) -> PathBuf {
    common::repo().join("fixtures/co/gfx900").join(name)
}

/// Parses llvm-objdump lines `\t<text>  // <ADDR>: <WORDS>` into (address, text).
fn listing(file: &Path) -> Vec<(u64, String)> {
    llvm_tool("llvm-objdump-19", &["-d", "--mcpu=gfx900", file.to_str().unwrap()])
        .lines()
        .filter_map(|l| {
            let (text, rest) = l.split_once("// ")?;
            let address = u64::from_str_radix(rest.split(':').next()?.trim(), 16).ok()?;
            Some((address, text.trim().to_owned()))
        })
        .collect()
}

#[test]
fn a_branch_pushed_out_of_reach_is_relaxed_through_a_dead_sgpr_pair() {
    let dir = out_dir();
    let out = dir.path().join("far.co");
    let (_, report) = rewrite(&fixture("rewrite_far_branch.asm.co"), &out, Some("insert-nops"));
    assert!(report["refused"].as_array().unwrap().is_empty());
    let lines = listing(&out);
    // The conditional branch became its inverse over the long form.
    let at = lines.iter().position(|(_, t)| t.starts_with("s_cbranch_scc0 6")).expect("no inverted branch");
    let texts: Vec<&str> = lines[at + 1..at + 5].iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts[0], "s_getpc_b64 s[0:1]");
    assert!(texts[1].starts_with("s_add_u32 s0, s0, 0x"), "{texts:?}");
    assert_eq!(texts[2], "s_addc_u32 s1, s1, 0");
    assert_eq!(texts[3], "s_setpc_b64 s[0:1]");
    // getpc + 4 + offset lands on the target block: the inserted s_nop before the last s_endpgm.
    let lo = u64::from_str_radix(texts[1].rsplit("0x").next().unwrap(), 16).unwrap();
    let reached = lines[at + 1].0 + 4 + lo;
    let landing = lines.iter().position(|(a, _)| *a == reached).expect("the long branch lands inside an instruction");
    assert_eq!(lines[landing].1, "s_nop 0");
    assert_eq!(lines[landing + 1].1, "s_endpgm");
    assert_eq!(landing + 2, lines.len(), "the target is the last block");
    // ... and the fall-through path right after the sequence is the inserted s_nop of the next block.
    assert_eq!(lines[at + 5].1, "s_nop 0");
    assert_eq!(lines[at + 5].0, lines[at].0 + 28);
}

#[test]
fn relaxation_without_a_dead_sgpr_pair_is_refused_with_the_reason() {
    let dir = out_dir();
    let input = fixture("rewrite_far_branch_live.asm.co");
    let out = dir.path().join("live.co");
    let (stderr, report) = rewrite(&input, &out, Some("insert-nops"));
    let refused = report["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1);
    let reason = refused[0].as_str().unwrap();
    assert!(reason.contains("branch at 0x1518 is out of range") && reason.contains("no SGPR pair below s7 is dead"), "{reason}");
    assert!(stderr.contains("left unchanged"), "{stderr}");
    assert!(std::fs::read(&input).unwrap() == std::fs::read(&out).unwrap(), "a refused rewrite must leave the object as it was");
    assert_eq!(report["instructions_after"], report["instructions_before"], "the output holds the input's instructions");
}

#[test]
fn opaque_functions_are_reported_and_left_untouched() {
    let dir = out_dir();
    let input = fixture("rewrite_cases.asm.co");
    let out = dir.path().join("cases.co");
    let (_, report) = rewrite(&input, &out, Some("insert-nops"));
    let opaque = report["functions_opaque"].as_array().unwrap();
    assert_eq!(opaque.len(), 1, "{opaque:?}");
    assert!(opaque[0].as_str().unwrap().starts_with("opaque_jump: indirect jump"), "{opaque:?}");
    assert_eq!(report["passes"][0]["declined"]["opaque function"], 2, "both of opaque_jump's blocks are declined");
    // Its instructions are the input's, only moved; the other kernels got their s_nop.
    let block = |lines: &[(u64, String)], entry: u64| -> Vec<String> {
        lines.iter().skip_while(|(a, _)| *a != entry).take(4).map(|(_, t)| t.clone()).collect()
    };
    let before = listing(&input);
    let after = listing(&out);
    let entry = |file: &Path| -> u64 {
        let syms = llvm_tool("llvm-readelf-19", &["-s", file.to_str().unwrap()]);
        let line = syms.lines().find(|l| l.ends_with(" opaque_jump")).unwrap();
        u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
    };
    assert_eq!(block(&before, entry(&input)), block(&after, entry(&out)));
    assert_eq!(block(&after, entry(&out))[2], "s_setpc_b64 s[4:5]");
    let o = gfxpatch(&["verify", out.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("opaque function opaque_jump"));
}

#[test]
fn pc_relative_calls_and_data_are_re_aimed() {
    let dir = out_dir();
    let input = fixture("rewrite_cases.asm.co");
    let out = dir.path().join("cases.co");
    rewrite(&input, &out, Some("insert-nops"));
    // Both chains compute the same symbol address as before, in the output's layout.
    let symbol = |file: &Path, name: &str| -> u64 {
        let syms = llvm_tool("llvm-readelf-19", &["-s", file.to_str().unwrap()]);
        let line = syms.lines().find(|l| l.ends_with(&format!(" {name}"))).unwrap_or_else(|| panic!("no symbol {name}"));
        u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
    };
    for file in [&input, &out] {
        let lines = listing(file);
        let targets: Vec<u64> = lines
            .iter()
            .enumerate()
            .filter(|(_, (_, t))| t.starts_with("s_getpc_b64"))
            .map(|(i, (a, _))| {
                let lo = &lines[i + 1].1;
                let lo = u32::from_str_radix(lo.rsplit("0x").next().unwrap(), 16).unwrap();
                (a + 4).wrapping_add(lo as i32 as i64 as u64)
            })
            .collect();
        assert_eq!(targets, vec![symbol(file, "add_one"), symbol(file, "table")], "{}", file.display());
    }
    assert_ne!(symbol(&input, "pcrel_calls"), 0);
}

#[test]
fn print_after_shows_the_inserted_instructions() {
    let dir = out_dir();
    let out = dir.path().join("p.co");
    let o = gfxpatch(&["rewrite", fixture("handwritten.asm.co").to_str().unwrap(), "-o", out.to_str().unwrap(), "--passes", "insert-nops", "--print-after", "insert-nops"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("kernel hand_shl_or @ 0x"), "{text}");
    // hand_shl_or and hand_uniform have three blocks each.
    assert_eq!(text.matches("+ s_nop 0").count(), 6, "{text}");
    let o = gfxpatch(&["rewrite", fixture("handwritten.asm.co").to_str().unwrap(), "-o", out.to_str().unwrap(), "--passes", "no-such-pass"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown pass \"no-such-pass\" (known: insert-nops, remove-nops, peephole, count-blocks, count-every-block, count-kernel, trace-memory)"));
}

/// A copy of a DWARF fixture whose first FDE starts two bytes into a function: an address no
/// instruction starts at, which the DWARF remap cannot move.
fn fixture_with_unmappable_dwarf(dir: &Path) -> PathBuf {
    let path = common::repo().join("fixtures/co/gfx900/debug_info.O2g.co");
    let mut data = std::fs::read(&path).unwrap();
    let object = gfxpatch::container::CodeObject::parse(&data).unwrap();
    let frame = object.sections.iter().find(|s| s.name == ".debug_frame").expect("no .debug_frame");
    let (start, end) = (frame.offset as usize, (frame.offset + frame.size) as usize);
    drop(object);
    let mut at = start;
    loop {
        assert!(at + 16 <= end, "no FDE in .debug_frame");
        let length = u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        let id = u32::from_le_bytes(data[at + 4..at + 8].try_into().unwrap());
        if id != u32::MAX {
            let location = u64::from_le_bytes(data[at + 8..at + 16].try_into().unwrap());
            data[at + 8..at + 16].copy_from_slice(&(location + 2).to_le_bytes());
            break;
        }
        at += 4 + length;
    }
    let out = dir.join("bad_dwarf.co");
    std::fs::write(&out, data).unwrap();
    out
}

#[test]
fn dwarf_that_cannot_be_remapped_refuses_unless_stripping_is_allowed() {
    let dir = out_dir();
    let input = fixture_with_unmappable_dwarf(dir.path());
    let out = dir.path().join("out.co");
    let (stderr, report) = rewrite(&input, &out, Some("insert-nops"));
    let refused = report["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{report}");
    let reason = refused[0].as_str().unwrap();
    assert!(reason.contains(".debug_frame+0x") && reason.contains("not at an instruction boundary"), "{reason}");
    assert!(stderr.contains("left unchanged"), "{stderr}");
    assert!(std::fs::read(&input).unwrap() == std::fs::read(&out).unwrap(), "a refused rewrite must leave the object as it was");

    let report_path = dir.path().join("strip.json");
    let o = gfxpatch(&[
        "rewrite",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--passes",
        "insert-nops",
        "--strip-debug-on-failure",
        "--report",
        report_path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&report_path).unwrap()).unwrap();
    assert_eq!(report["refused"].as_array().unwrap().len(), 0, "{report}");
    let notes = report["notes"].as_array().unwrap();
    assert!(notes.len() == 1 && notes[0].as_str().unwrap().starts_with("debug info stripped (sections emptied): "), "{notes:?}");
    let o = gfxpatch(&["verify", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let (_, err) = llvm_both("llvm-readelf-19", &["-a", out.to_str().unwrap()]);
    assert!(err.is_empty(), "llvm-readelf-19 -a: {err}");
    let (lines, _) = llvm_both("llvm-dwarfdump-19", &["--debug-line", out.to_str().unwrap()]);
    assert!(!lines.contains("\n0x"), "line rows survived the strip: {lines}");
}

/// In a host library, an object that no longer fits its slot moves with its bundle to the end of
/// the host (tests/host_growth.rs checks such files with eu-elflint, the loader and strip): no
/// refusal, a note per moved object, every object rewritten and verified.
#[test]
fn host_library_objects_that_outgrow_their_slot_move_with_their_bundle() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::input::Input;
    let dir = out_dir();
    for name in ["hip_kernels.so", "hip_kernels.ccob.so"] {
        let input = common::repo().join("fixtures/host").join(name);
        let out = dir.path().join(name);
        let (stderr, report) = rewrite(&input, &out, Some("insert-nops"));
        let (before, after) = (std::fs::read(&input).unwrap(), std::fs::read(&out).unwrap());
        assert!(after.len() > before.len(), "{name}: the host library grows");
        let old = Input::parse(&before, &DecompressLimits::default()).unwrap();
        let new = Input::parse(&after, &DecompressLimits::default()).unwrap();
        assert_eq!(old.objects.len(), new.objects.len());
        assert_eq!(report["refused"].as_array().unwrap().len(), 0, "{name}: {report}\n{stderr}");
        let notes: Vec<&str> = report["notes"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        assert_eq!(notes.iter().filter(|n| n.contains("grew past its slot")).count(), old.objects.len(), "{name}: {notes:?}");
        let o = gfxpatch(&["verify", out.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stdout));
        for (i, (a, b)) in old.objects.iter().zip(&new.objects).enumerate() {
            assert!(a.bytes != b.bytes, "{name}: object {i} was not rewritten");
        }
        assert!(report["passes"][0]["applied"].as_u64().unwrap() > 0, "{name}: {report}");
    }
}

/// Where the host cannot grow (here: e_machine AArch64, whose relocations gfxpatch does not
/// re-aim), an object that no longer fits its slot keeps its original bytes and the report says
/// so with both sizes and the reason; the file is valid.
#[test]
fn host_library_objects_that_cannot_move_are_refused_one_by_one() {
    use gfxpatch::container::bundle::DecompressLimits;
    use gfxpatch::container::input::Input;
    let dir = out_dir();
    for name in ["hip_kernels.so", "hip_kernels.ccob.so"] {
        let mut data = std::fs::read(common::repo().join("fixtures/host").join(name)).unwrap();
        data[18..20].copy_from_slice(&183u16.to_le_bytes());
        let input = dir.path().join(format!("arm.{name}"));
        std::fs::write(&input, &data).unwrap();
        let out = dir.path().join(name);
        let (stderr, report) = rewrite(&input, &out, Some("insert-nops"));
        let (before, after) = (std::fs::read(&input).unwrap(), std::fs::read(&out).unwrap());
        assert_eq!(before.len(), after.len(), "{name}: a host that cannot grow never changes size");
        let old = Input::parse(&before, &DecompressLimits::default()).unwrap();
        let new = Input::parse(&after, &DecompressLimits::default()).unwrap();
        assert_eq!(old.objects.len(), new.objects.len());
        let refused: Vec<&str> = report["refused"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        assert!(!refused.is_empty(), "{name}: insert-nops grows these objects past their slots: {report}");
        for r in &refused {
            let i: usize = r.strip_prefix("code object ").and_then(|r| r.split(':').next()).unwrap().parse().unwrap();
            assert!(r.contains(" bytes but its slot in the host library has ") && r.contains("the original bytes are kept"), "{name}: {r}");
            assert!(r.contains("x86-64 hosts only"), "{name}: the reason growth was refused: {r}");
            let needed: u64 = r.split(" needs ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
            let slot: u64 = r.split(" has ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
            assert!(needed > slot, "{name}: {r}");
            assert_eq!(old.objects[i].bytes, new.objects[i].bytes, "{name}: refused object {i} changed");
            assert!(stderr.contains(&format!("code object {i} left unchanged")), "{name}: {stderr}");
        }
        // Every object is either its original bytes (refused) or a verified rewrite.
        let o = gfxpatch(&["verify", out.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stdout));
        for (i, (a, b)) in old.objects.iter().zip(&new.objects).enumerate() {
            let was_refused = refused.iter().any(|r| r.starts_with(&format!("code object {i}:")));
            assert_eq!(was_refused, a.bytes == b.bytes, "{name}: object {i}");
        }
        // The pass counts say what the output holds: a refused object's nops were not applied
        // (regression: they used to count as applied although no byte changed).
        let nops = &report["passes"][0];
        let kept = old.objects.iter().zip(&new.objects).filter(|(a, b)| a.bytes == b.bytes).count();
        if kept == old.objects.len() {
            assert_eq!(nops["applied"], 0, "{name}: nothing was written: {report}");
        }
        let declined_refused = nops["declined"][gfxpatch::rewrite::OBJECT_REFUSED].as_u64().unwrap_or(0);
        assert!(declined_refused > 0, "{name}: the refused objects' nops count as declined: {report}");
    }
}
