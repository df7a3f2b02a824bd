//! `gfxpatch bench emulate PATH`: the emulator's speed, in executed lane-instructions (and
//! wave-instructions) per second, per target, in one run. PATH is a code object or a directory
//! of them (searched recursively for `*.co`, e.g. `fixtures/co`); every kernel with metadata
//! runs once on made-up inputs (below), and the kernels that do not run on them are counted
//! and named, not measured.
//!
//! A lane-instruction is one active lane of one vector instruction, a wave-instruction one
//! instruction of one wave (scalar or vector); both are the counts `gfxpatch emulate` prints.
//! The time is each `emu::run` whole: parsing the code object, laying out the launch, decoding
//! and compiling each instruction on first use (the emulator caches per run), executing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::bench::BenchArgs;
use super::emulate::{Elem, Fill, Spec, materialize};
use crate::container::CodeObject;
use crate::emu::{self, Arg, Dispatch, Options};

/// Per target: what ran, how much, how long; what did not run and why.
#[derive(Default)]
struct Tally {
    files: usize,
    kernels: usize,
    wave_instructions: u64,
    lane_instructions: u64,
    time: Duration,
    not_run: BTreeMap<String, Vec<String>>,
}

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    let items = args.items;
    anyhow::ensure!(items > 0, "--items must be at least 1");
    let files = code_objects(&args.file)?;
    anyhow::ensure!(!files.is_empty(), "{}: no code object (*.co) there", args.file.display());
    // Buffers large enough for every fixture kernel's indexing on `items` work-items (the
    // widest stores 32 bytes per work-item); by-value arguments are `items` (most are a count).
    let buffer_bytes = (items as usize * 64).max(64 << 10);
    let options = Options { max_instructions: 1_000_000, ..Options::default() };
    let mut by_target: BTreeMap<String, Tally> = BTreeMap::new();
    for file in &files {
        let shown = file.display().to_string();
        let elf = std::fs::read(file).with_context(|| shown.clone())?;
        let Ok(co) = CodeObject::parse(&elf) else { continue };
        let Some(meta) = co.metadata.as_ref() else { continue };
        let tally = by_target.entry(co.target.processor.name.to_owned()).or_default();
        tally.files += 1;
        for k in &co.kernels {
            let Some(km) = meta.kernel(k.name) else { continue };
            let block = u64::from(items.min(64)).min(km.max_flat_workgroup_size.unwrap_or(64)) as u32;
            let dispatch = Dispatch { grid: [items, 1, 1], block: [block, 1, 1] };
            let inputs = match arguments(&km.args, items, buffer_bytes, k.name.len() as u64) {
                Ok(a) => a,
                Err(why) => {
                    tally.not_run.entry(why).or_default().push(format!("{shown}:{}", k.name));
                    continue;
                }
            };
            let start = Instant::now();
            let outcome = emu::run(&elf, k.name, &dispatch, &inputs, &options);
            let took = start.elapsed();
            match outcome {
                Ok(o) => {
                    tally.kernels += 1;
                    tally.wave_instructions += o.counts.wave_instructions;
                    tally.lane_instructions += o.counts.lane_instructions;
                    tally.time += took;
                }
                Err(stop) => {
                    // The reason without the address, so that kernels stopping alike group.
                    let what = stop.at.as_ref().and_then(|(_, t)| t.split_whitespace().next()).unwrap_or("");
                    let why = format!("{:?}: {what} {}", stop.kind, stop.message);
                    tally.not_run.entry(why).or_default().push(format!("{shown}:{}", k.name));
                }
            }
        }
    }
    println!("{}: {} code object(s), {items} work-items per launch, buffers of {} KiB", args.file.display(), files.len(), buffer_bytes >> 10);
    let (mut all_lanes, mut all_waves, mut all_time) = (0u64, 0u64, Duration::ZERO);
    for (target, t) in &by_target {
        let secs = t.time.as_secs_f64().max(1e-9);
        let not_run: usize = t.not_run.values().map(Vec::len).sum();
        println!(
            "{target:>8}: {:8.2} M lane-inst/s {:7.2} M wave-inst/s  ({} lane-, {} wave-instructions, {:.1} lanes/inst, {} kernels in {:.2?}; {not_run} not run)",
            t.lane_instructions as f64 / secs / 1e6,
            t.wave_instructions as f64 / secs / 1e6,
            t.lane_instructions,
            t.wave_instructions,
            t.lane_instructions as f64 / t.wave_instructions.max(1) as f64,
            t.kernels,
            t.time
        );
        all_lanes += t.lane_instructions;
        all_waves += t.wave_instructions;
        all_time += t.time;
    }
    let secs = all_time.as_secs_f64().max(1e-9);
    println!("   all   : {:8.2} M lane-inst/s {:7.2} M wave-inst/s  ({all_lanes} lane-, {all_waves} wave-instructions in {all_time:.2?})", all_lanes as f64 / secs / 1e6, all_waves as f64 / secs / 1e6);
    if args.verbose {
        for (target, t) in &by_target {
            for (why, kernels) in &t.not_run {
                println!("{target}: {} not run: {why}: {}", kernels.len(), kernels.join(" "));
            }
        }
    } else if by_target.values().any(|t| !t.not_run.is_empty()) {
        println!("(`--verbose` names the kernels that did not run and why)");
    }
    Ok(())
}

/// `path` itself, or every `*.co` under it, sorted.
fn code_objects(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let mut out = Vec::new();
    let mut dirs = vec![path.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).with_context(|| dir.display().to_string())? {
            let p = entry?.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "co") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Inputs from the metadata's `.args`: every global buffer `buffer_bytes` random bytes, every
/// by-value argument `items`. The buffers come from [`materialize`], the generator `gfxpatch
/// emulate --seed` and `check` draw from, so a bench input is one the user can reproduce.
fn arguments(args: &[crate::container::metadata::KernelArg], items: u32, buffer_bytes: usize, seed: u64) -> Result<Vec<Arg>, String> {
    let mut specs = Vec::new();
    for a in args.iter().filter(|a| !a.value_kind.as_deref().unwrap_or("").starts_with("hidden_")) {
        match a.value_kind.as_deref() {
            Some("global_buffer") => specs.push(Spec::Buffer { elem: Elem::U8, fill: Fill::Random(buffer_bytes) }),
            Some("by_value") => {
                let size = a.size.unwrap_or(0) as usize;
                let mut bytes = vec![0u8; size];
                let n = u64::from(items).to_le_bytes();
                bytes[..size.min(8)].copy_from_slice(&n[..size.min(8)]);
                specs.push(Spec::Scalar { bytes });
            }
            other => return Err(format!("argument kind {other:?}")),
        }
    }
    materialize(&specs, seed).map_err(|e| e.to_string())
}
