//! `gfxpatch check A B --kernel K --grid .. --block .. ARG... [--seeds N]`: run the same kernel
//! from two code objects on the same inputs and compare every buffer, inputs and guard bytes
//! included. Exit 0: the same on every seed; 1: a difference (the first is printed), which
//! includes B faulting, trapping, looping past the limit or deadlocking where A ran to its end;
//! 2: A could not run, or B could not be launched or uses an instruction the emulator lacks.

use std::path::PathBuf;

use anyhow::Context as _;

use super::emulate::{Elem, LaunchArgs, buffer_specs, materialize};
use crate::emu;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// The original code object.
    a: PathBuf,
    /// The code object to compare with it (a rewrite of A).
    b: PathBuf,
    #[command(flatten)]
    launch: LaunchArgs,
    /// How many seeds to run, from `--seed` on.
    #[arg(long, default_value_t = 3)]
    seeds: u64,
}

/// The first difference between two runs' buffers ([`emu::launch::first_difference`]),
/// shown with the buffer's element type.
pub fn first_difference(specs: &[(usize, Elem)], a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<String> {
    let (buffer, at) = emu::launch::first_difference(a, b)?;
    let ((i, elem), x, y) = (&specs[buffer], &a[buffer], &b[buffer]);
    let len = x.len() - emu::launch::GUARD;
    if at >= len {
        return Some(format!("arg{i}: guard byte {} after the buffer: {:#04x} vs {:#04x} (one side wrote past the end)", at - len, x[at], y[at]));
    }
    let n = elem.size();
    let k = at / n;
    let end = ((k + 1) * n).min(len);
    Some(format!("arg{i} ({}) index {k}: {} vs {}", elem.name(), elem.show(&x[k * n..end]), elem.show(&y[k * n..end])))
}

pub fn run(args: &CheckArgs) -> anyhow::Result<()> {
    let (pa, pb) = (args.a.display().to_string(), args.b.display().to_string());
    let a = std::fs::read(&args.a).with_context(|| pa.clone())?;
    let b = std::fs::read(&args.b).with_context(|| pb.clone())?;
    let specs = args.launch.specs()?;
    let buffers = buffer_specs(&specs);
    let options = args.launch.options(false);
    for seed in args.launch.seed..args.launch.seed + args.seeds {
        let inputs = materialize(&specs, seed)?;
        let ra = emu::run(&a, &args.launch.kernel, &args.launch.dispatch(), &inputs, &options).map_err(|e| anyhow::anyhow!("{pa}: {e}"))?;
        let rb = match emu::run(&b, &args.launch.kernel, &args.launch.dispatch(), &inputs, &options) {
            Ok(r) => r,
            // A ran to its end and B did not: B behaves differently (a fault, a trap, a loop
            // past the limit, a barrier that never opens). That B uses an instruction the
            // emulator lacks, or cannot be launched, says nothing about it: could not run.
            Err(stop) if b_differs(stop.kind) => {
                println!("{pa} vs {pb}: kernel {}: seed {seed}: different: {pa} ran to its end, {pb} stopped: {stop}", args.launch.kernel);
                std::process::exit(i32::from(EXIT_DIFFERENT));
            }
            Err(stop) => anyhow::bail!("{pb}: {stop}"),
        };
        if let Some(diff) = first_difference(&buffers, &ra.buffers, &rb.buffers) {
            println!("{pa} vs {pb}: kernel {}: seed {seed}: different: {diff}", args.launch.kernel);
            std::process::exit(i32::from(EXIT_DIFFERENT));
        }
        println!("{pa} vs {pb}: kernel {}: seed {seed}: same ({} vs {} wave instructions)", args.launch.kernel, ra.counts.wave_instructions, rb.counts.wave_instructions);
    }
    Ok(())
}

/// Whether B stopping this way, where A ran to its end, is a difference (rather than "could not
/// run").
fn b_differs(kind: emu::StopKind) -> bool {
    use emu::StopKind::*;
    match kind {
        Fault | Halt | Limit | Deadlock => true,
        Setup | Unimplemented => false,
    }
}

/// `check`'s status when the runs differ (2 is for "could not run", as for every command).
pub const EXIT_DIFFERENT: u8 = 1;
