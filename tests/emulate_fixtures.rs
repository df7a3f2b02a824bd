//! Every fixture kernel that runs in the emulator is checked against its rewrites (issue 29
//! item 5): each code object under `fixtures/co/<target>/` of the targets the emulator runs is
//! rewritten by `insert-nops` and by `peephole`; each kernel that runs on random inputs (64
//! work-items, 64 KiB random buffers, by-value arguments 64) runs again from each rewrite on
//! the same inputs, and every buffer, guard bytes included, must be the same.
//!
//! A check only counts where the rewrite changed the kernel's code: `insert-nops` changes every
//! kernel (asserted: it moves every branch and PC-relative address, which reach the stored
//! values); `peephole` changes few compiler-made kernels (the compiler fuses most pairs itself),
//! and an unchanged kernel is not counted as checked. The peephole's own fixtures, where every
//! rewritten kernel is checked and every wrong fusion caught, are tests/emulate_peephole.rs.
//! Kernels that do not run (an unimplemented instruction, a fault on these made-up inputs) are
//! listed with the reason when run with `--nocapture`.
//!
//! On gfx1100, gfx90a and gfx942 each kernel that runs also gets mutants: one VALU opcode of a
//! copy flipped (`v_xor_b32` to `v_or_b32`, `v_add_f32` to `v_sub_f32`, ...; the text from
//! `llvm-objdump-19`, the bytes from `llvm-mc-19`), and the comparison `gfxpatch check` makes
//! ([`emu::launch::first_difference`]) must tell one of them from the original.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use gfxpatch::container::CodeObject;
use gfxpatch::emu::{self, Arg, Dispatch, Options};
use gfxpatch::isa::Decoders;
use gfxpatch::{pass, rewrite};

const TARGETS: &[&str] = &["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1151", "gfx1200", "gfx1201"];
const PASSES: &[&str] = &["insert-nops", "peephole"];
/// Where every kernel that runs must also catch a mutant (issue 29: gfx1100, gfx90a, gfx942).
const MUTATED: &[&str] = &["gfx1100", "gfx90a", "gfx942"];
/// Opcode flips for mutants: each keeps the encoding (VOP2, or VOP3 for the three-operand
/// ones) and the length, and changes the value for most inputs.
const FLIPS: &[(&str, &str)] = &[
    ("v_xor_b32_e32", "v_or_b32_e32"),
    ("v_or_b32_e32", "v_xor_b32_e32"),
    ("v_and_b32_e32", "v_or_b32_e32"),
    ("v_add_u32_e32", "v_sub_u32_e32"),
    ("v_sub_u32_e32", "v_add_u32_e32"),
    ("v_add_nc_u32_e32", "v_sub_nc_u32_e32"),
    ("v_sub_nc_u32_e32", "v_add_nc_u32_e32"),
    ("v_lshlrev_b32_e32", "v_lshrrev_b32_e32"),
    ("v_lshrrev_b32_e32", "v_lshlrev_b32_e32"),
    ("v_max_i32_e32", "v_min_i32_e32"),
    ("v_min_i32_e32", "v_max_i32_e32"),
    ("v_max_u32_e32", "v_min_u32_e32"),
    ("v_min_u32_e32", "v_max_u32_e32"),
    ("v_add_f32_e32", "v_sub_f32_e32"),
    ("v_sub_f32_e32", "v_add_f32_e32"),
    ("v_mul_f32_e32", "v_add_f32_e32"),
    ("v_max_f32_e32", "v_min_f32_e32"),
    ("v_min_f32_e32", "v_max_f32_e32"),
    ("v_mul_lo_u32", "v_mul_hi_u32"),
    ("v_mul_hi_u32", "v_mul_lo_u32"),
    ("v_add_f64", "v_mul_f64"),
    // VOP3 forms (what -O0 code and GFX9's carry-less adds use).
    ("v_add_u32_e64", "v_sub_u32_e64"),
    ("v_sub_u32_e64", "v_add_u32_e64"),
    ("v_add_nc_u32_e64", "v_sub_nc_u32_e64"),
    ("v_sub_nc_u32_e64", "v_add_nc_u32_e64"),
    ("v_xor_b32_e64", "v_or_b32_e64"),
    ("v_or_b32_e64", "v_xor_b32_e64"),
    ("v_and_b32_e64", "v_or_b32_e64"),
    ("v_lshlrev_b32_e64", "v_lshrrev_b32_e64"),
    ("v_lshrrev_b32_e64", "v_lshlrev_b32_e64"),
    ("v_lshl_add_u32", "v_lshl_or_b32"),
    ("v_lshl_or_b32", "v_lshl_add_u32"),
    ("v_add3_u32", "v_lshl_add_u32"),
    ("v_or3_b32", "v_and_or_b32"),
    ("v_mad_u32_u24", "v_mad_i32_i24"),
];
/// Compare flips: the condition negated or turned (`v_cmp_lt_i32_e32` to `v_cmp_ge_i32_e32`),
/// same type, same encoding.
const CONDITIONS: &[(&str, &str)] = &[("eq", "ne"), ("ne", "eq"), ("lt", "ge"), ("ge", "lt"), ("gt", "le"), ("le", "gt"), ("lg", "eq"), ("neq", "eq"), ("nlt", "lt"), ("nge", "ge"), ("ngt", "gt"), ("nle", "le")];

/// The mnemonic a mutant puts in place of `m`, if any.
fn flipped(m: &str) -> Option<String> {
    if let Some((_, to)) = FLIPS.iter().find(|(from, _)| *from == m) {
        return Some((*to).to_owned());
    }
    let rest = m.strip_prefix("v_cmp_")?;
    let (cond, tail) = rest.split_once('_')?;
    let (_, to) = CONDITIONS.iter().find(|(from, _)| *from == cond)?;
    Some(format!("v_cmp_{to}_{tail}"))
}

/// Flips tried last: in -O0 code the dispatch arithmetic (`v_mul_hi_u32` of the grid's
/// remainder) rarely changes what a kernel stores.
const LAST: &[&str] = &["v_mul_hi_u32", "v_mul_lo_u32"];
/// Mutants tried per kernel (spread over its flippable instructions) until one is caught.
const TRIES: usize = 6;
const ITEMS: u32 = 64;

/// Arguments for `kernel` from its metadata, or why there are none.
fn arguments(co: &CodeObject, kernel: &str) -> Result<Vec<Arg>, String> {
    let meta = co.metadata.as_ref().and_then(|m| m.kernel(kernel)).ok_or("no metadata")?;
    let mut rng = common::Rng::new(kernel.len() as u64 * 7919 + 1);
    let mut args = Vec::new();
    for a in meta.args.iter().filter(|a| !a.value_kind.as_deref().unwrap_or("").starts_with("hidden_")) {
        match a.value_kind.as_deref() {
            Some("global_buffer") => {
                let mut b = Vec::new();
                rng.fill(&mut b, 64 << 10);
                args.push(Arg::Buffer(b));
            }
            Some("by_value") => {
                let size = a.size.unwrap_or(0) as usize;
                let mut v = vec![0u8; size];
                v[..size.min(8)].copy_from_slice(&64u64.to_le_bytes()[..size.min(8)]);
                args.push(Arg::Value(v));
            }
            other => return Err(format!("argument kind {other:?}")),
        }
    }
    Ok(args)
}

/// The kernel's code bytes.
fn code<'a>(co: &CodeObject<'a>, kernel: &str) -> &'a [u8] {
    let k = co.kernels.iter().find(|k| k.name == kernel).unwrap();
    let at = k.entry_offset.unwrap() as usize;
    &co.data[at..at + k.code_size as usize]
}

#[derive(Default)]
struct Tally {
    ran: usize,
    /// Kernels with a mutant the check caught.
    caught: usize,
    /// Kernels none of whose mutants was caught: each mutant and what happened.
    survived: Vec<String>,
    /// Kernels without a flippable instruction.
    unmutated: Vec<String>,
    not_run: BTreeMap<String, Vec<String>>,
    checked: BTreeMap<&'static str, usize>,
    unchanged: BTreeMap<&'static str, Vec<String>>,
}

/// `llvm-objdump-19 -d` of `file` by symbol: each instruction's address and text.
fn listing(file: &Path, target: &str) -> BTreeMap<String, Vec<(u64, String)>> {
    let text = common::llvm_tool("llvm-objdump-19", &["-d", &format!("--mcpu={target}"), file.to_str().unwrap()]);
    let mut out: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    let mut current = None;
    for line in text.lines() {
        if let Some(name) = line.split_once(" <").and_then(|(_, r)| r.strip_suffix(">:")) {
            current = Some(name.to_owned());
        } else if let (Some(name), Some((inst, at))) = (&current, line.split_once("// "))
            && let Ok(addr) = u64::from_str_radix(at.split(':').next().unwrap().trim(), 16)
        {
            out.entry(name.clone()).or_default().push((addr, inst.trim().to_owned()));
        }
    }
    out
}

/// The encodings of `lines` (one instruction each), from llvm-mc-19.
fn encode_all(target: &str, lines: &[String]) -> Vec<Vec<u8>> {
    let mut child = Command::new("llvm-mc-19")
        .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={target}"), "-show-encoding"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("llvm-mc-19 is required (scripts/setup.sh installs it)");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), lines.join("\n").as_bytes()).unwrap();
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let encodings: Vec<Vec<u8>> = out
        .split("encoding: [")
        .skip(1)
        .map(|e| e.split(']').next().unwrap().split(',').map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap()).collect())
        .collect();
    assert_eq!(encodings.len(), lines.len(), "llvm-mc-19 -mcpu={target} encoded {} of {lines:?}:\n{out}", encodings.len());
    encodings
}

/// Mutants of `kernel` (up to [`TRIES`], spread over its flippable instructions) until the
/// check tells one from the original run; records the outcome in `tally`.
#[allow(clippy::too_many_arguments)]
fn mutate(elf: &[u8], name: &str, target: &str, kernel: &str, listed: &[(u64, String)], run: &dyn Fn(&[u8]) -> Result<emu::Outcome, emu::Stop>, original: &emu::Outcome, tally: &mut Tally) {
    let flippable: Vec<(u64, String, String)> = listed
        .iter()
        .filter_map(|(addr, text)| {
            let mnemonic = text.split_whitespace().next()?;
            let to = flipped(mnemonic)?;
            Some((*addr, text.clone(), text.replacen(mnemonic, &to, 1)))
        })
        .collect();
    let who = format!("{name}:{kernel}");
    if flippable.is_empty() {
        tally.unmutated.push(who);
        return;
    }
    let mut flippable = flippable;
    flippable.sort_by_key(|(addr, text, _)| (LAST.iter().any(|m| text.starts_with(m)), *addr));
    let picked: Vec<&(u64, String, String)> = (0..TRIES.min(flippable.len())).map(|i| &flippable[i * flippable.len() / TRIES.min(flippable.len())]).collect();
    let lines: Vec<String> = picked.iter().flat_map(|(_, a, b)| [a.clone(), b.clone()]).collect();
    let encodings = encode_all(target, &lines);
    let co = CodeObject::parse(elf).unwrap();
    let mut tried = Vec::new();
    for (k, (addr, text, mutated)) in picked.iter().enumerate() {
        let (before, after) = (&encodings[2 * k], &encodings[2 * k + 1]);
        let sec = co.section_containing(*addr).unwrap();
        let at = (sec.offset + addr - sec.address) as usize;
        if elf.get(at..at + before.len()) != Some(before.as_slice()) {
            // A text that llvm-mc-19 encodes otherwise than the compiler did (an operand form
            // the printer does not round-trip): not a mutant of this instruction.
            tried.push(format!("`{text}` at {addr:#x}: llvm-mc-19 encodes it otherwise"));
            continue;
        }
        if before.len() != after.len() {
            tried.push(format!("`{mutated}`: another length"));
            continue;
        }
        let mut mutant = elf.to_vec();
        mutant[at..at + after.len()].copy_from_slice(after);
        match run(&mutant) {
            Ok(m) => match emu::launch::first_difference(&original.buffers, &m.buffers) {
                Some(_) => {
                    tally.caught += 1;
                    return;
                }
                None => tried.push(format!("`{mutated}` at {addr:#x}: the same buffers")),
            },
            // The original ran; a mutant that faults, traps, loops or deadlocks is not passed by `gfxpatch
            // check` either (it exits 2, naming the fault). One that reaches an instruction
            // the emulator lacks tells nothing.
            Err(stop) if matches!(stop.kind, emu::StopKind::Fault | emu::StopKind::Halt | emu::StopKind::Limit | emu::StopKind::Deadlock) => {
                tally.caught += 1;
                return;
            }
            Err(stop) => tried.push(format!("`{mutated}` at {addr:#x}: does not run ({:?})", stop.kind)),
        }
    }
    tally.survived.push(format!("{who}: {}", tried.join("; ")));
}

fn sweep(file: &Path, decoders: &mut Decoders, tally: &mut Tally, failures: &mut Vec<String>) {
    let name = file.strip_prefix(common::repo().join("fixtures/co")).unwrap().display().to_string();
    let elf = std::fs::read(file).unwrap();
    let co = CodeObject::parse(&elf).unwrap();
    if co.metadata.is_none() {
        return;
    }
    // In process, with one set of decoders for the whole sweep (as `gfxpatch rewrite` over
    // many files): the same rewrite as the command's.
    let rewrites: Vec<(&'static str, Vec<u8>)> = PASSES
        .iter()
        .map(|pass| {
            let options = rewrite::Options { passes: vec![pass::find(pass).unwrap()], print_after: None, strip_debug_on_failure: false };
            let outcome = rewrite::rewrite_object_with(&elf, &options, decoders).unwrap_or_else(|e| panic!("{name}: rewrite {pass}: {e}"));
            (*pass, outcome.bytes.unwrap_or_else(|| elf.clone()))
        })
        .collect();
    let options = Options { max_instructions: 200_000, ..Options::default() };
    let target = name.split('/').next().unwrap();
    let listed = MUTATED.contains(&target).then(|| listing(file, target));
    for k in &co.kernels {
        let args = match arguments(&co, k.name) {
            Ok(a) => a,
            Err(why) => {
                tally.not_run.entry(why).or_default().push(format!("{name}:{}", k.name));
                continue;
            }
        };
        let block = ITEMS.min(co.metadata.as_ref().unwrap().kernel(k.name).unwrap().max_flat_workgroup_size.unwrap_or(u64::from(ITEMS)) as u32);
        let dispatch = Dispatch { grid: [ITEMS, 1, 1], block: [block, 1, 1] };
        let original = match emu::run(&elf, k.name, &dispatch, &args, &options) {
            Ok(o) => o,
            Err(stop) => {
                // The reason without the address: "kernel `k`: 0x1234 `s_foo`: not implemented..."
                let why = format!("{:?}: {}", stop.kind, stop.at.as_ref().map_or(stop.message.clone(), |(_, t)| format!("{}: {}", t.split_whitespace().next().unwrap_or(""), stop.message)));
                tally.not_run.entry(why).or_default().push(format!("{name}:{}", k.name));
                continue;
            }
        };
        tally.ran += 1;
        if let Some(listed) = &listed {
            let run = |elf: &[u8]| emu::run(elf, k.name, &dispatch, &args, &options);
            mutate(&elf, &name, target, k.name, listed.get(k.name).map_or(&[][..], Vec::as_slice), &run, &original, tally);
        }
        for (pass, rewritten) in &rewrites {
            let rco = CodeObject::parse(rewritten).unwrap();
            if code(&co, k.name) == code(&rco, k.name) {
                tally.unchanged.entry(pass).or_default().push(format!("{name}:{}", k.name));
                continue;
            }
            match emu::run(rewritten, k.name, &dispatch, &args, &options) {
                Ok(r) if emu::launch::first_difference(&original.buffers, &r.buffers).is_none() => *tally.checked.entry(pass).or_default() += 1,
                Ok(_) => failures.push(format!("{name}: {}: {pass} changes what the kernel stores", k.name)),
                Err(stop) => failures.push(format!("{name}: {}: {pass}: the rewrite does not run: {stop}", k.name)),
            }
        }
    }
}

/// One target's sweep: its report lines, failures and tally.
fn sweep_target(target: &str) -> (Vec<String>, Vec<String>, Tally) {
    let (mut report, mut failures, mut tally) = (Vec::new(), Vec::new(), Tally::default());
    let mut decoders = Decoders::default();
    for file in common::fixture_files(&format!("co/{target}"), "co") {
        sweep(&file, &mut decoders, &mut tally, &mut failures);
    }
    let not_run: usize = tally.not_run.values().map(Vec::len).sum();
    report.push(format!(
        "{target}: {} kernels run, checked vs insert-nops {}, vs peephole {} (unchanged by peephole {}); {not_run} do not run",
        tally.ran,
        tally.checked.get("insert-nops").unwrap_or(&0),
        tally.checked.get("peephole").unwrap_or(&0),
        tally.unchanged.get("peephole").map_or(0, Vec::len)
    ));
    if MUTATED.contains(&target) {
        report.push(format!("    mutants: caught in {} kernels, in none of {}, no flippable instruction in {}", tally.caught, tally.survived.len(), tally.unmutated.len()));
        for s in &tally.survived {
            report.push(format!("    no mutant caught: {s}"));
        }
        if !tally.unmutated.is_empty() {
            report.push(format!("    no flippable instruction: {}", tally.unmutated.join(" ")));
        }
    }
    if let Some(k) = tally.unchanged.get("insert-nops") {
        report.push(format!("    unchanged by insert-nops (refused): {}", k.join(" ")));
    }
    for (why, kernels) in &tally.not_run {
        report.push(format!("    {} not run: {why}: {}", kernels.len(), kernels.join(" ")));
    }
    (report, failures, tally)
}

#[test]
fn every_fixture_kernel_that_runs_runs_the_same_after_insert_nops_and_peephole() {
    // Two threads (the default run has two cores), each a share of the targets.
    let results: Vec<(Vec<String>, Vec<String>, Tally)> = std::thread::scope(|s| {
        let handles: Vec<_> = [0, 1].map(|half| s.spawn(move || TARGETS.iter().skip(half).step_by(2).map(|t| sweep_target(t)).collect::<Vec<_>>())).into();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let (mut report, mut failures, mut total) = (Vec::new(), Vec::new(), Tally::default());
    for (r, f, tally) in results {
        report.extend(r);
        failures.extend(f);
        total.ran += tally.ran;
        total.caught += tally.caught;
        total.survived.extend(tally.survived);
        total.unmutated.extend(tally.unmutated);
        for (p, n) in tally.checked {
            *total.checked.entry(p).or_default() += n;
        }
        for (p, k) in tally.unchanged {
            total.unchanged.entry(p).or_default().extend(k);
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every kernel that ran was checked against insert-nops, which changes each one but the
    // one it refuses on purpose (tests/rewrite_far_branch.rs: a far branch with SCC live).
    let refused = total.unchanged.remove("insert-nops").unwrap_or_default();
    assert_eq!(refused, ["gfx900/rewrite_far_branch_live.asm.co:far_branch"], "{}", report.join("\n"));
    assert_eq!(total.checked.get("insert-nops").copied().unwrap_or(0), total.ran - refused.len());
    assert!(total.ran >= 100, "only {} fixture kernels run:\n{}", total.ran, report.join("\n"));
    assert!(total.checked.get("peephole").copied().unwrap_or(0) >= 2, "{}", report.join("\n"));
    // Mutants on gfx1100, gfx90a and gfx942: every host-reference kernel (emu_*, whose
    // outputs depend on all of their arithmetic) with a flippable instruction had one the
    // check caught; elsewhere a flip can be one no input tells apart (`v_or_b32 v1, 5, v6` of
    // an 8-aligned v6 is its xor) or sit in code the launch does not reach, so those are listed
    // and the caught count is held (177 when written).
    let reference: Vec<&String> = total.survived.iter().filter(|s| s.contains("/emu_")).collect();
    assert!(reference.is_empty(), "{reference:#?}\n{}", report.join("\n"));
    assert!(total.caught >= 170, "{}", report.join("\n"));
}
