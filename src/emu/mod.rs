//! An emulator: runs a kernel of a code object on the CPU, from AMD's pseudocode.
//!
//! Built on the decoder and the semantics, not beside them: each instruction is decoded by
//! [`crate::isa::decode`] (the same decoder that is checked against LLVM), and each ALU
//! opcode runs the program [`crate::isa::semantics::eval`] compiled from AMD's text for it
//! (the evaluator the peephole prover uses), chosen once per encoding record ([`ops`]). What
//! has no text (memory, control flow, lane access) is a small built-in action ([`ops::Native`]).
//! An instruction with neither stops the run with its name and the reason: the emulator never
//! guesses a value.
//!
//! - [`memory`]: a sparse 64-bit address space; touching an unmapped byte is a fault.
//! - [`launch`]: the code object image, the kernarg segment (laid out from the metadata's
//!   `.args`, hidden arguments included), the dispatch packet, the initial SGPRs and VGPRs the
//!   descriptor asks for, and the workgroups and waves of a grid.
//! - [`wave`]: one wave's registers and running an ALU program on it.
//! - [`exec`]: one instruction of a wave: fetch, decode (cached by address), run.
//!
//! See `docs/emulator.md` for what runs per generation and what is approximated.

pub mod exec;
pub mod launch;
pub mod memory;
pub mod ops;
pub mod wave;

pub use launch::{Arg, Dispatch, Options, Outcome, run};

use std::fmt;

/// Why a run stopped before every wave ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    pub kernel: String,
    /// Where: the instruction's address in the code object (ELF virtual address) and its text.
    pub at: Option<(u64, String)>,
    pub lane: Option<u32>,
    pub address: Option<u64>,
    pub kind: StopKind,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopKind {
    /// The kernel, its arguments or the launch are not usable.
    Setup,
    /// An instruction the emulator does not implement.
    Unimplemented,
    /// An access outside mapped memory (or outside LDS or the private segment).
    Fault,
    /// `s_trap`, `s_sethalt`.
    Halt,
    /// A wave ran more instructions than allowed (`Options::max_instructions`).
    Limit,
    /// Waves wait at a barrier that can never complete.
    Deadlock,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel `{}`", self.kernel)?;
        if let Some((addr, text)) = &self.at {
            write!(f, ": {addr:#x} `{text}`")?;
        }
        if let Some(lane) = self.lane {
            write!(f, ": lane {lane}")?;
        }
        if let Some(a) = self.address {
            write!(f, ": address {a:#x}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Stop {}
