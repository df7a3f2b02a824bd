//! The `gfxpatch` command line. Each subcommand lives in its own module; errors end as one line
//! on stderr naming the file and the fault, with exit status 2.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod asm;
mod bench;
mod bench_emulate;
mod bench_rewrite;
mod check;
mod counters;
mod decode;
mod disasm;
mod disasm_json;
mod emulate;
pub(crate) mod info;
mod instrument;
mod isa;
pub mod patch;
mod retarget;
mod rewrite;
mod verify;

#[derive(Parser)]
#[command(
    name = "gfxpatch",
    version,
    about = "Binary rewriter for AMD GPU code objects"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Describe a code object, offload bundle or host library: targets, kernels, registers.
    Info(info::InfoArgs),
    /// Disassemble, in llvm-objdump's layout.
    Disasm(disasm::DisasmArgs),
    /// Decode hex bytes for a target: matched record, length, text (and LLVM's with --llvm).
    Decode(decode::DecodeArgs),
    /// One instruction across generations: encodings, opcodes, bit layouts, operands, AMD's pseudocode.
    Isa(isa::IsaArgs),
    /// Run passes over every code object and write the result (no passes: the identity).
    Rewrite(rewrite::RewriteArgs),
    /// Check that every code object decodes, branches land on instructions, and descriptors agree.
    Verify(verify::VerifyArgs),
    /// Assemble LLVM assembler text (one instruction or a file) and show each encoding like `llvm-mc -show-encoding`.
    Asm(asm::AsmArgs),
    /// Measure gfxpatch against LLVM in one run (`bench decode|encode|rewrite FILE`, `bench emulate PATH`).
    Bench(bench::BenchArgs),
    /// Run a kernel on the CPU from AMD's pseudocode and show its buffers (see docs/emulator.md).
    Emulate(emulate::EmulateArgs),
    /// Run a kernel from two code objects on the same inputs; exit 0 same, 1 different, 2 could not run.
    Check(check::CheckArgs),
    /// Add probes (count-blocks, count-every-block, count-kernel, trace-memory) and the counters they write (docs/instrumentation.md).
    Instrument(instrument::InstrumentArgs),
    /// Read the counters an instrumented run dumped, with the map `instrument` wrote.
    Counters(counters::CountersArgs),
    /// Prove a code object valid on other processors of its generic family and write it for them.
    Retarget(retarget::RetargetArgs),
    /// Apply patch files (*.gpatch, docs/patches.md): every hunk matches as expected or nothing is written.
    Patch(patch::PatchArgs),
    /// Compare two code objects function by function (aligned by control flow); --patch writes the patch.
    Diff(patch::DiffArgs),
}

/// Exit status for bad input or a refused operation (clap uses 2 for usage errors too).
const EXIT_FAILURE: u8 = 2;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => info::run(&args),
        Command::Disasm(args) => disasm::run(&args),
        Command::Decode(args) => decode::run(&args),
        Command::Isa(args) => isa::run(&args),
        Command::Rewrite(args) => rewrite::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Asm(args) => asm::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Emulate(args) => emulate::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Instrument(args) => instrument::run(&args),
        Command::Counters(args) => counters::run(&args),
        Command::Retarget(args) => retarget::run(&args),
        Command::Patch(args) => patch::run(&args),
        Command::Diff(args) => patch::run_diff(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gfxpatch: {e:#}");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}
