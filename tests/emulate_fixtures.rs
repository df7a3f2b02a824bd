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

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use gfxpatch::container::CodeObject;
use gfxpatch::emu::{self, Arg, Dispatch, Options};
use gfxpatch::isa::Decoders;
use gfxpatch::{pass, rewrite};

const TARGETS: &[&str] = &["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1151", "gfx1200", "gfx1201"];
const PASSES: &[&str] = &["insert-nops", "peephole"];
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
    not_run: BTreeMap<String, Vec<String>>,
    checked: BTreeMap<&'static str, usize>,
    unchanged: BTreeMap<&'static str, Vec<String>>,
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
        for (pass, rewritten) in &rewrites {
            let rco = CodeObject::parse(rewritten).unwrap();
            if code(&co, k.name) == code(&rco, k.name) {
                tally.unchanged.entry(pass).or_default().push(format!("{name}:{}", k.name));
                continue;
            }
            match emu::run(rewritten, k.name, &dispatch, &args, &options) {
                Ok(r) if r.buffers == original.buffers => *tally.checked.entry(pass).or_default() += 1,
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
}
